package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/printworker/printworker/jobs"
	"github.com/printworker/printworker/profiles"
	"github.com/printworker/printworker/storage"
	"github.com/printworker/printworker/worker"
)

// Review holds (docs/shop-floor.md "Review holds"): the policy flags of `work`, and
// the operator's `review` command. The review manifests in storage are the truth:
// list reads them, release and reject read the held revision there and enqueue one
// task per revision for the workers, which move the files.

const reviewHelp = `Usage: printworker review <action> [flags]

Orders whose preflight findings the review policy (--review-hold of work) names are
held under review/ in storage: no machine folder copy, no files-ready event.

Actions:
  list     list held orders (and with --all, rejected and superseded ones) from storage
  release  move a held order's stored files into place and finish it (nothing is
           rendered again): --store --domain --order [--date yyyy-mm-dd]
  reject   mark a held order rejected; its files stay under review/ until a re-export:
           --store --domain --order [--date yyyy-mm-dd] [--reason text]

Run 'printworker review <action> --help' for its flags.
`

func reviewCommand() command {
	return command{
		name:    "review",
		summary: "list, release or reject orders held for review",
		run: func(ctx context.Context, e env, args []string) error {
			return subcommand(ctx, e, "review", args, map[string]func(context.Context, env, []string) error{
				"list": reviewList,
				"release": func(ctx context.Context, e env, args []string) error {
					return reviewAct(ctx, e, jobs.ReviewRelease, args)
				},
				"reject": func(ctx context.Context, e env, args []string) error {
					return reviewAct(ctx, e, jobs.ReviewReject, args)
				},
			}, reviewHelp)
		},
	}
}

// reviewFlags are the review policy flags of work.
type reviewFlags struct {
	hold      string
	stores    storeReviewFlag
	preflight bool
	pfMax     byteSize
}

func addReviewFlags(fs *flag.FlagSet) *reviewFlags {
	r := &reviewFlags{}
	fs.StringVar(&r.hold, "review-hold", strings.Join(profiles.DefaultReview, ","), "preflight findings that hold an order for review (printworker review): "+
		strings.Join(profiles.ReviewKinds, ", ")+", comma separated; none: hold nothing; a production profile's \"review\" decides for its files")
	fs.Var(&r.stores, "store-review-hold", "store=findings, repeatable (several: store=a,b;other=none): the review hold of one store")
	fs.BoolVar(&r.preflight, "preflight", true, "preflight every file rendered with a production profile with its check profile (docs/preflight.md): report beside the file, verdict in the manifest, preflight-error holds by --review-hold")
	r.pfMax = byteSize(worker.DefaultPreflightMax)
	fs.Var(&r.pfMax, "preflight-max-bytes", "largest file the worker preflights (its bytes are held in memory while it is stored)")
	return r
}

// preflightConfig is the worker's preflight setting.
func (r *reviewFlags) preflightConfig() (worker.Preflight, error) {
	if r.pfMax <= 0 {
		return worker.Preflight{}, usageError("--preflight-max-bytes: want a positive size")
	}
	return worker.Preflight{Off: !r.preflight, MaxBytes: int64(r.pfMax)}, nil
}

func (r *reviewFlags) config() (worker.ReviewPolicy, error) {
	var errs []error
	hold, err := profiles.ParseReview(strings.Split(r.hold, ","))
	if err != nil {
		errs = append(errs, usageError("--review-hold: "+err.Error()))
	}
	p := worker.ReviewPolicy{Hold: hold}
	for store, v := range r.stores {
		l, err := profiles.ParseReview(strings.Split(v, ","))
		if err != nil {
			errs = append(errs, usageError(fmt.Sprintf("--store-review-hold %s: %v", store, err)))
			continue
		}
		if p.Stores == nil {
			p.Stores = map[string][]string{}
		}
		p.Stores[store] = l
	}
	return p, errors.Join(errs...)
}

// storeReviewFlag is store -> finding list; one value may name several stores,
// separated by ";" (the lists themselves hold commas), so the environment variable
// can carry them all.
type storeReviewFlag map[string]string

