package worker

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"path"
	"strconv"
	"strings"

	"github.com/printworker/printworker/filenames"
	"github.com/printworker/printworker/jobs"
	"github.com/printworker/printworker/model"
	"github.com/printworker/printworker/profiles"
	"github.com/printworker/printworker/render"
	"github.com/printworker/printworker/routing"
	"github.com/printworker/printworker/storage"
)

// Production profiles in the worker (docs/profiles.md): each view is made by the
// profile its store, product and view choose — its file type and dpi, colour, page,
// plates, file name and routing target — and every file record names the profile and
// its digest. The plates a png view gets as separate files (render.Result.Sidecars)
// are stored next to it under names reserved like the view's own.

// SidecarRecord is a file stored beside a print file: a png's white plate or cut.
type SidecarRecord struct {
	Key         string `json:"key"`
	Filename    string `json:"filename"`
	ContentType string `json:"contentType"`
	Bytes       int64  `json:"bytes"`
	SHA256      string `json:"sha256"`
}

// profileFor is the production profile of a view (nil without profiles).
func (w *Worker) profileFor(store, product, view string) *profiles.Resolved {
	if w.cfg.Profiles == nil {
		return nil
	}
	return w.cfg.Profiles.For(store, product, view)
}

// viewChoice is what a view is made by and where it goes, chosen once per view
// before its type, dpi and name: its production profile and its routing target.
type viewChoice struct {
	prof   *profiles.Resolved
	target routing.Target
	routed bool
}

// chooseViews picks each view's profile and route (docs/routing.md "Profiles"). The
// routing rules are matched with the type the view has under the profile the
// profiles file (or --profile) chooses; a matching rule's profile then replaces that
// choice, as the rule picks the machine and a machine's file must be made for it. A
// file no rule routes goes to its profile's route. Unless the files are downloaded
// (made by the hub, so no profile applies), each view's type and dpi become its
// profile's (or the colour settings').
func (w *Worker) chooseViews(ctx context.Context, p jobs.DesignExport, d *model.DesignDetail, views []*model.View, download bool) ([]viewChoice, error) {
	rush, err := w.rushOf(ctx, p.OrderKey)
	if err != nil {
		return nil, err
	}
	out := make([]viewChoice, len(views))
	for i, v := range views {
		c := viewChoice{prof: w.profileFor(p.Store, d.ProductID, v.ID)}
		typ := v.Export.Type
		if !download {
			typ = w.exportType(p.Store, d.ProductID, v.ID, v.Export.Type)
		}
		c.target, c.routed = w.routeView(ctx, p, d.ProductID, v, typ, rush)
		if c.routed && c.target.Profile != "" {
			prof, ok := w.cfg.Profiles.Named(c.target.Profile)
			if !ok { // New checks every routing profile is loaded
				return nil, &PermanentError{Reason: fmt.Sprintf("routing rule %d names profile %q, which is not loaded", c.target.Rule, c.target.Profile)}
			}
			c.prof, typ = prof, prof.ExportType(v.Export.Type)
		}
		if !download {
			v.Export.Type = typ
			v.Export.DPI = c.prof.DPI(v.Export.DPI)
		}
		if !c.routed {
			// A file no routing rule sent anywhere goes to its profile's target, if any.
			if c.target, c.routed, err = profileTarget(c.prof); err != nil {
				return nil, err
			}
		}
		out[i] = c
	}
	return out, nil
}

// profileNames names the views whose profile has a file name pattern by that
// pattern; the others keep names.
func (w *Worker) profileNames(choices []viewChoice, views []*model.View, names []string, f filenames.Fields) []string {
	byPattern := map[string][]string{}
	for i, c := range choices {
		if c.prof == nil || c.prof.Profile.FileName == "" {
			continue
		}
		pat := c.prof.Profile.FileName
		if _, ok := byPattern[pat]; !ok {
			opts := w.cfg.Filenames
			opts.Pattern = pat
			byPattern[pat] = filenames.ForDesign(opts, f, views)
		}
		names[i] = byPattern[pat][i]
	}
	return names
}

// viewLabel is a view's name for people (its id when it has none).
func viewLabel(v *model.View) string {
	if n := v.Name.Pick(""); n != "" {
		return n
	}
	return v.ID
}

// profileTarget is the machine folder of a profile's routing target (flat, named
// by the default machine pattern), for a file no routing rule routed; ok is false
// when the profile names none.
func profileTarget(prof *profiles.Resolved) (t routing.Target, ok bool, err error) {
	if prof == nil || prof.Profile.Route == nil {
		return routing.Target{}, false, nil
	}
	prefix, err := routing.CleanPrefix(prof.Profile.Route.Prefix)
	if err != nil {
		return routing.Target{}, false, &PermanentError{Reason: fmt.Sprintf("profile %s: route.prefix: %v", prof.Name(), err)}
	}
	return routing.Target{Rule: -1, Name: "profile " + prof.Name(), Prefix: prefix,
		Layout: routing.LayoutFlat, Filename: routing.DefaultMachinePattern}, true, nil
}

// recordProfile names the view's profile in its record and checks the file's
// effective resolution against the profile's lowest acceptable dpi.
func recordProfile(rec *FileRecord, prof *profiles.Resolved, res *render.Result) {
	if prof == nil {
		return
	}
	rec.Profile, rec.ProfileDigest = prof.Name(), prof.Digest
	if res == nil {
		return
	}
	rec.EffectiveDPI = math.Round(res.EffectiveDPI*10) / 10
	if wn := prof.CheckDPI(rec.ViewID, res.EffectiveDPI); wn != nil {
		rec.Warnings = append(rec.Warnings, *wn)
	}
}

// sidecarTypes are the file types of the sidecars' suffixes, for their names' and
// keys' extensions.
var sidecarTypes = map[string]string{render.SidecarWhite: model.ExportPNG, render.SidecarCut: model.ExportPDF}

// putSidecars stores the render's sidecars beside the view's file in its order
// folder: each name reserved in the order like a view's (its own slot, so a retry
// gets the same name), and recorded on rec. A machine folder gets them with the
// file (deliverMachine).
func (w *Worker) putSidecars(ctx context.Context, x viewExport, rec *FileRecord, scs []render.Sidecar) error {
	for _, sc := range scs {
		typ, ok := sidecarTypes[sc.Suffix]
		if !ok {
			return fmt.Errorf("sidecar %q: unknown kind", sc.Suffix)
		}
		name, key, err := w.reserveSlot(ctx, x, render.SidecarName(x.name, sc), typ, "sidecar"+sc.Suffix)
		if err != nil {
			return err
		}
		obj := storage.Object{Key: key, ContentType: sc.ContentType, Filename: name, Size: int64(len(sc.Data)), Metadata: map[string]string{
			"store": x.p.Store, "order": x.p.OrderID, "design": strconv.FormatInt(x.ref.ID, 10), "view": x.v.ID,
			"sidecar": strings.TrimPrefix(strings.TrimSuffix(sc.Suffix, path.Ext(sc.Suffix)), "-"), // white, cut
		}}
		put, err := w.uploadTo(ctx, w.storageOf(""), kindFile, obj, bytes.NewReader(sc.Data))
		if err != nil {
			return fmt.Errorf("sidecar %s: %w", name, err)
		}
		rec.Sidecars = append(rec.Sidecars, SidecarRecord{Key: key, Filename: name, ContentType: sc.ContentType, Bytes: put.Bytes, SHA256: put.SHA256})
	}
	return nil
}
