// Package sheetjob runs gang sheet jobs on the worker (docs/gang.md, "Sheet jobs"):
// it records each ganged PNG as pending for its group, enqueues a build when a group
// fills a sheet or its cut-off comes, and builds the sheets of a group under its
// lease (claim a batch, plan and render it with package gang, store the sheets, then
// each order's gang.json). The worker gives it its storage, memory budget and log.
package sheetjob

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"image/draw"
	"image/png"
	"io"
	"log/slog"
	"path"
	"sort"
	"strconv"
	"time"

	"github.com/hibiken/asynq"

	"github.com/printworker/printworker/gang"
	"github.com/printworker/printworker/jobs"
	"github.com/printworker/printworker/render"
	"github.com/printworker/printworker/storage"
)

// Groups are the gang groups the routing rules define (*routing.Rules).
type Groups interface {
	Gang(name string) (*gang.Group, bool)
	Gangs() []*gang.Group
}

// Enqueuer enqueues sheet builds (*jobs.Enqueuer).
type Enqueuer interface {
	GangBuild(ctx context.Context, g jobs.GangKey, reason string, n int64) (jobs.Enqueued, error)
}

// Storage is what the jobs need of the worker's storage.
type Storage interface {
	// Put stores into the default storage; kind (KindFile, KindManifest) labels the
	// upload in the worker's metrics.
	Put(ctx context.Context, kind string, obj storage.Object, body io.Reader) error
	// Get reads a stored file back from the storage of bucket ("" the default); an
	// error that a retry cannot fix says so (Retryable() false).
	Get(ctx context.Context, bucket, key string) (io.ReadCloser, error)
}

// Kinds of uploads, as the worker's metrics label them.
const (
	KindFile     = "file"
	KindManifest = "manifest"
)

// Config is what the jobs run with.
type Config struct {
	Gangs    *jobs.Gangs
	Enqueuer Enqueuer
	// Groups are the groups of the routing rules; nil: none.
	Groups  Groups
	Storage Storage
	// Acquire holds bytes of the worker's memory budget until release; nil: no budget.
	Acquire func(ctx context.Context, bytes int64) (release func(), err error)
	// Lease is a group builder's lease (default DefaultLease); Tick how often the
	// cut-offs are checked (default DefaultTick).
	Lease, Tick time.Duration
	// Logger gives the logger of a task's context (its task and order attributes);
	// nil: slog.Default.
	Logger func(ctx context.Context) *slog.Logger
	// Skipped marks the running task as one that found nothing to do.
	Skipped func(ctx context.Context, reason string)
}

// Jobs runs the gang sheet jobs.
type Jobs struct {
	cfg Config
}

// New returns the jobs of cfg.
func New(cfg Config) *Jobs {
	if cfg.Lease <= 0 {
		cfg.Lease = DefaultLease
	}
	if cfg.Tick <= 0 {
		cfg.Tick = DefaultTick
	}
	if cfg.Logger == nil {
		cfg.Logger = func(context.Context) *slog.Logger { return slog.Default() }
	}
	if cfg.Skipped == nil {
		cfg.Skipped = func(context.Context, string) {}
	}
	if cfg.Acquire == nil {
		cfg.Acquire = func(context.Context, int64) (func(), error) { return func() {}, nil }
	}
	return &Jobs{cfg: cfg}
}

// Defaults of gang sheet jobs.
const (
	// DefaultLease is the builder lease of a group; the builder renews it every
	// third of it, so a dead builder's batch waits at most this long.
	DefaultLease = 2 * time.Minute
	// DefaultTick is how often each worker looks for groups whose cut-off came.
	DefaultTick = 15 * time.Second
	// maxCopies is what one batch takes: gang.Plan refuses more (MaxRects is
	// quadratic in the copies).
	maxCopies = 10000
	// RenderBytes is what a sheet build asks of the memory budget: the encoder's
	// strips in flight plus the designs near the current rows (docs/gang.md,
	// "Output": a 6600 x 60000 sheet peaks near 310 MB of RSS).
	RenderBytes = 256 << 20
	// RecordName is the per-order file naming the sheets of its designs.
	RecordName = "gang.json"
)

// permanentError is a failure a retry cannot fix.
type permanentError struct{ reason string }

