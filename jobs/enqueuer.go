package jobs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/hibiken/asynq"
	"github.com/redis/go-redis/v9"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/printworker/printworker/hub"
	"github.com/printworker/printworker/model"
)

// EnqueuerConfig configures an Enqueuer.
type EnqueuerConfig struct {
	// Options are the per-type task options; zero: DefaultOptions.
	Options *Options
	// KeyPrefix prefixes the order state keys; default DefaultKeyPrefix.
	KeyPrefix string
	// StateTTL is how long an order's state lives after its last change; default
	// DefaultStateTTL.
	StateTTL time.Duration
	// Retention, when set, keeps every finished task this long instead of its
	// type's own retention (TaskOptions.Retention): a finished task's record is
	// about 1 KB in Redis, and its TaskID refuses a duplicate only while it is kept.
	Retention time.Duration
	Logger    *slog.Logger
	// Propagator, when set, writes the trace context of the enqueuing ctx into each
	// task's headers (not its payload), so the task's handling joins the trace of
	// the webhook or task that started it. Nil carries nothing.
	Propagator propagation.TextMapPropagator
	// ExportShards is the number of export queue shards (ExportQueue); 0 or 1: the
	// one exports queue. Every enqueuer and worker of a fleet must use the same
	// number, or workers at least as many (docs/operations.md, "Export queue shards").
	ExportShards int
}

// Enqueuer starts work: it records order state and enqueues tasks. Intake, the
// command line and the worker itself (completion) use it. It is safe for concurrent
// use.
type Enqueuer struct {
	rdb    redis.UniversalClient
	client *asynq.Client
	insp   *asynq.Inspector
	state  *State
	opts   Options
	// keep overrides every task's retention when set (EnqueuerConfig.Retention).
	keep time.Duration
	log  *slog.Logger
	prop propagation.TextMapPropagator
	// shards is the number of export queue shards.
	shards int
}

// NewEnqueuer returns an Enqueuer over rdb; rdb stays the caller's to close.
func NewEnqueuer(rdb redis.UniversalClient, cfg EnqueuerConfig) (*Enqueuer, error) {
	opts := DefaultOptions()
	if cfg.Options != nil {
		opts = *cfg.Options
	}
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	shards := max(cfg.ExportShards, 1)
	if err := ValidateExportShards(shards); err != nil {
		return nil, err
	}
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Enqueuer{
		rdb:    rdb,
		client: asynq.NewClientFromRedisClient(rdb),
		insp:   asynq.NewInspectorFromRedisClient(rdb),
		state:  NewState(rdb, cfg.KeyPrefix, cfg.StateTTL),
		opts:   opts,
		keep:   cfg.Retention,
		log:    log,
		prop:   cfg.Propagator,
		shards: shards,
	}, nil
}

// Close releases the Enqueuer. It holds nothing of its own: the asynq client and
// inspector share the Redis client passed to NewEnqueuer, which stays the caller's
// to close (asynq refuses to close a shared connection).
func (e *Enqueuer) Close() error { return nil }

// State returns the order state the Enqueuer writes.
func (e *Enqueuer) State() *State { return e.state }

// Options returns the task options in use.
func (e *Enqueuer) Options() Options { return e.opts }

// ExportQueue is the export queue shard of order k: the one recorded in its state,
// else the lane of its store (ExportLanes) with fewer tasks waiting (on a tie, one
// by a hash of the order), which it then records, so every export of one
// generation, retried or not, enqueues into one queue and its task id refuses
// duplicates there. An order without state (expired) gets the choice unrecorded.
func (e *Enqueuer) ExportQueue(ctx context.Context, k OrderKey) (string, error) {
	lanes := ExportLanes(k.Store, e.shards)
	if len(lanes) == 1 {
		return lanes[0], nil
	}
	meta := e.state.keys(k).meta
	q, err := e.state.rdb.HGet(ctx, meta, laneField).Result()
	switch {
	case err == nil && slices.Contains(lanes, q):
		return q, nil
	case err != nil && !errors.Is(err, redis.Nil):
		return "", fmt.Errorf("export queue of %s: %w", k, err)
	}
	waiting, err := waitingTasks(ctx, e.state.rdb, lanes)
	if err != nil {
		return "", fmt.Errorf("export queue of %s: %w", k, err)
	}
	// The emptier lane; on a tie (an idle fleet) a hash of the order, so that one
	// store's orders still spread over both lanes, and both slots of a cluster.
	pick := lanes[orderHash(k)%2]
	switch {
	case waiting[0] < waiting[1]:
		pick = lanes[0]
	case waiting[1] < waiting[0]:
		pick = lanes[1]
	}
	q, err = recordLaneScript.Run(ctx, e.state.rdb, []string{meta}, pick).Text()
	if err != nil {
		return "", fmt.Errorf("export queue of %s: %w", k, err)
	}
	return q, nil
}

