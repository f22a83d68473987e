// Package jobs defines printworker's asynq task types, their versioned JSON payloads,
// the options each is enqueued with, the per-order export state kept in Redis, and the
// Enqueuer that intake and the command line use to start work.
//
// Every task's TaskID is derived from the business identity of the work (store,
// domain, order, design, export generation), so a webhook delivered twice, or an
// intake that retries after a crash, enqueues the work once: asynq answers
// ErrTaskIDConflict, which the Enqueuer counts as success.
package jobs

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/hibiken/asynq"

	"github.com/printworker/printworker/model"
)

// Task types, named domain:action.
const (
	TypeOrderPush     = "order:push"
	TypeDesignExport  = "design:export"
	TypeOrderComplete = "order:complete"
	TypeTemplatesSync = "templates:sync"
)

// Queues. The worker weighs them orders > exports > sync: order data keeps the hub
// equal to the store and is cheap, exports are the bulk, template sync is rare.
const (
	QueueOrders  = "orders"
	QueueExports = "exports"
	QueueSync    = "sync"
)

// QueueComplete is the queue of order completions (manifests), a queue of its own. A
// manifest follows its own order's last export, not the whole export backlog behind
// it (FIFO in the exports queue, it waited for every export enqueued before it), nor
// another store's pushes: in the orders queue it waited behind a flooding store's
// pushes, which wait for that store's hub rate limit. A completion is as small as a
// push (one Redis read, one small object) and needs no hub call.
const QueueComplete = "complete"

// PayloadVersion is the version every payload is written with. A worker that meets
// a version it does not know ends the task (SkipRetry) rather than guessing.
const PayloadVersion = 1

// ErrPayload marks a payload that cannot be decoded or has an unknown version. It
// wraps asynq.SkipRetry: retrying the same bytes cannot succeed.
var ErrPayload = fmt.Errorf("bad task payload: %w", asynq.SkipRetry)

// Order push operations.
const (
	OpCreate = "create"
	OpUpdate = "update"
	OpDelete = "delete"
)

// OrderKey is the identity of an order (spec 2.1): store, domain and order id.
type OrderKey struct {
	Store   string `json:"store"`
	Domain  string `json:"domain"`
	OrderID string `json:"orderId"`
}

func (k OrderKey) validate() error {
	var errs []error
	if k.Store == "" {
		errs = append(errs, errors.New("store is empty"))
	}
	if k.OrderID == "" {
		errs = append(errs, errors.New("order id is empty"))
	}
	return errors.Join(errs...)
}

// String is "store/domain/order", each part escaped so the form is unambiguous.
func (k OrderKey) String() string {
	return url.PathEscape(k.Store) + "/" + url.PathEscape(k.Domain) + "/" + url.PathEscape(k.OrderID)
}

// OrderPush creates, updates or deletes one order on the hub.
type OrderPush struct {
	V int `json:"v"`
	OrderKey
	Op string `json:"op"`
	// Order is the full order for create and update; nil for delete.
	Order *model.Order `json:"order,omitempty"`
}

// DesignExport exports every view of one design of one order.
type DesignExport struct {
	V int `json:"v"`
	OrderKey
	// Ref is the design reference "<id>.<token>".
	Ref string `json:"ref"`
	// Quantity is the total ordered of this design across the order's lines, for
	// object metadata; the manifest reads quantities from the order itself.
	Quantity int `json:"quantity"`
	// Gen is the order's export generation: 0 at first, raised by a re-export. A task
	// of an older generation than the order's is superseded and does nothing.
	Gen int64 `json:"gen"`
}

// DesignRef parses Ref.
func (p DesignExport) DesignRef() (model.DesignRef, error) { return model.ParseDesignRef(p.Ref) }

// OrderComplete writes the manifest of one order revision.
type OrderComplete struct {
	V int `json:"v"`
	OrderKey
	// Rev is the order revision whose designs are all exported. A task of an older
	// revision than the order's current one does nothing: the newer revision's
	// completion writes the manifest.
	Rev int64 `json:"rev"`
}

// TemplatesSync brings the hub's templates of one store in line with Templates.
// The templates travel in the payload (read from the operator's folder at enqueue
// time), so any worker of the fleet can run it.
type TemplatesSync struct {
	V         int              `json:"v"`
	Store     string           `json:"store"`
	Templates []model.Template `json:"templates"`
	// Prune deletes hub templates whose productId is not in Templates.
	Prune bool `json:"prune"`
	// DryRun computes and reports the plan without changing the hub.
	DryRun bool `json:"dryRun"`
	// Source names where the templates came from, for logs.
	Source string `json:"source,omitempty"`
}