func (e *permanentError) Error() string   { return e.reason }
func (e *permanentError) Retryable() bool { return false }

// BusyError: another builder holds the group's lease. The task is retried after a
// while, and should not use up a retry.
type BusyError struct {
	g     jobs.GangKey
	after time.Duration
}

func (e *BusyError) Error() string {
	return fmt.Sprintf("gang %s: another worker is building this group's sheets", e.g)
}
func (e *BusyError) Retryable() bool           { return true }
func (e *BusyError) RetryAfter() time.Duration { return e.after }

// Line is an order line holding a ganged design: its number (1-based; 0 when the
// order names none) and its quantity.
type Line struct{ N, Quantity int }

// Group is the group named name of the routing rules; a name they do not define is a
// permanent error.
func (j *Jobs) Group(name string) (*gang.Group, error) {
	if j.cfg.Groups != nil {
		if g, ok := j.cfg.Groups.Gang(name); ok {
			return g, nil
		}
	}
	return nil, &permanentError{reason: fmt.Sprintf("gang group %q is not defined in this worker's routing rules", name)}
}

// Add records the stored PNG e of design ref (generation gen) as pending for group grp
// of its store, once per order line holding the design (each line its own quantity
// and label), and enqueues a build when the group fills a sheet. It runs after the
// file is stored and before the view's record, so a crash in between repeats it,
// which jobs.Gangs.Add makes harmless.
func (j *Jobs) Add(ctx context.Context, grp *gang.Group, ref string, gen int64, e jobs.GangEntry, lines []Line) error {
	g := jobs.GangKey{Store: e.Store, Group: grp.Name}
	// A design no sheet of the group can hold does not fill one (the build reports it).
	e.NoFill = grp.Sheet.Reject(gang.Design{Key: e.Key, Width: e.WidthPx, Height: e.HeightPx,
		Trim: image.Rect(0, 0, e.WidthPx, e.HeightPx), DPI: e.DPI}) != ""
	added := false
	var last jobs.GangAdded
	for _, l := range lines {
		e.Line, e.Quantity = l.N, l.Quantity
		a, err := j.cfg.Gangs.AddCounted(ctx, g, jobs.GangMember(e.OrderKey, ref, gen, e.View, l.N), e)
		if err != nil {
			return err
		}
		if a.Added {
			added, last = true, a
		}
	}
	if !added {
		return nil
	}
	j.cfg.Logger(ctx).InfoContext(ctx, "design pending for a gang sheet", "gang", grp.Name, "key", e.Key, "lines", len(lines))
	return j.checkFull(ctx, g, grp, last)
}

// Full says whether pending designs with totals t fill more than one sheet (or roll
// section) of c, or more copies than one batch takes: their full file sizes, each
// with the gap and the label and code bands around it, cover more than a sheet's printable area,
// so no packing puts them on one sheet. It reads the totals the add script keeps,
// never the designs: O(1) per add, where planning the pending designs after every
// add was quadratic in the group's size. The build packs the smaller alpha-trimmed
// boxes, so a sheet called full may come out somewhat shorter. A design the sheet
// can never hold (jobs.GangEntry.NoFill) is not in the totals.
func Full(t jobs.GangTotals, c gang.Config) bool {
	usable := int64(c.Width-2*c.Margin+c.Gap) * int64(c.MaxLength-2*c.Margin+c.Gap)
	return t.Copies > maxCopies || t.PaddedArea(c.Gap, c.Bands()) > usable
}

// checkFull enqueues a build when the group's pending designs fill a sheet (Full),
// from the totals the add left (a).
func (j *Jobs) checkFull(ctx context.Context, g jobs.GangKey, grp *gang.Group, a jobs.GangAdded) error {
	if !Full(a.Totals, grp.Sheet) {
		return nil
	}
	// One fill build per batch to come: every add until the build claims them
	// collapses on this TaskID.
	q, err := j.cfg.Enqueuer.GangBuild(ctx, g, jobs.GangFull, a.Batches+1)
	if err != nil {
		return err
	}
	j.cfg.Logger(ctx).InfoContext(ctx, "gang sheet full, build enqueued", "gang", g.Group, "copies", a.Totals.Copies, "duplicate", q.Duplicate)
	return nil
}