// laneField is the order state's meta field naming the order's export queue
// (Enqueuer.ExportQueue); a settled order drops it (settleScript).
const laneField = "lane"

// recordLaneScript records ARGV[1] as the order's export queue unless one is
// recorded already, and returns the recorded one. An order without state keeps none
// (a hash written here would have no expiry). KEYS[1]: meta.
var recordLaneScript = redis.NewScript(`
if redis.call('EXISTS', KEYS[1]) == 0 then return ARGV[1] end
redis.call('HSETNX', KEYS[1], 'lane', ARGV[1])
return redis.call('HGET', KEYS[1], 'lane')
`)

// waitingTasks counts each queue's tasks not yet running: pending, scheduled and
// retrying (deferred tasks wait as retries), read as ReadQueueStats reads them.
func waitingTasks(ctx context.Context, rdb redis.UniversalClient, queues []string) ([]int64, error) {
	reads := make([]queueReads, len(queues))
	// Each queue is one hash tag; on a cluster the pipeline splits by node.
	_, err := rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		for i, q := range queues {
			reads[i] = readQueue(ctx, p, q)
		}
		return nil
	})
	if err != nil && !errors.Is(err, redis.Nil) {
		return nil, err
	}
	out := make([]int64, len(queues))
	for i, r := range reads {
		out[i] = r.lens[0].Val() + r.cards[0].Val() + r.cards[1].Val()
	}
	return out, nil
}

// Enqueued reports one enqueue.
type Enqueued struct {
	TaskID string `json:"taskId"`
	Type   string `json:"type"`
	Queue  string `json:"queue"`
	// Duplicate is true when a task with the same identity already existed (pending,
	// running, retrying, archived, or finished within its retention): the work is
	// not enqueued twice.
	Duplicate bool `json:"duplicate"`
}

// enqueue enqueues t (TaskID id, in queue); extra options (a delay) come on top of
// the type's own.
func (e *Enqueuer) enqueue(ctx context.Context, t *asynq.Task, id, queue string, extra ...asynq.Option) (Enqueued, error) {
	t = e.withTraceContext(ctx, t, id, queue)
	// queue is where the task goes: a task built for the exports queue lands in the
	// shard its order got (ExportQueue).
	over := append([]asynq.Option{asynq.Queue(queue)}, extra...)
	if e.keep > 0 {
		over = append(over, asynq.Retention(e.keep))
	}
	info, err := e.client.EnqueueContext(ctx, t, over...)
	if errors.Is(err, asynq.ErrTaskIDConflict) {
		// The id is the work's identity: the work is already queued or done.
		e.log.DebugContext(ctx, "task already enqueued", "task_id", id, "type", t.Type())
		return Enqueued{TaskID: id, Type: t.Type(), Queue: queue, Duplicate: true}, nil
	}
	if err != nil {
		return Enqueued{}, fmt.Errorf("enqueue %s: %w", t.Type(), err)
	}
	return Enqueued{TaskID: info.ID, Type: info.Type, Queue: info.Queue}, nil
}

// withTraceContext returns t carrying ctx's trace context in its headers, or t
// itself when there is none to carry. A task's options cannot be read back, so the
// copy gets them again from the task type's options.
func (e *Enqueuer) withTraceContext(ctx context.Context, t *asynq.Task, id, queue string) *asynq.Task {
	if e.prop == nil || !trace.SpanContextFromContext(ctx).IsValid() {
		return t
	}
	c := propagation.MapCarrier{}
	e.prop.Inject(ctx, c)
	if len(c) == 0 {
		return t
	}
	o, ok := e.optionsOf(t.Type())
	if !ok || t.Type() == TypeEventPublish || t.Type() == TypeEventDeliver {
		return t
	}
	return asynq.NewTaskWithHeaders(t.Type(), t.Payload(), c, o.asynq(queue, id)...)
}