func (m *storeReviewFlag) String() string {
	if m == nil || len(*m) == 0 {
		return ""
	}
	var parts []string
	for k, v := range *m {
		parts = append(parts, k+"="+v)
	}
	slices.Sort(parts)
	return strings.Join(parts, ";")
}

func (m *storeReviewFlag) Set(v string) error {
	if *m == nil {
		*m = storeReviewFlag{}
	}
	for _, p := range strings.Split(v, ";") {
		if p = strings.TrimSpace(p); p == "" {
			continue
		}
		k, val, ok := strings.Cut(p, "=")
		if !ok || strings.TrimSpace(k) == "" || strings.TrimSpace(val) == "" {
			return fmt.Errorf("%q: want store=findings", p)
		}
		if _, err := profiles.ParseReview(strings.Split(val, ",")); err != nil {
			return err
		}
		(*m)[strings.TrimSpace(k)] = strings.TrimSpace(val)
	}
	return nil
}

// heldOrder is one review manifest found in storage.
type heldOrder struct {
	Key string
	M   worker.Manifest
}

// readReview reads the review manifest at key; nil when there is none.
func readReview(ctx context.Context, st storageBackend, key string) (*worker.Manifest, error) {
	g, ok := st.(interface {
		Get(ctx context.Context, key string) (io.ReadCloser, storage.Info, error)
	})
	if !ok {
		return nil, errors.New("the storage cannot read objects back")
	}
	rc, _, err := g.Get(ctx, key)
	if errors.Is(err, storage.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	var m worker.Manifest
	if err := json.NewDecoder(io.LimitReader(rc, 64<<20)).Decode(&m); err != nil {
		return nil, fmt.Errorf("%s: %w", key, err)
	}
	if m.Review == nil {
		return nil, fmt.Errorf("%s is no review manifest", key)
	}
	return &m, nil
}

func reviewList(ctx context.Context, e env, args []string) error {
	fs := newFlagSet(e, "review list", "review list [--store S] [--all]\n\nLists the orders held for review, read from the review manifests in storage\n(review/<manifest key>), with the findings that hold them and the command that\nreleases each.")
	sf := addStorageFlags(fs)
	store := fs.String("store", "", "only this hub store's orders")
	all := fs.Bool("all", false, "also rejected and superseded orders")
	if err := parseFlags(fs, e, args); err != nil {
		return helpOK(err)
	}
	st, err := sf.open(ctx)
	if err != nil {
		return err
	}
	defer closeStorage(st)
	l, ok := st.(interface {
		List(ctx context.Context, prefix string) ([]storage.Info, error)
	})
	if !ok {
		return errors.New("the storage cannot list objects")
	}
	infos, err := l.List(ctx, worker.ReviewPrefix)
	if err != nil {
		return fmt.Errorf("list %s: %w", worker.ReviewPrefix, err)
	}
	var held []heldOrder
	for _, in := range infos {
		if path.Base(in.Key) != storage.ManifestName {
			continue
		}
		m, err := readReview(ctx, st, in.Key)
		if err != nil || m == nil {
			fmt.Fprintf(e.stderr, "printworker: review list: %s: %v\n", in.Key, err)
			continue
		}
		if *store != "" && m.Store != *store || !*all && m.Review.Status != worker.ReviewHeld {
			continue
		}
		held = append(held, heldOrder{in.Key, *m})
	}
	printHeld(e.stdout, held)
	return nil
}

// printHeld writes one block per order: its identity and status, each finding, and
// the command that releases it.
func printHeld(w io.Writer, held []heldOrder) {
	if len(held) == 0 {
		fmt.Fprintln(w, "no order held for review")
		return
	}
	for _, h := range held {
		m, r := h.M, h.M.Review
		fmt.Fprintf(w, "%s  order %s  store %s  domain %s  date %s  revision %d  held %s\n", r.Status, m.OrderID, m.Store, m.Domain, r.Date, m.Revision, r.HeldAt)
		fmt.Fprintf(w, "  manifest %s\n", h.Key)
		for _, f := range r.Findings {
			fmt.Fprintf(w, "  %s: %s: %s\n", path.Base(f.Key), f.Code, oneLineString(f.Message))
		}
		if r.Reason != "" {
			fmt.Fprintf(w, "  reason: %s\n", oneLineString(r.Reason))
		}
		if r.Status == worker.ReviewHeld {
			fmt.Fprintf(w, "  %s\n", worker.ReviewCommands(&m)[0])
		}
	}
}

// reviewAct enqueues a release or rejection of the revision held in storage.
func reviewAct(ctx context.Context, e env, action string, args []string) error {
	what := "Moves the held order's stored files to their final keys, makes its machine folder\ncopies, writes its job ticket, staff page and manifest, lists it on its day page\nand sends files-ready; nothing is rendered again."
	if action == jobs.ReviewReject {
		what = "Marks the held order rejected: no files-ready event, no machine copy; its files\nstay under review/ (a re-export after the fix makes new ones)."
	}
	fs := newFlagSet(e, "review "+action, "review "+action+" --store S --domain D --order O [--date yyyy-mm-dd]"+
		map[bool]string{true: " [--reason text]"}[action == jobs.ReviewReject]+"\n\n"+what+" A worker does it;\nthe revision's one release or reject is queued once, whoever asks.")
	var k orderKeyFlags
	k.add(fs)
	date := fs.String("date", "", "the order's date folder, yyyy-mm-dd, as review list shows it (default: from the order's state)")
	var reason *string
	if action == jobs.ReviewReject {
		reason = fs.String("reason", "", "why the order is rejected (kept in its review manifest)")
	}
	rf := addRedisFlags(fs)
	sf := addStorageFlags(fs)
	key, err := k.parse(fs, e, args)
	if err != nil {
		return helpOK(err)
	}
	if *date != "" {
		if _, err := time.Parse(time.DateOnly, *date); err != nil {
			return usageError(fmt.Sprintf("--date %q: want yyyy-mm-dd", *date))
		}
	}
	enq, closeFn, err := rf.enqueuer(ctx, cliLogger(e))
	if err != nil {
		return err
	}
	defer closeFn()
	if *date == "" {
		snap, err := enq.State().Snapshot(ctx, key)
		if err != nil {
			return err
		}
		if !snap.Exists || snap.Date == "" {
			return usageError(fmt.Sprintf("order %s has no state any more: give --date (printworker review list shows it)", key.OrderID))
		}
		*date = snap.Date
	}
	day, _ := time.Parse(time.DateOnly, *date)
	mkey, err := (storage.Layout{Pattern: sf.layout}).ManifestKey(storage.KeyVars{Store: key.Store, Domain: key.Domain, Order: key.OrderID, Date: day})
	if err != nil {
		return usageError("--storage-layout: " + err.Error())
	}
	st, err := sf.open(ctx)
	if err != nil {
		return err
	}
	defer closeStorage(st)
	rkey := worker.ReviewPrefix + mkey
	m, err := readReview(ctx, st, rkey)
	if err != nil {
		return err
	}
	if m == nil {
		return fmt.Errorf("order %s: no review manifest at %s (printworker review list)", key.OrderID, rkey)
	}
	if m.Review.Status != worker.ReviewHeld {
		return fmt.Errorf("order %s revision %d is %s, not held", key.OrderID, m.Revision, m.Review.Status)
	}
	p := jobs.Review{OrderKey: key, Date: *date, Rev: m.Revision, Action: action}
	if reason != nil {
		p.Reason = *reason
	}
	q, err := enq.Review(ctx, p)
	if err != nil {
		return fmt.Errorf("review %s: %w", action, err)
	}
	if q.Duplicate {
		fmt.Fprintf(e.stdout, "order %s revision %d: a release or reject is already queued or done (printworker review list)\n", key.OrderID, m.Revision)
		return nil
	}
	fmt.Fprintf(e.stdout, "order %s revision %d %s\n", key.OrderID, m.Revision, action)
	printEnqueued(e, q)
	return nil
}