// Decode reads a payload of any type, rejecting unknown versions, bad JSON and
// missing fields (what the type's constructor requires) with an error wrapping
// ErrPayload (and so asynq.SkipRetry).
func Decode[T any](b []byte) (T, error) {
	var p T
	var v struct {
		V *int `json:"v"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return p, fmt.Errorf("%w: %v", ErrPayload, err)
	}
	if v.V == nil {
		return p, fmt.Errorf("%w: no version field \"v\"", ErrPayload)
	}
	if *v.V != PayloadVersion {
		return p, fmt.Errorf("%w: version %d, this worker reads %d", ErrPayload, *v.V, PayloadVersion)
	}
	if err := json.Unmarshal(b, &p); err != nil {
		return p, fmt.Errorf("%w: %v", ErrPayload, err)
	}
	if c, ok := any(p).(checker); ok {
		if err := c.check(); err != nil {
			return p, fmt.Errorf("%w: %s", ErrPayload, strings.ReplaceAll(err.Error(), "\n", "; "))
		}
	}
	return p, nil
}

// TaskOptions are the per-type enqueue options. The defaults differ from asynq's on
// purpose: asynq retries 25 times over weeks and times out after 30 minutes, which
// suits neither a push (many quick retries) nor an export (few, bounded).
type TaskOptions struct {
	MaxRetry int
	// Timeout bounds one attempt; asynq stores a timeout under one second as zero
	// (its 30 minute default), so Validate refuses it.
	Timeout time.Duration
	// Retention keeps a finished task (and so its TaskID) this long, which is how a
	// duplicate delivered after the task finished is still recognized.
	Retention time.Duration
}

// Options holds the enqueue options of every type.
type Options struct {
	Push, Export, Complete, Sync TaskOptions
}

// WindowedMaxRetry is the MaxRetry of task types whose retries the worker bounds by
// a time window instead (worker.Config.RetryWindows): high enough that asynq's count
// never decides (at the 10-minute backoff cap, about ten weeks), while asynq keeps
// an archived task's count, which would leave an operator's retry one attempt.
const WindowedMaxRetry = 10000

// DefaultOptions: pushes retry long (the spec wants every order on the hub) with
// short attempts; exports retry for a time window the worker keeps (their count is
// WindowedMaxRetry), with long attempts (a 300 dpi render or a large download);
// completion is quick; sync runs once.
func DefaultOptions() Options {
	return Options{
		Push:     TaskOptions{MaxRetry: 20, Timeout: 2 * time.Minute, Retention: 24 * time.Hour},
		Export:   TaskOptions{MaxRetry: WindowedMaxRetry, Timeout: 15 * time.Minute, Retention: 72 * time.Hour},
		Complete: TaskOptions{MaxRetry: 10, Timeout: 2 * time.Minute, Retention: 72 * time.Hour},
		Sync:     TaskOptions{MaxRetry: 3, Timeout: 30 * time.Minute, Retention: 24 * time.Hour},
	}
}

// Validate reports every bad value at once.
func (o Options) Validate() error {
	var errs []error
	for _, t := range []struct {
		name string
		o    TaskOptions
	}{{"push", o.Push}, {"export", o.Export}, {"complete", o.Complete}, {"sync", o.Sync}} {
		if t.o.MaxRetry < 0 {
			errs = append(errs, fmt.Errorf("jobs: %s max retry %d is negative", t.name, t.o.MaxRetry))
		}
		if t.o.Timeout < time.Second {
			errs = append(errs, fmt.Errorf("jobs: %s timeout %s is under 1s (asynq would store it as 0)", t.name, t.o.Timeout))
		}
		if t.o.Retention < 0 {
			errs = append(errs, fmt.Errorf("jobs: %s retention %s is negative", t.name, t.o.Retention))
		}
	}
	return errors.Join(errs...)
}

func (t TaskOptions) asynq(queue, id string) []asynq.Option {
	opts := []asynq.Option{asynq.Queue(queue), asynq.MaxRetry(t.MaxRetry), asynq.Timeout(t.Timeout), asynq.TaskID(id)}
	if t.Retention > 0 {
		opts = append(opts, asynq.Retention(t.Retention))
	}
	return opts
}

// Task IDs. Each is the business identity of the work, so the same work enqueued
// twice is one task. Parts are escaped, so no two identities share an id.

// PushTaskID is one push of one version of an order: the same webhook twice is one
// push; a changed order (any byte of its body) is a new push.
func PushTaskID(k OrderKey, op string, body []byte) string {
	id := "push:" + k.String() + ":" + op
	if len(body) > 0 {
		sum := sha256.Sum256(body)
		id += ":" + hex.EncodeToString(sum[:12])
	}
	return id
}

// ExportTaskID is one design of one order in one export generation. The design
// appears as its id and a digest of the whole reference: the token is a capability
// and task ids end up in logs, metrics and operator output.
func ExportTaskID(k OrderKey, ref string, gen int64) string {
	id, _, _ := strings.Cut(ref, ".")
	sum := sha256.Sum256([]byte(ref))
	return "export:" + k.String() + ":" + url.PathEscape(id) + "-" + hex.EncodeToString(sum[:8]) + ":g" + strconv.FormatInt(gen, 10)
}

// CompleteTaskID is the manifest of one order revision.
func CompleteTaskID(k OrderKey, rev int64) string {
	return "complete:" + k.String() + ":r" + strconv.FormatInt(rev, 10)
}

// SyncTaskID is one sync of one set of templates with given flags; the same request
// twice within the retention is one sync.
func SyncTaskID(p TemplatesSync) string {
	p.V = PayloadVersion
	b, _ := json.Marshal(p)
	sum := sha256.Sum256(b)
	return "sync:" + url.PathEscape(p.Store) + ":" + hex.EncodeToString(sum[:12])
}

// NewOrderPushTask builds an order push task with its options.
func NewOrderPushTask(p OrderPush, o TaskOptions) (*asynq.Task, error) {
	p.V = PayloadVersion
	switch p.Op {
	case OpCreate, OpUpdate:
		if p.Order == nil {
			return nil, fmt.Errorf("jobs: %s push of order %s without the order", p.Op, p.OrderKey)
		}
	case OpDelete:
		p.Order = nil
	default:
		return nil, fmt.Errorf("jobs: push op %q: want create, update or delete", p.Op)
	}
	if err := p.OrderKey.validate(); err != nil {
		return nil, fmt.Errorf("jobs: push: %w", err)
	}
	b, err := json.Marshal(p)
	if err != nil {
		return nil, fmt.Errorf("jobs: push payload: %w", err)
	}
	var body []byte
	if p.Order != nil {
		body, _ = json.Marshal(p.Order)
	}
	return asynq.NewTask(TypeOrderPush, b, o.asynq(QueueOrders, PushTaskID(p.OrderKey, p.Op, body))...), nil
}

// NewDesignExportTask builds a design export task with its options, in QueueExports;
// the Enqueuer puts it into its order's shard (Enqueuer.ExportQueue).
func NewDesignExportTask(p DesignExport, o TaskOptions) (*asynq.Task, error) {
	p.V = PayloadVersion
	if err := p.OrderKey.validate(); err != nil {
		return nil, fmt.Errorf("jobs: export: %w", err)
	}
	if _, err := p.DesignRef(); err != nil {
		return nil, fmt.Errorf("jobs: export: %w", err)
	}
	b, err := json.Marshal(p)
	if err != nil {
		return nil, fmt.Errorf("jobs: export payload: %w", err)
	}
	return asynq.NewTask(TypeDesignExport, b, o.asynq(QueueExports, ExportTaskID(p.OrderKey, p.Ref, p.Gen))...), nil
}

// NewOrderCompleteTask builds an order completion task with its options.
func NewOrderCompleteTask(p OrderComplete, o TaskOptions) (*asynq.Task, error) {
	p.V = PayloadVersion
	if err := p.OrderKey.validate(); err != nil {
		return nil, fmt.Errorf("jobs: complete: %w", err)
	}
	b, err := json.Marshal(p)
	if err != nil {
		return nil, fmt.Errorf("jobs: complete payload: %w", err)
	}
	// Enqueued once its order's last export is done, so it cannot jump ahead of the
	// exports it follows; in the heaviest queue it does not wait for other orders'.
	return asynq.NewTask(TypeOrderComplete, b, o.asynq(QueueComplete, CompleteTaskID(p.OrderKey, p.Rev))...), nil
}

// NewTemplatesSyncTask builds a template sync task with its options.
func NewTemplatesSyncTask(p TemplatesSync, o TaskOptions) (*asynq.Task, error) {
	p.V = PayloadVersion
	if p.Store == "" {
		return nil, errors.New("jobs: sync: store is empty")
	}
	b, err := json.Marshal(p)
	if err != nil {
		return nil, fmt.Errorf("jobs: sync payload: %w", err)
	}
	return asynq.NewTask(TypeTemplatesSync, b, o.asynq(QueueSync, SyncTaskID(p))...), nil
}

// refsOf returns the distinct valid design references of an order's lines in order
// of first appearance, and the total quantity ordered of each. Lines without a valid
// reference are not personalized and have nothing to export.
func refsOf(o *model.Order) ([]string, map[string]int) {
	var refs []string
	qty := map[string]int{}
	for _, li := range o.LineItems {
		r := li.Ref()
		if r.Validate() != nil {
			continue
		}
		s := r.String()
		if _, ok := qty[s]; !ok {
			refs = append(refs, s)
		}
		qty[s] += li.Quantity
	}
	return refs, qty
}

// orderDate is the date folder of an order: the UTC day it was created, so every
// retry and revision files under the same folder. now is used for orders without a
// readable created time.
func orderDate(o *model.Order, now time.Time) string {
	if t, err := time.Parse(time.RFC3339Nano, strings.TrimSpace(o.Created)); err == nil {
		return t.UTC().Format(time.DateOnly)
	}
	return now.UTC().Format(time.DateOnly)
}