// optionsOf returns the enqueue options of a task type, false for a type the
// enqueuer does not know.
func (e *Enqueuer) optionsOf(typ string) (TaskOptions, bool) {
	switch typ {
	case TypeOrderPush:
		return e.opts.Push, true
	case TypeDesignExport:
		return e.opts.Export, true
	case TypeOrderComplete:
		return e.opts.Complete, true
	case TypeTemplatesSync:
		return e.opts.Sync, true
	case TypeGangBuild:
		return GangOptions(), true
	case TypeOrderFetch:
		return FetchOptions(), true
	case TypeReprint:
		return ReprintOptions(), true
	case TypeReview:
		return ReviewOptions(), true
	case TypeDayPage:
		return DayPageOptions(), true
	case TypeEventPublish, TypeEventDeliver:
		return EventOptions(), true
	}
	return TaskOptions{}, false
}

// PushOrder enqueues a create, update or delete of an order on the hub. For delete
// only o.OrderID and o.Domain are used. An order without customizations is not
// pushed (spec 1.3) unless it is an update, which the hub client turns into a
// delete (the order lost its customizations) or a delete.
func (e *Enqueuer) PushOrder(ctx context.Context, store, op string, o *model.Order) (Enqueued, error) {
	if o == nil {
		return Enqueued{}, errors.New("push order: no order")
	}
	if op == OpCreate && !hub.HasCustomizations(o) {
		return Enqueued{}, nil
	}
	p := OrderPush{OrderKey: OrderKey{Store: store, Domain: o.Domain, OrderID: o.OrderID}, Op: op, Order: o}
	t, err := NewOrderPushTask(p, e.opts.Push)
	if err != nil {
		return Enqueued{}, err
	}
	body, _ := json.Marshal(o)
	if op == OpDelete {
		body = nil
	}
	id := PushTaskID(p.OrderKey, op, body)
	if q, err := e.pushInLanes(ctx, p.OrderKey, id); err != nil || q != "" {
		if err != nil {
			return Enqueued{}, err
		}
		return Enqueued{TaskID: id, Type: t.Type(), Queue: q, Duplicate: true}, nil
	}
	queue, err := e.pushQueue(ctx, p.OrderKey)
	if err != nil {
		return Enqueued{}, err
	}
	return e.enqueue(ctx, t, id, queue)
}

// pushInLanes returns the lane of the order's store that already holds push id
// (waiting, running, or finished within its retention), "" when none does or the
// fleet has no export shards. A task id refuses a duplicate only within its queue,
// and an order's first push goes to a lane chosen before the order's lane is recorded
// (its exports record theirs, maybe the other lane): without this look, the same
// webhook delivered again after the exports were enqueued would push twice.
func (e *Enqueuer) pushInLanes(ctx context.Context, k OrderKey, id string) (string, error) {
	if e.shards <= 1 {
		return "", nil
	}
	lanes := ExportLanes(k.Store, e.shards)
	cmds := make([]*redis.IntCmd, len(lanes))
	_, err := e.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		for i, q := range lanes {
			cmds[i] = p.Exists(ctx, asynqKey(q, "t:"+id))
		}
		return nil
	})
	if err != nil {
		return "", fmt.Errorf("push of %s: %w", k, err)
	}
	for i, c := range cmds {
		if c.Val() > 0 {
			return lanes[i], nil
		}
	}
	return "", nil
}

// pushQueue is where an order's pushes go: the orders queue, or with export queue
// shards the order's export queue (ExportQueue). A push waits for its store's hub
// rate limit like an export; in the one orders queue a flooding store's pushes stood
// before every other store's pushes, and the workers' fetches, weighted to the orders
// queue, went mostly to them. In the store's lane they wait behind that store's work
// only, and come before the order's exports (first in, first out). A push enqueued
// again finds itself in either lane first (pushInLanes).
func (e *Enqueuer) pushQueue(ctx context.Context, k OrderKey) (string, error) {
	if e.shards <= 1 {
		return QueueOrders, nil
	}
	return e.ExportQueue(ctx, k)
}

