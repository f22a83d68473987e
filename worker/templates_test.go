package worker_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/hibiken/asynq"

	"github.com/printworker/printworker/hub"
	"github.com/printworker/printworker/jobs"
	"github.com/printworker/printworker/model"
	"github.com/printworker/printworker/worker"
)

func TestSyncTemplates(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	client, err := hub.NewClient(hub.Config{Store: store, APIKey: apiKey, Secret: secret, BaseURL: e.simURL})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	src, err := jobs.LoadTemplates("../hubsim/testdata/templates")
	if err != nil {
		t.Fatal(err)
	}
	count := func(rep worker.SyncReport) [4]int {
		return [4]int{rep.Count(worker.SyncCreate), rep.Count(worker.SyncUpdate), rep.Count(worker.SyncUnchanged), rep.Count(worker.SyncDelete)}
	}
	steps := []struct {
		name   string
		src    []model.Template
		prune  bool
		dryRun bool
		want   [4]int // create, update, unchanged, delete
		onHub  int
	}{
		{"dry run plans creates", src, false, true, [4]int{3, 0, 0, 0}, 0},
		{"creates", src, false, false, [4]int{3, 0, 0, 0}, 3},
		{"again: unchanged", src, false, false, [4]int{0, 0, 3, 0}, 3},
		{"renamed one: update", renamed(src, 1, "Renamed mug"), false, false, [4]int{0, 1, 2, 0}, 3},
		{"prune dry run", src[:2], true, true, [4]int{0, 1, 1, 1}, 3},
		{"prune", src[:2], true, false, [4]int{0, 1, 1, 1}, 2},
	}
	for _, s := range steps {
		before := len(e.sim.Requests())
		rep, err := worker.SyncTemplates(ctx, client, store, s.src, s.prune, s.dryRun)
		if err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		if got := count(rep); got != s.want {
			t.Errorf("%s: create/update/unchanged/delete %v, want %v", s.name, got, s.want)
		}
		if n := len(e.sim.Templates(store)); n != s.onHub {
			t.Errorf("%s: %d templates on the hub, want %d", s.name, n, s.onHub)
		}
		if s.dryRun {
			for _, r := range e.sim.Requests()[before:] {
				if r.Method != "GET" {
					t.Errorf("%s: dry run sent %s %s", s.name, r.Method, r.Path)
				}
			}
		}
	}

	// Through the queue: the report is the task's result.
	dir := t.TempDir()
	for _, tpl := range src {
		b, _ := json.Marshal(tpl)
		if err := os.WriteFile(filepath.Join(dir, tpl.ProductID+".json"), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	e.start()
	q, err := e.enq.SyncTemplates(ctx, store, dir, false, true)
	if err != nil {
		t.Fatal(err)
	}
	var info *asynq.TaskInfo
	deadline := time.Now().Add(30 * time.Second)
	for {
		info, err = e.insp.GetTaskInfo(jobs.QueueSync, q.TaskID)
		if err == nil && info.State == asynq.TaskStateCompleted {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("sync task not completed: %+v %v; %s", info, err, e.queueReport())
		}
		time.Sleep(20 * time.Millisecond)
	}
	var rep worker.SyncReport
	if err := json.Unmarshal(info.Result, &rep); err != nil {
		t.Fatalf("task result %q: %v", info.Result, err)
	}
	// The hub holds the first two, as in the folder; the third is missing.
	if got := count(rep); !rep.DryRun || got != [4]int{1, 0, 2, 0} {
		t.Errorf("queued dry run: %+v", rep)
	}
}

func renamed(src []model.Template, i int, name string) []model.Template {
	out := append([]model.Template(nil), src...)
	out[i].Name = name
	return out
}
