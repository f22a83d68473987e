package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/printworker/printworker/hub"
	"github.com/printworker/printworker/internal/progress"
	"github.com/printworker/printworker/jobs"
	"github.com/printworker/printworker/model"
)

const enqueueHelp = `Usage: printworker enqueue <action> [flags]

Puts work on the queue for the workers, the way the intake does for webhooks.

Actions:
  export    export designs of an order: --store --domain --order --ref <id>.<token> [--ref ...]
  order     push orders from hub-shaped JSON files (spec 2.1): --store --file f.json [--file ...]
            [--op create|update|delete] [--export]
  reexport  export an order again past deduplication: --store --domain --order [--ref ...]
  cancel    stop an order's pending exports: --store --domain --order
  reprint   write an order's stored files again under reprint names: --store --domain --order
            [--line N] [--view V] [--copies K] [--date yyyy-mm-dd]

Run 'printworker enqueue <action> --help' for its flags.
`

func enqueueCommand() command {
	return command{
		name:    "enqueue",
		summary: "enqueue an export, an order push, a re-export, a cancel or a reprint",
		run: func(ctx context.Context, e env, args []string) error {
			return subcommand(ctx, e, "enqueue", args, map[string]func(context.Context, env, []string) error{
				"export":   enqueueExport,
				"order":    enqueueOrder,
				"reexport": enqueueReExport,
				"cancel":   enqueueCancel,
				"reprint":  enqueueReprint,
			}, enqueueHelp)
		},
	}
}

// orderKeyFlags are the flags naming one order.
type orderKeyFlags struct{ store, domain, order string }

func (k *orderKeyFlags) add(fs *flag.FlagSet) {
	fs.StringVar(&k.store, "store", "", "hub store id")
	fs.StringVar(&k.domain, "domain", "", "order domain (as configured on the hub)")
	fs.StringVar(&k.order, "order", "", "order id in the store")
}

// parse parses the command's flags and returns the order they name; asking for help
// returns flag.ErrHelp (for helpOK).
func (k *orderKeyFlags) parse(fs *flag.FlagSet, e env, args []string) (jobs.OrderKey, error) {
	if err := parseFlags(fs, e, args); err != nil {
		return jobs.OrderKey{}, err
	}
	return k.key()
}

func (k *orderKeyFlags) key() (jobs.OrderKey, error) {
	var missing []string
	for _, f := range []struct{ name, v string }{{"--store", k.store}, {"--order", k.order}, {"--domain", k.domain}} {
		if strings.TrimSpace(f.v) == "" {
			missing = append(missing, f.name)
		}
	}
	if len(missing) > 0 {
		return jobs.OrderKey{}, usageError(strings.Join(missing, ", ") + " required")
	}
	return jobs.OrderKey{Store: k.store, Domain: k.domain, OrderID: k.order}, nil
}

func enqueueExport(ctx context.Context, e env, args []string) error {
	fs := newFlagSet(e, "enqueue export", "enqueue export --store S --domain D --order O --ref <id>.<token> [--ref ...] [--quantity N]\n\nRecords the order with these designs and enqueues one export per design; the\nmanifest is written when all are done.")
	var k orderKeyFlags
	k.add(fs)
	var refs stringList
	fs.Var(&refs, "ref", "design reference <designId>.<designToken>, repeatable")
	qty := fs.Int("quantity", 1, "quantity of each design (manifest and metadata)")
	rf := addRedisFlags(fs)
	key, err := k.parse(fs, e, args)
	if err != nil {
		return helpOK(err)
	}
	if len(refs) == 0 {
		return usageError("--ref required")
	}
	o := &model.Order{OrderID: key.OrderID, Domain: key.Domain, LineItems: []model.LineItem{}}
	for _, r := range refs {
		ref, err := model.ParseDesignRef(r)
		if err != nil {
			return usageError(err.Error())
		}
		o.LineItems = append(o.LineItems, model.LineItem{ID: ref.ID, Token: ref.Token, Quantity: *qty})
	}
	return runExport(ctx, e, rf, "export", func(enq *jobs.Enqueuer) (jobs.ExportResult, error) {
		return enq.ExportOrder(ctx, key.Store, o)
	})
}

