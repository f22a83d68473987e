// Package imposejob imposes a shop's PDF items as they come (docs/imposition.md
// "Imposition groups"): each item file waits as pending for its imposition group, a
// build claims the pending items as a batch under the group's lease, imposes them
// with package impose, stores the sheets, the batch's impose.json and ticket in the
// group's machine folder, then each order's record of where its items landed. The
// pending sets, batches and leases are gang groups' (jobs.Gangs): a batch stays
// claimed until its build finishes, so a builder that dies mid-build leaves it to
// the next build, which writes the same objects again.
package imposejob

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path"
	"sort"
	"strings"
	"time"

	"github.com/printworker/printworker/gang/sheetjob"
	"github.com/printworker/printworker/impose"
	"github.com/printworker/printworker/jobs"
	"github.com/printworker/printworker/storage"
)

// Group is an imposition group: the template its items are imposed with and the
// machine folder its sheets go to.
type Group struct {
	Name     string
	Template *impose.Template
	// Prefix is the key prefix of the group's sheets ("" the storage root):
	// {prefix}/{store}/impose/{group}/{date}/batch-000001/sheets.pdf.
	Prefix string
	// FullCopies: an add that brings the pending copies to at least this many says
	// the batch is full (the caller enqueues a build); 0: built on demand or by a
	// cut-off only.
	FullCopies int
}

// Config is what the jobs run with.
type Config struct {
	Gangs   *jobs.Gangs
	Storage sheetjob.Storage
	// Lease is a builder's lease (default sheetjob.DefaultLease).
	Lease time.Duration
	// Now dates new batches (default time.Now).
	Now func() time.Time
}

// Jobs runs imposition groups' builds.
type Jobs struct{ cfg Config }