// ExportResult reports what ExportOrder, ReExport or CancelOrder did.
type ExportResult struct {
	Order OrderKey `json:"order"`
	Rev   int64    `json:"rev"`
	Gen   int64    `json:"gen"`
	// Skipped: the order has no personalized line items; nothing to export.
	Skipped bool `json:"skipped,omitempty"`
	// Changed: a new revision was recorded.
	Changed bool `json:"changed"`
	// Cancelled: the order is cancelled; nothing was enqueued (or, for CancelOrder,
	// the number of pending tasks removed is in Removed).
	Cancelled bool       `json:"cancelled,omitempty"`
	Tasks     []Enqueued `json:"tasks,omitempty"`
	Removed   int        `json:"removed,omitempty"`
}

// ExportOrder produces the print files of an order: it records the order's revision
// and expected designs, then enqueues one design export per design not exported yet
// (deduplicated by order, design and generation), or the order's completion when
// every design is already exported (an update that changed only order data rewrites
// the manifest). Calling it again with the same order enqueues nothing new, so a
// webhook delivered twice, or an intake retried after a crash between the state write
// and the enqueue, is safe.
func (e *Enqueuer) ExportOrder(ctx context.Context, store string, o *model.Order) (ExportResult, error) {
	if o == nil {
		return ExportResult{}, errors.New("export order: no order")
	}
	k := OrderKey{Store: store, Domain: o.Domain, OrderID: o.OrderID}
	if err := k.validate(); err != nil {
		return ExportResult{}, fmt.Errorf("export order: %w", err)
	}
	res := ExportResult{Order: k}
	refs, qty := refsOf(o)
	if len(refs) == 0 {
		res.Skipped = true
		return res, nil
	}
	b, err := e.state.Begin(ctx, k, o, refs)
	if err != nil {
		return res, err
	}
	res.Rev, res.Gen, res.Changed, res.Cancelled = b.Rev, b.Gen, b.Changed, b.Cancelled
	if b.Cancelled {
		e.log.InfoContext(ctx, "export of a cancelled order refused", "order", k.String())
		return res, nil
	}
	return e.enqueueExports(ctx, res, b.Pending, qty)
}

func (e *Enqueuer) enqueueExports(ctx context.Context, res ExportResult, pending []string, qty map[string]int) (ExportResult, error) {
	if len(pending) == 0 {
		done, err := e.Complete(ctx, res.Order, res.Rev)
		if err != nil {
			return res, err
		}
		res.Tasks = append(res.Tasks, done)
		return res, nil
	}
	queue, err := e.ExportQueue(ctx, res.Order)
	if err != nil {
		return res, err
	}
	var errs []error
	for _, ref := range pending {
		t, err := NewDesignExportTask(DesignExport{OrderKey: res.Order, Ref: ref, Quantity: qty[ref], Gen: res.Gen}, e.opts.Export)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		q, err := e.enqueue(ctx, t, ExportTaskID(res.Order, ref, res.Gen), queue)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		res.Tasks = append(res.Tasks, q)
	}
	return res, errors.Join(errs...)
}

// Complete enqueues the completion (manifest) of an order revision; the worker calls
// it when the last design is done. Duplicates collapse on the task id.
func (e *Enqueuer) Complete(ctx context.Context, k OrderKey, rev int64) (Enqueued, error) {
	t, err := NewOrderCompleteTask(OrderComplete{OrderKey: k, Rev: rev}, e.opts.Complete)
	if err != nil {
		return Enqueued{}, err
	}
	return e.enqueue(ctx, t, CompleteTaskID(k, rev), QueueComplete)
}

