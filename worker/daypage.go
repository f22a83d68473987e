package worker

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"io"
	"path"
	"slices"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/printworker/printworker/jobs"
	"github.com/printworker/printworker/storage"
)

// The per-day staff page (docs/shop-floor.md, "Day page"): an index.html in the folder
// the order folders of one day sit in ({store}/{date} by default), listing every
// order of that day whose manifest is stored.
//
// Many workers complete orders of one day at once, and a page rewritten from what one
// completion knows would drop what another wrote meanwhile. So the page is always
// rebuilt from a listing of the day's manifests, by one worker at a time, and a
// completion returns only once a rebuild that started after its manifest was written
// has finished:
//
//  1. the completion records its order's summary (a Redis hash of the day), then takes
//     a ticket: INCR of the day's generation counter, after its manifest is stored;
//  2. it returns as soon as the day's "done" generation reaches its ticket;
//  3. otherwise it tries the day's lock (SET NX, with an expiry, so a crashed holder
//     cannot block the day); the holder reads the generation G, lists the manifests,
//     writes the page and raises "done" to G; the others poll and usually find their
//     ticket covered by the holder's rebuild, so a burst of N completions costs a few
//     rebuilds, not N.
//
// Every order whose ticket is <= G wrote its manifest before G was read, so the
// listing that follows sees it: no completion is ever left out. A completion that
// cannot see its ticket covered before its task's deadline fails and is retried.

const (
	// dayLockTTL bounds how long a crashed holder blocks a day's page (its waiting
	// completions hold task slots meanwhile); a live holder renews the lock every
	// dayLockTTL/3 while it rebuilds, however long the listing takes.
	dayLockTTL = 15 * time.Second
	// dayStateTTL keeps a day's counters and summaries in Redis after its last
	// completion; a late re-export re-reads the manifests Redis has forgotten.
	dayStateTTL = 35 * 24 * time.Hour
	// dayPoll bounds the wait between two looks at a day's state while another
	// worker rebuilds its page.
	dayPollMin, dayPollMax = 20 * time.Millisecond, 250 * time.Millisecond
)

// lister is the optional part of a Storage that lists a folder (both backends); a
// storage that cannot list gets no day page.
type lister interface {
	List(ctx context.Context, prefix string) ([]storage.Info, error)
}

// presigner is the optional part of a Storage that says whether its links are
// presigned (*storage.S3 without a public URL): pages in such a bucket carry presigned
// links, since a relative link would reach a private bucket without a signature.
type presigner interface {
	Presigns() bool
}

// daySummary is what the day page shows of one order; kept in Redis so a rebuild
// reads a manifest only when Redis has no summary of it.
type daySummary struct {
	Manifest    string   `json:"manifest"`
	OrderID     string   `json:"orderId"`
	Revision    int64    `json:"revision"`
	OrderStatus string   `json:"orderStatus,omitempty"`
	Created     string   `json:"created,omitempty"`
	GeneratedAt string   `json:"generatedAt"`
	Rush        bool     `json:"rush,omitempty"`
	Files       int      `json:"files"`
	Quantity    int      `json:"quantity"`
	Thumbs      []string `json:"thumbs,omitempty"`
	NoPreview   int      `json:"noPreview,omitempty"`
	Warnings    []string `json:"warnings,omitempty"`
	Page        string   `json:"page,omitempty"`
	Ticket      string   `json:"ticket,omitempty"`
}

// maxDayThumbs bounds an order's thumbnail strip; the order's own page has them all.
const maxDayThumbs = 8

func summarize(m *Manifest, manifestKey string) daySummary {
	s := daySummary{Manifest: manifestKey, OrderID: m.OrderID, Revision: m.Revision, OrderStatus: m.OrderStatus,
		Created: m.OrderCreated, GeneratedAt: m.GeneratedAt, Rush: IsRush(m.OrderStatus), Files: len(m.Files),
		Page: m.StaffPage, Ticket: m.Ticket}
	for _, li := range m.LineItems {
		s.Quantity += li.Quantity
	}
	for _, f := range m.Files {
		switch {
		case f.Thumbnail == "" || f.Bucket != "":
			// No preview, or one in another bucket a page link cannot reach.
			s.NoPreview++
		case len(s.Thumbs) < maxDayThumbs:
			s.Thumbs = append(s.Thumbs, f.Thumbnail)
		}
	}
	for _, wr := range m.Warnings {
		s.Warnings = append(s.Warnings, path.Base(wr.Key)+": "+wr.Code+": "+wr.Message)
	}
	return s
}

