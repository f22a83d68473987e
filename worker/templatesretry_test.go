package worker_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hibiken/asynq"

	"github.com/printworker/printworker/hub"
	"github.com/printworker/printworker/hubsim"
	"github.com/printworker/printworker/jobs"
	"github.com/printworker/printworker/model"
	"github.com/printworker/printworker/worker"
)

// TestSyncTemplatesListWithoutIDs: a hub whose template list omits _id is synced by
// productId (get, update and delete), where it used to stop at "empty template id".
func TestSyncTemplatesListWithoutIDs(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := context.Background()
	client, src := syncedFixtures(t, e)
	e.sim.SetListWithoutIDs(true)
	rep, err := worker.SyncTemplates(ctx, client, store, renamed(src, 1, "Renamed mug")[:2], true, false)
	if err != nil {
		t.Fatalf("sync against a list without _id: %v", err)
	}
	if got := [3]int{rep.Count(worker.SyncUpdate), rep.Count(worker.SyncUnchanged), rep.Count(worker.SyncDelete)}; got != [3]int{1, 1, 1} {
		t.Errorf("update/unchanged/delete %v, want [1 1 1]: %+v", got, rep)
	}
	if n := len(e.sim.Templates(store)); n != 2 {
		t.Errorf("%d templates on the hub, want 2", n)
	}
}

// TestQueuedSyncKeepsProgress: every path fails its first four calls (Faults.FailFirst),
// more than one task attempt retries a call, so the task fails several times. Each retry
// resumes where the last attempt stopped: no template is written twice, and the sync
// completes.
func TestQueuedSyncKeepsProgress(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(c *worker.Config, _ *worker.Deps) { c.Jobs.Sync.MaxRetry = 25 })
	ctx := context.Background()
	_, src := syncedFixtures(t, e)
	dir := t.TempDir()
	for _, tpl := range src {
		tpl.Name += " (2025)"
		b, _ := json.Marshal(tpl)
		if err := os.WriteFile(filepath.Join(dir, tpl.ProductID+".json"), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := e.sim.SetFaults(hubsim.Faults{FailFirst: 4}); err != nil {
		t.Fatal(err)
	}
	e.sim.ResetRequests()
	e.start()
	q, err := e.enq.SyncTemplates(ctx, store, dir, false, false)
	if err != nil {
		t.Fatal(err)
	}
	var info *asynq.TaskInfo
	deadline := time.Now().Add(waitBound)
	for {
		info, err = e.insp.GetTaskInfo(jobs.QueueSync, q.TaskID)
		if err == nil && info.State == asynq.TaskStateCompleted {
			break
		}
		if err == nil && info.State == asynq.TaskStateArchived || time.Now().After(deadline) {
			t.Fatalf("sync task not completed: %+v %v; %s", info, err, e.queueReport())
		}
		time.Sleep(20 * time.Millisecond)
	}
	var rep worker.SyncReport
	if err := json.Unmarshal(info.Result, &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Count(worker.SyncUpdate) != 3 {
		t.Errorf("report %+v, want 3 updates", rep)
	}
	answered := map[string]int{}
	for _, r := range e.sim.Requests() {
		if !strings.HasPrefix(r.Path, "/2022-08/templates/") {
			continue
		}
		if r.Status == 200 {
			answered[r.Method+" "+r.Path]++
		}
	}
	for k, n := range answered {
		// A write is done once. A read may be repeated once: a template read by an
		// attempt whose update then failed is read again by the next attempt.
		if strings.HasPrefix(k, "POST") && n != 1 || n > 2 {
			t.Errorf("%s answered %d times: the sync repeated finished work", k, n)
		}
	}
	if len(answered) != 6 {
		t.Errorf("%d template calls answered, want 6 (a get and an update each): %v", len(answered), answered)
	}
	if info.Retried == 0 {
		t.Errorf("the task never failed (retried %d): the test did not exercise resuming", info.Retried)
	}
	for _, tpl := range e.sim.Templates(store) {
		if !strings.HasSuffix(tpl.Template.Name, "(2025)") {
			t.Errorf("template %s not updated: %q", tpl.Template.ProductID, tpl.Template.Name)
		}
	}
}

// syncedFixtures puts the simulator's fixture templates on its hub and returns a
// client and the templates.
func syncedFixtures(t *testing.T, e *env) (*hub.Client, []model.Template) {
	t.Helper()
	client, err := hub.NewClient(hub.Config{Store: store, APIKey: apiKey, Secret: secret, BaseURL: e.simURL})
	if err != nil {
		t.Fatal(err)
	}
	src, err := jobs.LoadTemplates("../hubsim/testdata/templates")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := worker.SyncTemplates(context.Background(), client, store, src, false, false); err != nil {
		t.Fatal(err)
	}
	return client, src
}