// ReExport is the operator's explicit path past deduplication: it starts a new export
// generation of the order's designs (refs, or all when empty), so new tasks with new
// ids run even where earlier ones finished or were archived, and the manifest is
// rewritten. It also lifts a cancellation.
func (e *Enqueuer) ReExport(ctx context.Context, k OrderKey, refs ...string) (ExportResult, error) {
	if err := k.validate(); err != nil {
		return ExportResult{}, fmt.Errorf("re-export: %w", err)
	}
	rev, gen, pending, err := e.state.ReExport(ctx, k, refs)
	if err != nil {
		return ExportResult{Order: k}, err
	}
	res := ExportResult{Order: k, Rev: rev, Gen: gen, Changed: true}
	snap, err := e.state.Snapshot(ctx, k)
	if err != nil {
		return res, err
	}
	qty := map[string]int{}
	if snap.Order != nil {
		_, qty = refsOf(snap.Order)
	}
	return e.enqueueExports(ctx, res, pending, qty)
}

// CancelOrder stops an order's exports: it marks the order cancelled (a running
// export stops before its next view, a later ExportOrder is refused, no manifest is
// written) and deletes the order's export tasks still waiting (pending, scheduled or
// retrying). Files already stored stay where they are.
func (e *Enqueuer) CancelOrder(ctx context.Context, k OrderKey) (ExportResult, error) {
	if err := k.validate(); err != nil {
		return ExportResult{}, fmt.Errorf("cancel: %w", err)
	}
	gen, refs, err := e.state.Cancel(ctx, k)
	if err != nil {
		return ExportResult{Order: k}, err
	}
	res := ExportResult{Order: k, Gen: gen, Cancelled: true}
	e.publishCancelled(ctx, k, gen)
	var errs []error
	// Tasks enqueued with another shard count wait in another shard; they are not
	// deleted, but find the order cancelled when they run. Both lanes of the store:
	// the generation before may have gone to the other.
	for _, ref := range refs {
		// The current generation's tasks, and the previous one's: a re-export may have
		// started while tasks of the generation before still waited.
		for g := gen; g >= 0 && g >= gen-1; g-- {
			for _, queue := range ExportLanes(k.Store, e.shards) {
				err := e.insp.DeleteTask(queue, ExportTaskID(k, ref, g))
				switch {
				case err == nil:
					res.Removed++
				case errors.Is(err, asynq.ErrTaskNotFound), errors.Is(err, asynq.ErrQueueNotFound):
				default:
					// Active (or otherwise not deletable) tasks check the flag themselves.
					e.log.DebugContext(ctx, "export task not deleted", "order", k.String(), "ref", ref, "err", err)
				}
			}
		}
	}
	if err := ctx.Err(); err != nil {
		errs = append(errs, err)
	}
	return res, errors.Join(errs...)
}

// SyncTemplates reads the template JSON files of dir (see LoadTemplates) and enqueues
// a sync of the store's hub templates with them.
func (e *Enqueuer) SyncTemplates(ctx context.Context, store, dir string, prune, dryRun bool) (Enqueued, error) {
	ts, err := LoadTemplates(dir)
	if err != nil {
		return Enqueued{}, err
	}
	p := TemplatesSync{V: PayloadVersion, Store: store, Templates: ts, Prune: prune, DryRun: dryRun, Source: dir}
	t, err := NewTemplatesSyncTask(p, e.opts.Sync)
	if err != nil {
		return Enqueued{}, err
	}
	return e.enqueue(ctx, t, SyncTaskID(p), QueueSync)
}

// LoadTemplates reads every *.json file of dir as one template (spec 2.5), sorted by
// file name. Each must carry a productId (the key the hub updates by), unique in the
// folder; every problem is reported at once.
func LoadTemplates(dir string) ([]model.Template, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		return nil, fmt.Errorf("templates %s: %w", dir, err)
	}
	if _, err := os.Stat(dir); err != nil {
		return nil, fmt.Errorf("templates: %w", err)
	}
	sort.Strings(paths)
	var out []model.Template
	var errs []error
	seen := map[string]string{}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		var t model.Template
		if err := json.Unmarshal(b, &t); err != nil {
			errs = append(errs, fmt.Errorf("template %s: %w", p, err))
			continue
		}
		id := strings.TrimSpace(t.ProductID)
		switch {
		case id == "":
			errs = append(errs, fmt.Errorf("template %s: productId is empty", p))
			continue
		case seen[id] != "":
			errs = append(errs, fmt.Errorf("template %s: productId %q also in %s", p, id, seen[id]))
			continue
		}
		seen[id] = p
		out = append(out, t)
	}
	return out, errors.Join(errs...)
}