func enqueueOrder(ctx context.Context, e env, args []string) error {
	fs := newFlagSet(e, "enqueue order", "enqueue order --store S --file order.json [--file ...] [--op create|update|delete] [--export]\n\nEach file holds one hub order (spec 2.1); it is validated before anything is enqueued.")
	store := fs.String("store", "", "hub store id")
	var files stringList
	fs.Var(&files, "file", "order JSON file, repeatable")
	op := fs.String("op", jobs.OpUpdate, "push operation: create, update (creates when unknown) or delete")
	export := fs.Bool("export", false, "also export the order's designs")
	rf := addRedisFlags(fs)
	if err := parseFlags(fs, e, args); err != nil {
		return helpOK(err)
	}
	if *store == "" || len(files) == 0 {
		return usageError("--store and --file required")
	}
	switch *op {
	case jobs.OpCreate, jobs.OpUpdate, jobs.OpDelete:
	default:
		return usageError(fmt.Sprintf("--op %q: want create, update or delete", *op))
	}
	// Read and check every file before enqueuing any, so a batch is all or nothing
	// as far as its inputs go.
	orders := make([]*model.Order, 0, len(files))
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		var o model.Order
		if err := json.Unmarshal(b, &o); err != nil {
			return fmt.Errorf("%s: %w", f, err)
		}
		if *op == jobs.OpDelete {
			if strings.TrimSpace(o.OrderID) == "" {
				return fmt.Errorf("%s: orderId is empty", f)
			}
		} else if err := hub.ValidateOrder(&o, nil); err != nil {
			return fmt.Errorf("%s: %w", f, err)
		}
		orders = append(orders, &o)
	}
	enq, closeFn, err := rf.enqueuer(ctx, cliLogger(e))
	if err != nil {
		return err
	}
	defer closeFn()
	var bar *progress.Bar
	if len(orders) > 1 {
		bar = progress.New(e.stderr, "orders", len(orders))
	}
	for i, o := range orders {
		q, err := enq.PushOrder(ctx, *store, *op, o)
		if err != nil {
			return fmt.Errorf("%s: push: %w", files[i], err)
		}
		if q.TaskID == "" {
			fmt.Fprintf(e.stdout, "%s: order %s has no customizations; not pushed\n", files[i], o.OrderID)
		} else {
			printEnqueued(e, q)
		}
		if *export && *op != jobs.OpDelete {
			res, err := enq.ExportOrder(ctx, *store, o)
			if err != nil {
				return fmt.Errorf("%s: export: %w", files[i], err)
			}
			printExportResult(e, res)
		}
		if bar != nil {
			bar.Add(1)
		}
	}
	if bar != nil {
		bar.Finish()
	}
	return nil
}

func enqueueReExport(ctx context.Context, e env, args []string) error {
	fs := newFlagSet(e, "enqueue reexport", "enqueue reexport --store S --domain D --order O [--ref <id>.<token> ...]\n\nStarts a new export generation of a known order (all designs, or those given), even\nwhere earlier exports finished or failed; the manifest is rewritten. Lifts a cancel.")
	var k orderKeyFlags
	k.add(fs)
	var refs stringList
	fs.Var(&refs, "ref", "design reference to re-export, repeatable (default: all of the order's)")
	rf := addRedisFlags(fs)
	key, err := k.parse(fs, e, args)
	if err != nil {
		return helpOK(err)
	}
	for _, r := range refs {
		if _, err := model.ParseDesignRef(r); err != nil {
			return usageError(err.Error())
		}
	}
	return runExport(ctx, e, rf, "reexport", func(enq *jobs.Enqueuer) (jobs.ExportResult, error) {
		return enq.ReExport(ctx, key, refs...)
	})
}

