package worker

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/hibiken/asynq"

	"github.com/printworker/printworker/events"
	"github.com/printworker/printworker/jobs"
)

// This file is the worker's side of order events (package events): it registers the
// event task handlers and raises files-ready (manifest written) and job-failed
// (order task archived) events. Cancellations are raised by jobs.Enqueuer.CancelOrder.

// registerEvents builds the event publisher and routes the event task types to it.
// They are registered even with no endpoint configured: a cancellation enqueued by
// intake or the command line is then consumed as a no-op instead of piling up.
func (w *Worker) registerEvents() error {
	cfg := w.cfg.Events
	if cfg.Logger == nil {
		cfg.Logger = w.log
	}
	pub, err := events.NewPublisher(cfg, w.deps.Redis, w.cfg.KeyPrefix, w.enq)
	if err != nil {
		return err
	}
	w.mux.HandleFunc(jobs.TypeEventPublish, pub.HandlePublish)
	w.mux.HandleFunc(jobs.TypeEventDeliver, pub.HandleDeliver)
	return nil
}

// linkMaker is the optional part of a Storage that makes links that open without
// credentials (*storage.S3 presigns them; *storage.Dir gives file:// URLs).
type linkMaker interface {
	Link(ctx context.Context, key string) (string, error)
}

// link returns a fresh link to key in bucket ("" for the default storage; a routed
// file names its own): presigned links are made when the manifest is written, so
// their lifetime counts from there, not from each file's export.
func (w *Worker) link(ctx context.Context, bucket, key string) (string, error) {
	if l, ok := w.storageOf(bucket).(linkMaker); ok {
		u, err := l.Link(ctx, key)
		if err != nil {
			return "", fmt.Errorf("link to %s: %w", key, err)
		}
		return u, nil
	}
	return w.bucketURL(bucket, key), nil
}

// refreshLinks sets the link of every file of m.
func (w *Worker) refreshLinks(ctx context.Context, m *Manifest) error {
	for i := range m.Files {
		u, err := w.link(ctx, m.Files[i].Bucket, m.Files[i].Key)
		if err != nil {
			return err
		}
		m.Files[i].URL = u
	}
	return nil
}

// filesReady is the data of an order.files_ready event.
type filesReady struct {
	Revision int64             `json:"revision"`
	Manifest manifestLink      `json:"manifest"`
	Files    []FileRecord      `json:"files"`
	Warnings []ManifestWarning `json:"warnings"`
}

type manifestLink struct {
	Key string `json:"key"`
	URL string `json:"url,omitempty"`
}

// publishFilesReady raises order.files_ready for a written manifest. Its id is the
// order revision's, so a completion that runs again raises the same event once.
func (w *Worker) publishFilesReady(ctx context.Context, k jobs.OrderKey, key string, m *Manifest) error {
	if !w.cfg.Events.Enabled() {
		return nil
	}
	u, err := w.link(ctx, "", key)
	if err != nil {
		return err
	}
	d := filesReady{Revision: m.Revision, Manifest: manifestLink{Key: key, URL: u}, Files: m.Files, Warnings: m.Warnings}
	if d.Warnings == nil {
		d.Warnings = []ManifestWarning{}
	}
	data, err := json.Marshal(d)
	if err != nil {
		return err
	}
	_, err = w.enq.PublishEvent(ctx, jobs.EventPublish{
		ID: jobs.EventID(jobs.EventFilesReady, k, "r"+strconv.FormatInt(m.Revision, 10)), Type: jobs.EventFilesReady,
		At: time.Now().UTC(), OrderKey: k, Data: data,
	})
	if err != nil {
		return fmt.Errorf("files ready event: %w", err)
	}
	return nil
}

// jobFailed is the data of a job.failed event.
type jobFailed struct {
	Task     failedTask `json:"task"`
	DesignID string     `json:"designId,omitempty"`
	Error    string     `json:"error"`
}

type failedTask struct {
	ID    string `json:"id"`
	Type  string `json:"type"`
	Queue string `json:"queue"`
}

// publishJobFailed raises job.failed for an order's task that was archived (a
// permanent error, or retries exhausted). Other task types (template sync, events
// themselves) raise nothing: they belong to no order, and an event about a failed
// event could loop.
func (w *Worker) publishJobFailed(ctx context.Context, t *asynq.Task, err error) {
	switch t.Type() {
	case jobs.TypeOrderPush, jobs.TypeDesignExport, jobs.TypeOrderComplete:
	default:
		return
	}
	if !w.cfg.Events.Enabled() {
		return
	}
	var p struct {
		jobs.OrderKey
		Ref string `json:"ref"`
	}
	if json.Unmarshal(t.Payload(), &p) != nil || p.Store == "" || p.OrderID == "" {
		return
	}
	id, _ := asynq.GetTaskID(ctx)
	queue, _ := asynq.GetQueueName(ctx)
	msg := err.Error()
	if errors.Is(err, asynq.SkipRetry) {
		msg = trimSkipRetry(msg)
	}
	data, _ := json.Marshal(jobFailed{Task: failedTask{ID: id, Type: t.Type(), Queue: queue}, DesignID: designID(p.Ref), Error: msg})
	// The task's context may be at its deadline; the event must still be enqueued.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	_, perr := w.enq.PublishEvent(ctx, jobs.EventPublish{
		ID: jobs.EventID(jobs.EventJobFailed, p.OrderKey, id), Type: jobs.EventJobFailed,
		At: time.Now().UTC(), OrderKey: p.OrderKey, Data: data,
	})
	if perr != nil {
		w.log.WarnContext(ctx, "job failed event not enqueued", "task_id", id, "err", perr)
	}
}

// trimSkipRetry drops asynq's "skip retry for the task" marker from a reason: it
// is queue mechanics, not something a store's receiver can act on.
func trimSkipRetry(msg string) string {
	for _, suffix := range []string{" (" + asynq.SkipRetry.Error() + ")", ": " + asynq.SkipRetry.Error()} {
		if len(msg) > len(suffix) && msg[len(msg)-len(suffix):] == suffix {
			return msg[:len(msg)-len(suffix)]
		}
	}
	return msg
}