func sortedMembers[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// HandleBuild builds sheets of one group: under the group's lease it finishes a
// batch a dead builder left, then claims the pending designs batch after batch until
// none is left. Each design is on exactly one batch (Claim moves it atomically) and a
// batch is finished only after its sheets and the orders' gang.json are stored.
func (j *Jobs) HandleBuild(ctx context.Context, t *asynq.Task) error {
	p, err := jobs.Decode[jobs.GangBuild](t.Payload())
	if err != nil {
		return err
	}
	grp, err := j.Group(p.Group)
	if err != nil {
		return err
	}
	g := p.GangKey
	lease, err := j.cfg.Gangs.Lease(ctx, g, j.cfg.Lease)
	if err != nil {
		return err
	}
	if lease == nil {
		return &BusyError{g: g, after: j.cfg.Lease / 4}
	}
	// Released on the way out, also after a failure: the batch stays claimed and the
	// retry (or another worker) rebuilds it.
	return lease.Hold(ctx, func(ctx context.Context) error { return j.buildPending(ctx, g, grp) })
}

// buildPending claims and builds the group's pending batches until none is left;
// the caller holds the group's lease.
func (j *Jobs) buildPending(ctx context.Context, g jobs.GangKey, grp *gang.Group) error {
	built := 0
	for {
		b, ok, err := j.cfg.Gangs.Claim(ctx, g, time.Now().UTC().Format(time.DateOnly), maxCopies)
		if err != nil {
			return err
		}
		if !ok {
			break
		}
		if err := j.buildBatch(ctx, g, grp, b); err != nil {
			return err
		}
		if err := j.cfg.Gangs.Finish(ctx, g, b.N); err != nil {
			return err
		}
		built++
	}
	if built == 0 {
		j.cfg.Skipped(ctx, "nothing pending")
	}
	return nil
}

// sheetBase is the key of sheet i (0-based) of batch b without extension:
// {prefix}/{store}/gang/{group}/{date}/sheet-{batch}-{sheet}.
func sheetBase(grp *gang.Group, g jobs.GangKey, b jobs.GangBatch, i int) string {
	k := path.Join(storage.KeyValue(g.Store), "gang", grp.Name, b.Date, fmt.Sprintf("sheet-%06d-%02d", b.N, i+1))
	if grp.Prefix != "" {
		k = grp.Prefix + "/" + k
	}
	return k
}

// FileRecord is one ganged file of an order in its gang.json: which sheets hold
// its copies, or why it is on none.
type FileRecord struct {
	Key      string  `json:"key"`
	Bucket   string  `json:"bucket,omitempty"`
	Line     int     `json:"lineItem,omitempty"`
	DesignID int64   `json:"designId"`
	ViewID   string  `json:"viewId"`
	Quantity int     `json:"quantity"`
	Group    string  `json:"group"`
	Batch    int64   `json:"batch"`
	Sheets   []Sheet `json:"sheets"`
	Rejected string  `json:"rejected,omitempty"`
}

// Sheet is one sheet holding copies of a file.
type Sheet struct {
	Image    string `json:"image"`
	Manifest string `json:"manifest"`
	Copies   int    `json:"copies"`
}

// Record is an order's gang.json.
type Record struct {
	Version int          `json:"version"`
	Store   string       `json:"store"`
	Domain  string       `json:"domain"`
	OrderID string       `json:"orderId"`
	Files   []FileRecord `json:"files"`
}

// buildBatch renders, stores and records one batch. Everything it writes has a key
// and bytes fixed by the batch (members sorted, designs measured from their stored
// files, a deterministic plan and encoder), so a rebuild after a crash overwrites
// each object with the same bytes.
func (j *Jobs) buildBatch(ctx context.Context, g jobs.GangKey, grp *gang.Group, b jobs.GangBatch) error {
	log := j.cfg.Logger(ctx).With("gang", grp.Name, "batch", b.N)
	designs, members, missing, err := j.designs(ctx, b)
	if err != nil {
		return err
	}
	recs := map[string]*FileRecord{}
	for _, m := range b.Members {
		e := b.Entries[m]
		recs[m] = &FileRecord{Key: e.Key, Bucket: e.Bucket, Line: e.Line, DesignID: e.DesignID, ViewID: e.View,
			Quantity: e.Quantity, Group: grp.Name, Batch: b.N, Sheets: []Sheet{}}
		if why, ok := missing[m]; ok {
			recs[m].Rejected = why
			log.ErrorContext(ctx, "design left off the gang sheet", "key", e.Key, "order", e.OrderID, "reason", why)
		}
	}
	var l *gang.Layout
	if len(designs) > 0 {
		l, err = gang.Plan(designs, grp.Sheet)
		var ie *gang.InputError
		switch {
		case errors.Is(err, gang.ErrNothingPlaced), err == nil:
		case errors.As(err, &ie):
			// Cannot be fixed by a retry: every design of the batch is reported and
			// the batch ends, rather than failing again and again.
			for _, m := range members {
				recs[m].Rejected = ie.Reason
			}
			log.ErrorContext(ctx, "gang batch cannot be planned", "reason", ie.Reason)
			l = nil
		default:
			return err
		}
	}
	if l != nil {
		for _, r := range l.Rejected {
			recs[members[r.Design]].Rejected = r.Reason
			log.ErrorContext(ctx, "design left off the gang sheet", "key", r.Key, "order", designs[r.Design].OrderID, "reason", r.Reason)
		}
		if err := j.writeSheets(ctx, g, grp, b, l, members, recs); err != nil {
			return err
		}
	}
	return j.recordOrders(ctx, b, recs)
}

// designs measures the batch's files (alpha-trimmed box) in member order. A file
// that is gone or not a readable PNG is left off with its reason (missing); a
// storage error that a retry may fix fails the build.
func (j *Jobs) designs(ctx context.Context, b jobs.GangBatch) ([]gang.Design, []string, map[string]string, error) {
	var designs []gang.Design
	var members []string
	missing := map[string]string{}
	type size struct {
		w, h int
		trim image.Rectangle
		err  string
	}
	sizes := map[string]size{}
	for _, m := range b.Members {
		e := b.Entries[m]
		s, ok := sizes[e.Bucket+"\x00"+e.Key]
		if !ok {
			img, err := j.loadDesign(ctx, e.Bucket, e.Key)
			var r interface{ Retryable() bool }
			switch {
			case err == nil:
				n := asNRGBA(img)
				s = size{w: n.Rect.Dx(), h: n.Rect.Dy(), trim: gang.AlphaBounds(n)}
			case errors.As(err, &r) && !r.Retryable():
				s = size{err: err.Error()}
			default:
				return nil, nil, nil, err
			}
			sizes[e.Bucket+"\x00"+e.Key] = s
		}
		if s.err != "" {
			missing[m] = s.err
			continue
		}
		designs = append(designs, gang.Design{Key: e.Key, OrderID: e.OrderID, Line: e.Line, DesignID: e.DesignID, View: e.View,
			Quantity: e.Quantity, Width: s.w, Height: s.h, Trim: s.trim, DPI: e.DPI})
		members = append(members, m)
	}
	return designs, members, missing, nil
}

// loadDesign reads and decodes one stored PNG.
func (j *Jobs) loadDesign(ctx context.Context, bucket, key string) (image.Image, error) {
	rc, err := j.cfg.Storage.Get(ctx, bucket, key)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	img, err := png.Decode(rc)
	if err != nil {
		return nil, &permanentError{reason: fmt.Sprintf("%s: not a readable PNG: %v", key, err)}
	}
	return img, nil
}

// asNRGBA returns img as *image.NRGBA, converting when the decoder gave another
// layout.
func asNRGBA(img image.Image) *image.NRGBA {
	if n, ok := img.(*image.NRGBA); ok {
		return n
	}
	n := image.NewNRGBA(img.Bounds())
	draw.Draw(n, n.Rect, img, img.Bounds().Min, draw.Src)
	return n
}

// gangLoader gives the renderer a batch's designs from storage.
type gangLoader struct {
	j       *Jobs
	buckets map[string]string // key -> bucket
}

func (l gangLoader) Load(ctx context.Context, key string) (image.Image, error) {
	return l.j.loadDesign(ctx, l.buckets[key], key)
}

// writeSheets stores every sheet of the layout: PNG (streamed: the canvas is never in
// memory, and S3 multipart or the hot folder's temporary file keeps a partial sheet
// invisible), PDF when the group wants it, preview, and the sheet manifest last.
func (j *Jobs) writeSheets(ctx context.Context, g jobs.GangKey, grp *gang.Group, b jobs.GangBatch, l *gang.Layout, members []string, recs map[string]*FileRecord) error {
	release, err := j.cfg.Acquire(ctx, RenderBytes)
	if err != nil {
		return err
	}
	defer release()
	ld := gangLoader{j: j, buckets: map[string]string{}}
	for i, d := range l.Designs {
		ld.buckets[d.Key] = recs[members[i]].Bucket
	}
	meta := map[string]string{"store": g.Store, "gang": grp.Name, "batch": strconv.FormatInt(b.N, 10)}
	for i := range l.Sheets {
		base := sheetBase(grp, g, b, i)
		if err := j.putStream(ctx, storage.Object{Key: base + ".png", ContentType: "image/png", Metadata: meta}, func(wr io.Writer) error {
			return gang.Render(ctx, wr, l, i, ld, render.PNGOptions{})
		}); err != nil {
			return fmt.Errorf("gang sheet %s: %w", base, err)
		}
		if grp.PDF {
			if err := j.putStream(ctx, storage.Object{Key: base + ".pdf", ContentType: "application/pdf", Metadata: meta}, func(wr io.Writer) error {
				return gang.RenderPDF(ctx, wr, l, i, ld)
			}); err != nil {
				return fmt.Errorf("gang sheet %s: %w", base, err)
			}
		}
		if grp.PreviewWidth > 0 {
			var buf bytes.Buffer
			if err := render.EncodePNG(ctx, &buf, l.Preview(i, grp.PreviewWidth), render.PNGOptions{}); err != nil {
				return fmt.Errorf("gang preview %s: %w", base, err)
			}
			if err := j.cfg.Storage.Put(ctx, KindFile, storage.Object{Key: base + "-preview.png", ContentType: "image/png", Size: int64(buf.Len()), Metadata: meta}, &buf); err != nil {
				return err
			}
		}
		m := l.Manifest(i, path.Base(base)+".png")
		mb, err := gang.MarshalManifest(m)
		if err != nil {
			return err
		}
		if err := j.cfg.Storage.Put(ctx, KindManifest, storage.Object{Key: base + ".json", ContentType: "application/json", Size: int64(len(mb)), Metadata: meta}, bytes.NewReader(mb)); err != nil {
			return err
		}
		copies := map[int]int{}
		for _, p := range l.Sheets[i].Placements {
			copies[p.Design]++
		}
		for d, n := range copies {
			r := recs[members[d]]
			r.Sheets = append(r.Sheets, Sheet{Image: base + ".png", Manifest: base + ".json", Copies: n})
		}
		j.cfg.Logger(ctx).InfoContext(ctx, "gang sheet stored", "gang", grp.Name, "batch", b.N, "key", base+".png",
			"copies", len(m.Copies), "length_mm", m.LengthMM, "utilisation", m.Utilisation)
	}
	return nil
}

// errStorageStopped unblocks a sheet renderer whose storage stopped reading.
var errStorageStopped = errors.New("storage stopped reading the gang sheet")

// putStream streams what write produces into the default storage through a pipe.
func (j *Jobs) putStream(ctx context.Context, obj storage.Object, write func(io.Writer) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		err := write(pw)
		pw.CloseWithError(err)
		done <- err
	}()
	perr := j.cfg.Storage.Put(ctx, KindFile, obj, pr)
	pr.CloseWithError(errStorageStopped)
	if perr != nil {
		cancel()
	}
	if werr := <-done; werr != nil && perr == nil {
		return werr
	}
	return perr
}