// New returns the jobs of cfg.
func New(cfg Config) *Jobs {
	if cfg.Lease <= 0 {
		cfg.Lease = sheetjob.DefaultLease
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return &Jobs{cfg: cfg}
}

// Bounds: what one batch takes, and the largest item file read.
const (
	maxBatchCopies = 10000
	maxItemBytes   = 64 << 20
)

// Key is the group's key among the gang groups: its own namespace, so an
// imposition group and a gang group of one name never share a pending set.
func Key(store, group string) jobs.GangKey {
	return jobs.GangKey{Store: store, Group: "impose:" + group}
}

// Add records one item file of an order line (e.Quantity copies) as pending for the
// group; member identifies it (jobs.GangMember), so a retried add is one item. full
// says the pending copies fill a batch (Group.FullCopies).
func (j *Jobs) Add(ctx context.Context, store string, grp *Group, member string, e jobs.GangEntry) (added, full bool, err error) {
	if e.Quantity < 1 {
		return false, false, fmt.Errorf("impose group %s: %s: quantity %d", grp.Name, e.Key, e.Quantity)
	}
	a, err := j.cfg.Gangs.AddCounted(ctx, Key(store, grp.Name), member, e)
	if err != nil {
		return false, false, err
	}
	return a.Added, grp.FullCopies > 0 && a.Totals.Copies >= int64(grp.FullCopies), nil
}

// BusyError says another builder holds the group's lease: retry later.
type BusyError struct{ Group string }

func (e *BusyError) Error() string {
	return "impose group " + e.Group + ": another builder holds the lease"
}
func (e *BusyError) Retryable() bool { return true }

// Build builds the group's pending items of store under its lease, batch after
// batch until none is pending, and returns how many batches it built. A batch left
// by a builder that died is built first.
func (j *Jobs) Build(ctx context.Context, store string, grp *Group) (int, error) {
	g := Key(store, grp.Name)
	lease, err := j.cfg.Gangs.Lease(ctx, g, j.cfg.Lease)
	if err != nil {
		return 0, err
	}
	if lease == nil {
		return 0, &BusyError{Group: grp.Name}
	}
	built := 0
	err = lease.Hold(ctx, func(ctx context.Context) error {
		for {
			b, ok, err := j.cfg.Gangs.Claim(ctx, g, j.cfg.Now().UTC().Format(time.DateOnly), maxBatchCopies)
			if err != nil || !ok {
				return err
			}
			if err := j.buildBatch(ctx, store, grp, b); err != nil {
				return err
			}
			if err := j.cfg.Gangs.Finish(ctx, g, b.N); err != nil {
				return err
			}
			built++
		}
	})
	return built, err
}

// Placement is one copy of an item in an order's record: impose.json's placement
// and the copy's code.
type Placement struct {
	impose.Placement
	Code string `json:"code,omitempty"`
}

// FileRecord is one item file of an order: where its copies landed, or why none did.
type FileRecord struct {
	Key        string      `json:"key"`
	Bucket     string      `json:"bucket,omitempty"`
	Line       int         `json:"lineItem,omitempty"`
	Quantity   int         `json:"quantity"`
	Group      string      `json:"group"`
	Batch      int64       `json:"batch"`
	Sheets     string      `json:"sheets,omitempty"`
	Placements []Placement `json:"placements"`
	Rejected   string      `json:"rejected,omitempty"`
}

// Record is an order's impose-{group}-{batch}.json, next to its manifest.
type Record struct {
	Version int          `json:"version"`
	Store   string       `json:"store"`
	OrderID string       `json:"orderId"`
	Files   []FileRecord `json:"files"`
}

// batchBase is the folder of batch b's sheets, impose.json and ticket.
func batchBase(store string, grp *Group, b jobs.GangBatch) string {
	k := path.Join(storage.KeyValue(store), "impose", grp.Name, b.Date, fmt.Sprintf("batch-%06d", b.N))
	if grp.Prefix != "" {
		k = grp.Prefix + "/" + k
	}
	return k
}

// buildBatch imposes, stores and records one batch. Its keys and (but for the PDF's
// object order) bytes are fixed by the batch, so a rebuild after a crash overwrites
// each object with the same content.
func (j *Jobs) buildBatch(ctx context.Context, store string, grp *Group, b jobs.GangBatch) error {
	var in []impose.Input
	var members []string // of each input
	recs := map[string]*FileRecord{}
	for _, m := range b.Members {
		e := b.Entries[m]
		recs[m] = &FileRecord{Key: e.Key, Bucket: e.Bucket, Line: e.Line, Quantity: e.Quantity, Group: grp.Name, Batch: b.N, Placements: []Placement{}}
		data, err := j.read(ctx, e)
		if err != nil {
			var r interface{ Retryable() bool }
			if errors.As(err, &r) && !r.Retryable() {
				recs[m].Rejected = err.Error()
				continue
			}
			return err
		}
		for range e.Quantity {
			in = append(in, impose.Input{Name: e.Key, Data: data, Order: e.OrderID, Line: e.Line})
			members = append(members, m)
		}
	}
	base := batchBase(store, grp, b)
	if len(in) > 0 {
		var pdf bytes.Buffer
		res, err := impose.Impose(ctx, &pdf, grp.Template, in, impose.Options{
			Batch:   fmt.Sprintf("%s-%06d", grp.Name, b.N),
			Created: dateOf(b.Date),
		})
		switch {
		case err != nil && ctx.Err() != nil:
			return err
		case err != nil:
			// Bad items cannot be fixed by a retry: every item of the batch says why
			// and the batch ends, rather than failing again and again.
			for _, m := range members {
				recs[m].Rejected = err.Error()
			}
		default:
			doc, err := json.MarshalIndent(res, "", "  ")
			if err != nil {
				return err
			}
			for _, o := range []struct {
				name, typ string
				data      []byte
			}{
				{"sheets.pdf", "application/pdf", pdf.Bytes()},
				{"impose.json", "application/json", append(doc, '\n')},
				{"ticket.txt", "text/plain; charset=utf-8", ticket(store, grp, b, res)},
			} {
				if err := j.put(ctx, base+"/"+o.name, o.typ, o.data); err != nil {
					return err
				}
			}
			for i, p := range res.Placements {
				r := recs[members[i]]
				r.Sheets = base + "/sheets.pdf"
				r.Placements = append(r.Placements, Placement{Placement: p, Code: p.Code})
			}
		}
	}
	return j.recordOrders(ctx, grp, b, recs)
}

// dateOf is the batch's date as the PDF's date: the same batch gives the same dates.
func dateOf(day string) time.Time {
	t, err := time.Parse(time.DateOnly, day)
	if err != nil {
		return time.Unix(0, 0).UTC()
	}
	return t
}

func (j *Jobs) read(ctx context.Context, e jobs.GangEntry) ([]byte, error) {
	rc, err := j.cfg.Storage.Get(ctx, e.Bucket, e.Key)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	data, err := io.ReadAll(io.LimitReader(rc, maxItemBytes+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxItemBytes {
		return nil, permanent(fmt.Sprintf("%s: larger than %d bytes", e.Key, maxItemBytes))
	}
	return data, nil
}

type permanentError struct{ reason string }

func (e *permanentError) Error() string   { return e.reason }
func (e *permanentError) Retryable() bool { return false }

func permanent(reason string) error { return &permanentError{reason} }

func (j *Jobs) put(ctx context.Context, key, typ string, data []byte) error {
	obj := storage.Object{Key: key, ContentType: typ, Size: int64(len(data))}
	return j.cfg.Storage.Put(ctx, sheetjob.KindFile, obj, bytes.NewReader(data))
}

// recordOrders writes each order's record of the batch next to its manifest.
func (j *Jobs) recordOrders(ctx context.Context, grp *Group, b jobs.GangBatch, recs map[string]*FileRecord) error {
	type order struct {
		key jobs.OrderKey
		dir string
	}
	byOrder := map[order][]string{}
	for _, m := range b.Members {
		e := b.Entries[m]
		o := order{e.OrderKey, e.OrderDir}
		byOrder[o] = append(byOrder[o], m)
	}
	orders := make([]order, 0, len(byOrder))
	for o := range byOrder {
		orders = append(orders, o)
	}
	sort.Slice(orders, func(a, c int) bool {
		return orders[a].dir+"|"+orders[a].key.OrderID < orders[c].dir+"|"+orders[c].key.OrderID
	})
	for _, o := range orders {
		rec := Record{Version: 1, Store: o.key.Store, OrderID: o.key.OrderID}
		for _, m := range byOrder[o] {
			rec.Files = append(rec.Files, *recs[m])
		}
		doc, err := json.MarshalIndent(rec, "", "  ")
		if err != nil {
			return err
		}
		name := fmt.Sprintf("impose-%s-%06d.json", grp.Name, b.N)
		if err := j.put(ctx, path.Join(o.dir, name), "application/json", append(doc, '\n')); err != nil {
			return err
		}
	}
	return nil
}

// ticket is the batch ticket staff read at the press and the cutter: the batch, its
// sheets, and every order's items with their sheets.
func ticket(store string, grp *Group, b jobs.GangBatch, res *impose.Result) []byte {
	var t strings.Builder
	tpl := grp.Template
	fmt.Fprintf(&t, "BATCH %s-%06d  store %s  group %s  %s\n", grp.Name, b.N, store, grp.Name, b.Date)
	fmt.Fprintf(&t, "%d sheet(s) %gx%g mm, duplex %s, order %s, %d copies\n\n", res.Sheets, tpl.Sheet.WidthMM, tpl.Sheet.HeightMM, tpl.Duplex, tpl.Order, len(res.Placements))
	fmt.Fprintf(&t, "%-10s %-5s %-40s %s\n", "sheet", "copy", "item", "code")
	for _, p := range res.Placements {
		fmt.Fprintf(&t, "%-10s %-5d %-40s %s\n", fmt.Sprintf("%d/%d", p.Sheet, res.Sheets), p.Copy, p.Item, p.Code)
	}
	return []byte(t.String())
}
