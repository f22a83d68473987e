package worker

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path"
	"strings"

	"github.com/printworker/printworker/preflight"
	"github.com/printworker/printworker/profiles"
	"github.com/printworker/printworker/render"
	"github.com/printworker/printworker/storage"
)

// Every file rendered with a production profile is preflighted with the profile's
// check profile as it is stored (docs/preflight.md "In the worker"): its bytes are
// kept while they stream to storage (up to Preflight.MaxBytes), checked, and the
// report is stored beside the file as NAME.preflight.json. The verdict and findings
// go into the file's record (manifest, staff page, ticket); a file with an error
// finding gets the warning profiles.WarnPreflightError, a review kind held by
// default, one with warnings profiles.WarnPreflightWarning, which is not.

// Preflight configures the worker's preflight of rendered files.
type Preflight struct {
	// Off turns the preflight off.
	Off bool
	// MaxBytes is the largest file checked (its bytes are held in memory while it
	// is stored); 0: DefaultPreflightMax. A larger file gets an info finding.
	MaxBytes int64
	// Limits bound the CPU and memory of one check; zero: preflight.DefaultLimits.
	Limits preflight.Limits
}

// DefaultPreflightMax is the largest file the worker preflights by default.
const DefaultPreflightMax = 64 << 20

// PreflightRecord is a file's preflight in its manifest record.
type PreflightRecord struct {
	// Profile is the check profile (the file's production profile).
	Profile  string              `json:"profile"`
	Verdict  string              `json:"verdict"`
	Findings []preflight.Finding `json:"findings"`
	// TACMax is the highest total ink in percent (absent: not measured).
	TACMax *float64 `json:"tacMax,omitempty"`
	// Report is the key of the JSON report stored beside the file.
	Report string `json:"report,omitempty"`
}

// capture keeps a copy of what streams through it, up to max bytes; beyond that
// it keeps nothing and says so.
type capture struct {
	buf  bytes.Buffer
	max  int64
	over bool
}

func (c *capture) Write(p []byte) (int, error) {
	if c.over {
		return len(p), nil
	}
	if int64(c.buf.Len()+len(p)) > c.max {
		c.over, c.buf = true, bytes.Buffer{}
		return len(p), nil
	}
	return c.buf.Write(p)
}

// preflightCapture is the capture of a view's file, nil when it is not checked
// (no profile, or the preflight is off).
func (w *Worker) preflightCapture(x viewExport) *capture {
	if w.cfg.Preflight.Off || x.prof == nil {
		return nil
	}
	max := w.cfg.Preflight.MaxBytes
	if max <= 0 {
		max = DefaultPreflightMax
	}
	return &capture{max: max}
}

// recordPreflight checks the captured file with its profile's check profile,
// records the verdict and findings on rec, and stores the report beside the file.
func (w *Worker) recordPreflight(ctx context.Context, x viewExport, rec *FileRecord, c *capture) error {
	if c == nil {
		return nil
	}
	rules, err := x.prof.Profile.CheckRules()
	if err != nil {
		return &PermanentError{Reason: err.Error()}
	}
	var fr preflight.FileReport
	if c.over {
		fr = preflight.FileReport{File: rec.Filename, Verdict: preflight.Pass, Findings: []preflight.Finding{{Code: "preflight.skipped", Severity: preflight.Info,
			Message: fmt.Sprintf("the file is larger than the %d bytes the worker preflights", c.max)}}}
	} else {
		lim := w.cfg.Preflight.Limits
		if lim == (preflight.Limits{}) {
			lim = preflight.DefaultLimits
		}
		fr = preflight.Check(rec.Filename, c.buf.Bytes(), rules, lim)
	}
	c.buf = bytes.Buffer{}
	pr := &PreflightRecord{Profile: rules.Profile, Verdict: fr.Verdict, Findings: fr.Findings, TACMax: fr.Inks.TACMax}
	body, err := json.MarshalIndent(fr, "", "  ")
	if err != nil {
		return err
	}
	// The report's key is the file's with a suffix no print file name has, so it
	// needs no name of its own in the order.
	pr.Report = rec.Key + ".preflight.json"
	if _, err := w.uploadTo(ctx, w.deps.Storage, kindShopFloor, storage.Object{Key: pr.Report, ContentType: "application/json",
		Filename: path.Base(pr.Report), Size: int64(len(body))}, bytes.NewReader(body)); err != nil {
		return fmt.Errorf("preflight report: %w", err)
	}
	rec.Preflight = pr
	if code := verdictWarning(fr.Verdict); code != "" {
		rec.Warnings = append(rec.Warnings, preflightWarning(code, rec.ViewID, fr))
	}
	return nil
}

func verdictWarning(v string) string {
	switch v {
	case preflight.Fail:
		return profiles.WarnPreflightError
	case preflight.Warn:
		return profiles.WarnPreflightWarning
	}
	return ""
}

// preflightWarning sums a report's findings of its verdict's severity up in one
// warning: "pdfx.boxes (page 1): ...; ink.tac: ...".
func preflightWarning(code, viewID string, fr preflight.FileReport) render.Warning {
	sev := preflight.Warning
	if fr.Verdict == preflight.Fail {
		sev = preflight.Error
	}
	var parts []string
	for _, f := range fr.Findings {
		if f.Severity != sev {
			continue
		}
		where := ""
		if f.Page > 0 {
			where = fmt.Sprintf(" (page %d)", f.Page)
		}
		parts = append(parts, f.Code+where+": "+f.Message)
	}
	return render.Warning{Code: code, ViewID: viewID, Message: "preflight " + fr.Verdict + ": " + strings.Join(parts, "; ")}
}

// preflightLine is a file's preflight as the staff page and ticket show it: the
// verdict and total ink ("pass, total ink 239.2 %"), and the report's key.
func preflightLine(p *PreflightRecord) (line, report string) {
	if p == nil {
		return "", ""
	}
	line = p.Verdict
	if p.TACMax != nil {
		line += fmt.Sprintf(", total ink %.1f %%", *p.TACMax)
	}
	return line + " (" + p.Profile + ")", p.Report
}