// recordOrders records, per order of the batch, which sheets hold its files, then
// rewrites the order's gang.json from that record. The file is rewritten until the
// record's version did not move while it was written: two builders (of two groups)
// finishing designs of one order at once each end with a write that holds both.
func (j *Jobs) recordOrders(ctx context.Context, b jobs.GangBatch, recs map[string]*FileRecord) error {
	byOrder := map[jobs.OrderKey]map[string][]byte{}
	dirs := map[jobs.OrderKey]string{}
	for _, m := range b.Members {
		e := b.Entries[m]
		raw, err := json.Marshal(recs[m])
		if err != nil {
			return err
		}
		if byOrder[e.OrderKey] == nil {
			byOrder[e.OrderKey] = map[string][]byte{}
		}
		byOrder[e.OrderKey][m] = raw
		dirs[e.OrderKey] = e.OrderDir
	}
	keys := make([]jobs.OrderKey, 0, len(byOrder))
	for k := range byOrder {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i].String() < keys[j].String() })
	for _, k := range keys {
		if err := j.cfg.Gangs.RecordSheets(ctx, k, byOrder[k]); err != nil {
			return err
		}
		if err := j.writeRecord(ctx, k, dirs[k]); err != nil {
			return err
		}
	}
	return nil
}

// writeRecord rewrites the order's gang.json from its record in Redis.
func (j *Jobs) writeRecord(ctx context.Context, k jobs.OrderKey, dir string) error {
	key := RecordName
	if dir != "." && dir != "" {
		key = dir + "/" + RecordName
	}
	for try := 0; try < 10; try++ {
		all, ver, err := j.cfg.Gangs.OrderSheets(ctx, k)
		if err != nil {
			return err
		}
		rec := Record{Version: 1, Store: k.Store, Domain: k.Domain, OrderID: k.OrderID, Files: []FileRecord{}}
		for _, m := range sortedMembers(all) {
			var f FileRecord
			if json.Unmarshal([]byte(all[m]), &f) == nil {
				rec.Files = append(rec.Files, f)
			}
		}
		body, err := json.MarshalIndent(rec, "", "  ")
		if err != nil {
			return err
		}
		body = append(body, '\n')
		if err := j.cfg.Storage.Put(ctx, KindManifest, storage.Object{Key: key, ContentType: "application/json", Size: int64(len(body)),
			Metadata: map[string]string{"store": k.Store, "order": k.OrderID}}, bytes.NewReader(body)); err != nil {
			return fmt.Errorf("write %s: %w", key, err)
		}
		now, err := j.cfg.Gangs.SheetsVersion(ctx, k)
		if err != nil {
			return err
		}
		if now == ver {
			return nil
		}
	}
	return fmt.Errorf("order %s: %s kept changing while written; retrying", k, RecordName)
}