// dayKey is a Redis key of the day folder's state. The folder is a hash tag: the
// summary and counter are updated in one MULTI, which a Redis Cluster allows only
// within one slot.
func (w *Worker) dayKey(folder, what string) string {
	return w.cfg.KeyPrefix + ":daypage:{" + folder + "}:" + what
}

// raiseDoneScript sets the day's done generation to ARGV[1] if that is higher.
var raiseDoneScript = redis.NewScript(`
local cur = tonumber(redis.call('GET', KEYS[1]) or '0')
if tonumber(ARGV[1]) > cur then redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2]) end
return 1
`)

// updateDayPage records the completed order in its day and returns once the day's
// page lists it. The manifest at manifestKey is already stored.
func (w *Worker) updateDayPage(ctx context.Context, m *Manifest, manifestKey string, date time.Time) error {
	if w.cfg.ShopFloor.NoStaffPages {
		return nil
	}
	if _, ok := w.deps.Storage.(lister); !ok {
		return nil
	}
	folder, ok, err := w.cfg.Layout.DayFolder(m.KeyVars(date))
	if err != nil || !ok {
		return err // a layout without a day folder: no day page
	}
	sum, err := json.Marshal(summarize(m, manifestKey))
	if err != nil {
		return err
	}
	rdb := w.deps.Redis
	ordersKey, genKey := w.dayKey(folder, "orders"), w.dayKey(folder, "gen")
	var gen *redis.IntCmd
	if _, err := rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.HSet(ctx, ordersKey, manifestKey, sum)
		p.Expire(ctx, ordersKey, dayStateTTL)
		gen = p.Incr(ctx, genKey)
		p.Expire(ctx, genKey, dayStateTTL)
		return nil
	}); err != nil {
		return fmt.Errorf("day page of %s: %w", folder, err)
	}
	return w.awaitDayPage(ctx, folder, gen.Val())
}

// awaitDayPage waits until the day's done generation reaches ticket, rebuilding the
// page itself whenever the day's lock is free.
func (w *Worker) awaitDayPage(ctx context.Context, folder string, ticket int64) error {
	rdb := w.deps.Redis
	doneKey, lockKey := w.dayKey(folder, "done"), w.dayKey(folder, "lock")
	wait := dayPollMin
	for {
		done, err := rdb.Get(ctx, doneKey).Int64()
		if err != nil && !errors.Is(err, redis.Nil) {
			return fmt.Errorf("day page of %s: %w", folder, err)
		}
		if done >= ticket {
			return nil
		}
		lease, err := jobs.TakeLease(ctx, rdb, lockKey, dayLockTTL)
		if err != nil {
			return fmt.Errorf("day page of %s: %w", folder, err)
		}
		if lease != nil {
			// Renewed while the day is listed and written, released after (also when
			// the attempt is cancelled: the day is not held for the lock's expiry).
			if err := lease.Hold(ctx, func(ctx context.Context) error { return w.rebuildDayPage(ctx, folder, lease) }); err != nil {
				return err
			}
			continue
		}
		if w.hooks.dayWaiting != nil {
			w.hooks.dayWaiting()
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("day page of %s: waiting for another worker's rebuild: %w", folder, ctx.Err())
		case <-time.After(wait):
		}
		wait = min(2*wait, dayPollMax)
	}
}