func enqueueCancel(ctx context.Context, e env, args []string) error {
	fs := newFlagSet(e, "enqueue cancel", "enqueue cancel --store S --domain D --order O\n\nMarks the order cancelled and removes its waiting export tasks; stored files stay.")
	var k orderKeyFlags
	k.add(fs)
	rf := addRedisFlags(fs)
	key, err := k.parse(fs, e, args)
	if err != nil {
		return helpOK(err)
	}
	enq, closeFn, err := rf.enqueuer(ctx, cliLogger(e))
	if err != nil {
		return err
	}
	defer closeFn()
	res, err := enq.CancelOrder(ctx, key)
	if err != nil {
		return fmt.Errorf("enqueue cancel: %w", err)
	}
	fmt.Fprintf(e.stdout, "order %s cancelled; %d waiting export tasks removed\n", res.Order, res.Removed)
	return nil
}

func enqueueReprint(ctx context.Context, e env, args []string) error {
	fs := newFlagSet(e, "enqueue reprint", "enqueue reprint --store S --domain D --order O [--line N] [--view V] [--copies K] [--date yyyy-mm-dd]\n\nWrites an order's files (all, one line's, one view's) again, copied from its order\nfolder, under reprint names beside their originals (in the machine folder a routing\nrule sent them to), never over a file; the order folder gets a job ticket marked\nREPRINT and the manifest a record (docs/operations.md#reprint-files).")
	var k orderKeyFlags
	k.add(fs)
	line := fs.Int("line", 0, "order line to reprint, from 1 (default: every line)")
	view := fs.String("view", "", "view id or name to reprint (default: every view)")
	copies := fs.Int("copies", 1, "copies of each file")
	date := fs.String("date", "", "the order's date folder, yyyy-mm-dd (default: from the order's state; needed once it expired)")
	rf := addRedisFlags(fs)
	key, err := k.parse(fs, e, args)
	if err != nil {
		return helpOK(err)
	}
	switch {
	case *line < 0:
		return usageError("--line: want 1 or more")
	case *copies < 1 || *copies > jobs.MaxCopies:
		return usageError(fmt.Sprintf("--copies: want 1 to %d", jobs.MaxCopies))
	}
	enq, closeFn, err := rf.enqueuer(ctx, cliLogger(e))
	if err != nil {
		return err
	}
	defer closeFn()
	q, n, err := enq.Reprint(ctx, jobs.Reprint{OrderKey: key, Date: *date, Line: *line, View: *view, Copies: *copies})
	if err != nil {
		return fmt.Errorf("enqueue reprint: %w", err)
	}
	fmt.Fprintf(e.stdout, "order %s reprint %d\n", key.OrderID, n)
	printEnqueued(e, q)
	return nil
}

func printEnqueued(e env, q jobs.Enqueued) {
	state := "enqueued"
	if q.Duplicate {
		state = "already queued or done"
	}
	fmt.Fprintf(e.stdout, "%-15s %-8s %s (%s)\n", q.Type, q.Queue, q.TaskID, state)
}

// runExport connects to Redis, runs one export-starting call of the Enqueuer and
// prints what it enqueued.
func runExport(ctx context.Context, e env, rf *redisFlags, what string, do func(*jobs.Enqueuer) (jobs.ExportResult, error)) error {
	enq, closeFn, err := rf.enqueuer(ctx, cliLogger(e))
	if err != nil {
		return err
	}
	defer closeFn()
	res, err := do(enq)
	if err != nil {
		return fmt.Errorf("enqueue %s: %w", what, err)
	}
	printExportResult(e, res)
	return nil
}

func printExportResult(e env, res jobs.ExportResult) {
	switch {
	case res.Skipped:
		fmt.Fprintf(e.stdout, "order %s has no valid design reference; nothing to export\n", res.Order)
		return
	case res.Cancelled && len(res.Tasks) == 0:
		fmt.Fprintf(e.stdout, "order %s is cancelled; nothing enqueued (reexport lifts the cancel)\n", res.Order)
		return
	}
	fmt.Fprintf(e.stdout, "order %s revision %d generation %d\n", res.Order, res.Rev, res.Gen)
	for _, q := range res.Tasks {
		printEnqueued(e, q)
	}
}