// EnqueueCutoffs enqueues a build of every group whose cut-off has come by now: the
// first time of the group's schedule after its oldest pending design arrived. The
// TaskID names that time, so every worker of the fleet enqueues the same one build.
// It returns the number of builds enqueued (duplicates included).
func (j *Jobs) EnqueueCutoffs(ctx context.Context, now time.Time) (int, error) {
	if j.cfg.Groups == nil {
		return 0, nil
	}
	groups, err := j.cfg.Gangs.Groups(ctx)
	if err != nil {
		return 0, err
	}
	n := 0
	var errs []error
	for _, g := range groups {
		grp, ok := j.cfg.Groups.Gang(g.Group)
		if !ok || grp.Schedule == nil {
			continue
		}
		since, err := j.cfg.Gangs.Since(ctx, g)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if since.IsZero() {
			continue
		}
		due := grp.Schedule.Next(since)
		if due.After(now) {
			continue
		}
		if _, err := j.cfg.Enqueuer.GangBuild(ctx, g, jobs.GangCutoff, due.Unix()); err != nil {
			errs = append(errs, err)
			continue
		}
		n++
	}
	return n, errors.Join(errs...)
}

// RunScheduler checks the cut-offs every Tick until ctx ends.
func (j *Jobs) RunScheduler(ctx context.Context) {
	tk := time.NewTicker(j.cfg.Tick)
	defer tk.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-tk.C:
			if _, err := j.EnqueueCutoffs(ctx, now); err != nil && ctx.Err() == nil {
				j.cfg.Logger(ctx).WarnContext(ctx, "gang cut-off check failed", "err", err)
			}
		}
	}
}

// HasCutoffs reports whether any group has a cut-off schedule.
func (j *Jobs) HasCutoffs() bool {
	if j.cfg.Groups == nil {
		return false
	}
	for _, g := range j.cfg.Groups.Gangs() {
		if g.Schedule != nil {
			return true
		}
	}
	return false
}