// rebuildDayPage lists the day's manifests and writes its page; the caller holds the
// day's lock.
func (w *Worker) rebuildDayPage(ctx context.Context, folder string, lock *jobs.Lease) error {
	rdb := w.deps.Redis
	ordersKey, genKey := w.dayKey(folder, "orders"), w.dayKey(folder, "gen")
	// The generation is read before the listing: every completion counted in it has
	// its manifest stored, so the listing sees it.
	gen, err := rdb.Get(ctx, genKey).Int64()
	if err != nil && !errors.Is(err, redis.Nil) {
		return fmt.Errorf("day page of %s: %w", folder, err)
	}
	objs, err := w.deps.Storage.(lister).List(ctx, folder+"/")
	if err != nil {
		return fmt.Errorf("day page of %s: list: %w", folder, err)
	}
	if w.hooks.dayListed != nil {
		w.hooks.dayListed()
	}
	cached, err := rdb.HGetAll(ctx, ordersKey).Result()
	if err != nil {
		return fmt.Errorf("day page of %s: %w", folder, err)
	}
	var orders []daySummary
	for _, o := range objs {
		// An order's manifest sits in a folder below the day's (the layout's order
		// folder); anything else in the day folder is not an order.
		if path.Base(o.Key) != storage.ManifestName || path.Dir(o.Key) == folder {
			continue
		}
		var s daySummary
		if raw, ok := cached[o.Key]; ok && json.Unmarshal([]byte(raw), &s) == nil {
			orders = append(orders, s)
			continue
		}
		s, ok, err := w.readSummary(ctx, o.Key)
		if err != nil {
			return err
		}
		if !ok {
			continue
		}
		if b, err := json.Marshal(s); err == nil {
			rdb.HSet(ctx, ordersKey, o.Key, b)
		}
		orders = append(orders, s)
	}
	slices.SortFunc(orders, func(a, b daySummary) int {
		return cmp.Or(cmp.Compare(a.Created, b.Created), cmp.Compare(a.OrderID, b.OrderID), cmp.Compare(a.Manifest, b.Manifest))
	})
	page, err := w.dayPage(ctx, folder, orders)
	if err != nil {
		return err
	}
	mine, err := lock.Renew(ctx)
	if err != nil {
		return fmt.Errorf("day page of %s: %w", folder, err)
	}
	if !mine {
		// The lock expired (renewals failed: Redis unreachable for a while) and another
		// worker may hold it: its newer page must not be overwritten by this one.
		return fmt.Errorf("day page of %s: lock lost during the rebuild", folder)
	}
	if err := w.putShopFloor(ctx, folder+"/"+StaffPageName, "text/html; charset=utf-8", page); err != nil {
		return err
	}
	return raiseDoneScript.Run(ctx, rdb, []string{w.dayKey(folder, "done")}, gen, dayStateTTL.Milliseconds()).Err()
}

// readSummary reads a manifest Redis has no summary of (a day older than dayStateTTL,
// a flushed Redis). ok is false for an object that is not a readable manifest: it is
// left out of the page rather than failing every completion of the day.
func (w *Worker) readSummary(ctx context.Context, key string) (daySummary, bool, error) {
	r, ok := w.deps.Storage.(objectReader)
	if !ok {
		return daySummary{}, false, nil
	}
	rc, _, err := r.Get(ctx, key)
	if errors.Is(err, storage.ErrNotFound) {
		return daySummary{}, false, nil // deleted since the listing
	}
	if err != nil {
		return daySummary{}, false, fmt.Errorf("day page: read %s: %w", key, err)
	}
	defer rc.Close()
	var m Manifest
	if err := json.NewDecoder(io.LimitReader(rc, maxManifestBytes)).Decode(&m); err != nil || m.OrderID == "" {
		w.log.WarnContext(ctx, "day page leaves out an unreadable manifest", "key", key)
		return daySummary{}, false, nil
	}
	return summarize(&m, key), true, nil
}

// pageLinker returns how a page in folder dir links to a key of the default storage:
// a relative, escaped path (hot folder, public bucket website), or a presigned URL
// when the bucket is private.
func (w *Worker) pageLinker(ctx context.Context, dir string) func(key string) (any, error) {
	if p, ok := w.deps.Storage.(presigner); ok && p.Presigns() {
		return func(key string) (any, error) {
			if key == "" {
				return "", nil
			}
			return w.link(ctx, "", key)
		}
	}
	return relLinker(dir)
}

// relLinker links by relative, escaped paths from folder dir.
func relLinker(dir string) func(key string) (any, error) {
	return func(key string) (any, error) {
		if key == "" {
			return template.URL(""), nil
		}
		// relLink escapes every segment; template.URL keeps html/template from
		// rewriting the ".." segments.
		return template.URL(relLink(dir, key)), nil
	}
}

