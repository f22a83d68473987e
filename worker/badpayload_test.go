package worker_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/hibiken/asynq"

	"github.com/printworker/printworker/jobs"
	"github.com/printworker/printworker/worker"
)

// TestInvalidTaskMessagesArchivedAtOnce enqueues, for every task type the worker
// serves, payloads that are not valid (not JSON, an unknown version, fields
// missing) into a real Redis, runs the real asynq server, and waits for each to be
// archived on its first attempt with a readable reason: a retry of the same bytes
// cannot succeed (docs/pipeline.md, "Task messages that are not valid").
func TestInvalidTaskMessagesArchivedAtOnce(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	types := map[string]string{
		jobs.TypeOrderPush:     jobs.QueueOrders,
		jobs.TypeDesignExport:  jobs.QueueExports,
		jobs.TypeOrderComplete: jobs.QueueComplete,
		jobs.TypeTemplatesSync: jobs.QueueSync,
		jobs.TypeGangBuild:     jobs.QueueGang,
		jobs.TypeReprint:       jobs.QueueExports,
		jobs.TypeReview:        jobs.QueueOrders,
		jobs.TypeDayPage:       jobs.QueuePages,
		jobs.TypeEventPublish:  jobs.QueueEvents,
		jobs.TypeEventDeliver:  jobs.QueueEvents,
		"order:unknown":        jobs.QueueOrders,
	}
	payloads := map[string]string{
		"not-json":   `<html>not a task</html>`,
		"empty":      ``,
		"version":    `{"v":99,"store":"demo-store","orderId":"1"}`,
		"no-version": `{"store":"demo-store","orderId":"1"}`,
		"missing":    `{"v":1}`,
		"wrong-type": `{"v":1,"store":7,"orderId":["x"]}`,
	}
	c := asynq.NewClientFromRedisClient(e.rdb)
	type want struct{ id, queue, typ, payload string }
	var wants []want
	for typ, q := range types {
		for name, p := range payloads {
			id := "bad-" + strings.ReplaceAll(typ, ":", "-") + "-" + name
			if _, err := c.Enqueue(asynq.NewTask(typ, []byte(p)), asynq.Queue(q), asynq.TaskID(id), asynq.MaxRetry(25), asynq.Timeout(10*time.Minute)); err != nil {
				t.Fatal(err)
			}
			wants = append(wants, want{id, q, typ, name})
		}
	}
	e.start()
	deadline := time.Now().Add(waitBound)
	for _, w := range wants {
		for {
			info, err := e.insp.GetTaskInfo(w.queue, w.id)
			if err != nil {
				t.Fatalf("%s %s: %v", w.typ, w.payload, err)
			}
			if info.State == asynq.TaskStateArchived {
				if info.Retried != 0 {
					t.Errorf("%s %s: archived after %d retries, want on the first attempt: %s", w.typ, w.payload, info.Retried, info.LastErr)
				}
				if !strings.Contains(info.LastErr, "bad task payload") {
					t.Errorf("%s %s: last error %q does not say the payload is bad", w.typ, w.payload, info.LastErr)
				}
				break
			}
			if info.State == asynq.TaskStateRetry || info.State == asynq.TaskStateCompleted {
				t.Errorf("%s %s: %s, want archived: %s", w.typ, w.payload, info.State, info.LastErr)
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s %s: still %s after %s: %s", w.typ, w.payload, info.State, waitBound, e.queueReport())
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
}

// TestUndecodableTaskMessagesArchived damages the stored message of pending tasks
// (bytes that are not asynq's protobuf, a string field that is not UTF-8, an empty
// message, a message naming another task) in a real Redis and runs the real asynq
// server: asynq alone leaves each active for good; the worker archives each with a
// readable reason and its original bytes, and a good task queued behind them runs.
func TestUndecodableTaskMessagesArchived(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(c *worker.Config, _ *worker.Deps) { c.Polling.Janitor = 100 * time.Millisecond })
	c := asynq.NewClientFromRedisClient(e.rdb)
	damaged := map[string][]byte{
		"html":        []byte("<html>not a task</html>"),
		"truncated":   {0x0a, 0x20, 'o', 'r'},
		"bad-utf8":    {0x0a, 0x02, 0xff, 0xfe, 0x1a, 0x01, 'x'},
		"empty":       {},
		"other-id":    {0x0a, 0x01, 't', 0x1a, 0x05, 'o', 't', 'h', 'e', 'r', 0x22, 0x04, 's', 'y', 'n', 'c'},
		"zero-number": {0x00, 0x01},
	}
	for name, msg := range damaged {
		e.damaged(c, "damaged-"+name, msg)
	}
	// A good task behind them: its handler archives it for its own reason (no hub
	// for the store), which shows it ran.
	if _, err := c.Enqueue(asynq.NewTask(jobs.TypeTemplatesSync, []byte(`{"v":1,"store":"elsewhere"}`)), asynq.Queue(jobs.QueueSync), asynq.TaskID("good")); err != nil {
		t.Fatal(err)
	}
	e.start()
	deadline := time.Now().Add(waitBound)
	for name, msg := range damaged {
		id := "damaged-" + name
		for {
			info, err := e.insp.GetTaskInfo(jobs.QueueSync, id)
			if err == nil && info.State == asynq.TaskStateArchived {
				if info.Type != jobs.UndecodableType || string(info.Payload) != string(msg) {
					t.Errorf("%s: archived as type %q payload %q, want %q with the original bytes", name, info.Type, info.Payload, jobs.UndecodableType)
				}
				if !strings.Contains(info.LastErr, "task message does not decode") || !strings.Contains(info.LastErr, "bad task payload") {
					t.Errorf("%s: last error %q does not say the message does not decode", name, info.LastErr)
				}
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: not archived (%v, %v): %s", name, info, err, e.queueReport())
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	for {
		info, err := e.insp.GetTaskInfo(jobs.QueueSync, "good")
		if err == nil && info.State == asynq.TaskStateArchived {
			if !strings.Contains(info.LastErr, "elsewhere") {
				t.Errorf("good task: last error %q, want its handler's", info.LastErr)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("good task not run (%v, %v): %s", info, err, e.queueReport())
		}
		time.Sleep(20 * time.Millisecond)
	}
	if n := len(e.activeIDs(jobs.QueueSync)); n != 0 {
		t.Errorf("%d tasks still active", n)
	}
}

func (e *env) activeIDs(q string) []string {
	ids, err := e.rdb.LRange(context.Background(), "asynq:{"+q+"}:active", 0, -1).Result()
	if err != nil {
		e.t.Fatal(err)
	}
	return ids
}

// TestUndecodableUnloggedArchived: messages that decode but name no type or another
// task id leave asynq no decode error to log; the periodic sweep finds them once
// their lease goes stale (asynq never extends it), and archives them.
func TestUndecodableUnloggedArchived(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(c *worker.Config, _ *worker.Deps) { c.Polling.Janitor = 100 * time.Millisecond })
	c := asynq.NewClientFromRedisClient(e.rdb)
	damaged := map[string][]byte{
		"empty":    {},
		"other-id": {0x0a, 0x01, 't', 0x1a, 0x05, 'o', 't', 'h', 'e', 'r', 0x22, 0x04, 's', 'y', 'n', 'c'},
	}
	for name, msg := range damaged {
		e.damaged(c, "unlogged-"+name, msg)
	}
	e.start()
	deadline := time.Now().Add(waitBound)
	for name := range damaged {
		for {
			info, err := e.insp.GetTaskInfo(jobs.QueueSync, "unlogged-"+name)
			if err == nil && info.State == asynq.TaskStateArchived {
				if !strings.Contains(info.LastErr, "task message does not decode") {
					t.Errorf("%s: last error %q", name, info.LastErr)
				}
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: not archived (%v, %v): %s", name, info, err, e.queueReport())
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
}

// damaged enqueues a sync task with id and replaces its stored message with msg.
func (e *env) damaged(c *asynq.Client, id string, msg []byte) {
	e.t.Helper()
	if _, err := c.Enqueue(asynq.NewTask(jobs.TypeTemplatesSync, []byte(`{"v":1}`)), asynq.Queue(jobs.QueueSync), asynq.TaskID(id)); err != nil {
		e.t.Fatal(err)
	}
	if err := e.rdb.HSet(context.Background(), "asynq:{"+jobs.QueueSync+"}:t:"+id, "msg", msg).Err(); err != nil {
		e.t.Fatal(err)
	}
}