// dayPageTmpl is the static day page; html/template escapes every string by context.
// Like the order page it shows no address, e-mail or phone.
var dayPageTmpl = template.Must(template.New("day").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Orders {{.Folder}}</title>
<style>
body{font-family:sans-serif;margin:1.5em;color:#222}
h1{margin:0 0 .2em}
.meta{color:#555;margin-bottom:1em}
.badge{display:inline-block;padding:.1em .6em;border-radius:.8em;color:#fff;font-size:.85em;margin-right:.3em}
.ok{background:#2e7d32}.rush{background:#e65100}.warnb{background:#b71c1c}
table{border-collapse:collapse;width:100%}
td,th{border-bottom:1px solid #ddd;padding:.5em;text-align:left;vertical-align:top}
.strip{display:flex;flex-wrap:wrap;gap:4px}
.strip img{width:72px;height:72px;object-fit:contain;background:#eee}
.nop{width:72px;height:72px;display:flex;align-items:center;justify-content:center;background:#eee;color:#888;font-size:.7em;text-align:center}
.order{font-size:1.3em;font-weight:bold}
.order small{font-size:.6em;font-weight:normal;color:#555}
.warn{color:#b71c1c}
ul.warn{margin:.3em 0;padding-left:1.2em}
</style></head>
<body>
<h1>Orders of {{.Folder}}</h1>
<div class="meta">{{len .Rows}} order(s) · {{.Files}} file(s) · {{.Rush}} rush · {{.Warned}} with warnings · generated {{.Generated}}</div>
<table>
<tr><th>Order</th><th>Status</th><th>Files</th><th>Previews</th><th>Warnings</th><th>Open</th></tr>
{{range .Rows}}<tr>
<td class="order">{{if .Page}}<a href="{{.Page}}">{{.S.OrderID}}</a>{{else}}{{.S.OrderID}}{{end}}<br><small>revision {{.S.Revision}}{{with .S.Created}} · ordered {{.}}{{end}}</small></td>
<td><span class="badge ok">complete</span>{{if .S.Rush}}<span class="badge rush">RUSH</span>{{end}}{{if .S.Warnings}}<span class="badge warnb">{{len .S.Warnings}} warning(s)</span>{{end}}{{with .S.OrderStatus}}<br><small>{{.}}</small>{{end}}</td>
<td>{{.S.Files}} file(s)<br>{{.S.Quantity}} item(s)</td>
<td><div class="strip">{{range .Thumbs}}<img src="{{.}}" alt="preview" onerror="this.replaceWith('no preview')">{{end}}{{if .S.NoPreview}}<div class="nop">{{.S.NoPreview}} without preview</div>{{end}}</div></td>
<td>{{if .S.Warnings}}<ul class="warn">{{range .S.Warnings}}<li>{{.}}</li>{{end}}</ul>{{else}}none{{end}}</td>
<td>{{if .Page}}<a href="{{.Page}}">Order page</a><br>{{end}}{{if .Ticket}}<a href="{{.Ticket}}">Job ticket</a><br>{{end}}<a href="{{.Manifest}}">Manifest</a></td>
</tr>
{{else}}<tr><td colspan="6">No orders yet.</td></tr>
{{end}}</table>
</body></html>
`))

type dayRow struct {
	S                      daySummary
	Page, Ticket, Manifest any
	Thumbs                 []any
}

// dayPage renders the page of the day folder over its orders.
func (w *Worker) dayPage(ctx context.Context, folder string, orders []daySummary) ([]byte, error) {
	link := w.pageLinker(ctx, folder)
	data := struct {
		Folder, Generated   string
		Files, Rush, Warned int
		Rows                []dayRow
	}{Folder: folder, Generated: time.Now().UTC().Format(time.RFC3339)}
	for _, s := range orders {
		r := dayRow{S: s}
		var err error
		if s.Page != "" {
			if r.Page, err = link(s.Page); err != nil {
				return nil, err
			}
		}
		if s.Ticket != "" {
			if r.Ticket, err = link(s.Ticket); err != nil {
				return nil, err
			}
		}
		if r.Manifest, err = link(s.Manifest); err != nil {
			return nil, err
		}
		for _, th := range s.Thumbs {
			u, err := link(th)
			if err != nil {
				return nil, err
			}
			r.Thumbs = append(r.Thumbs, u)
		}
		data.Files += s.Files
		if s.Rush {
			data.Rush++
		}
		if len(s.Warnings) > 0 {
			data.Warned++
		}
		data.Rows = append(data.Rows, r)
	}
	var buf bytes.Buffer
	if err := dayPageTmpl.Execute(&buf, data); err != nil {
		return nil, fmt.Errorf("day page: %w", err)
	}
	return buf.Bytes(), nil
}
