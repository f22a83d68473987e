package jobs_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/hibiken/asynq"

	"github.com/printworker/printworker/internal/testredis"
	"github.com/printworker/printworker/jobs"
)

// TestDayPageTask: a day page build's id names its folder (escaped) and round; a
// delay schedules it, and a second enqueue of the same round is a duplicate whose
// state the enqueuer reports.
func TestDayPageTask(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		folder string
		n      int64
		want   string
	}{
		{"s/2024-06-01", 0, "daypage:s%2F2024-06-01:0"},
		{"2024-06-01/a:b", 12, "daypage:2024-06-01%2Fa:b:12"},
	} {
		if got := jobs.DayPageTaskID(tc.folder, tc.n); got != tc.want {
			t.Errorf("DayPageTaskID(%q, %d) = %q, want %q", tc.folder, tc.n, got, tc.want)
		}
	}
	if _, err := jobs.NewDayPageTask("", 0); err == nil {
		t.Error("a build without a folder was made")
	}

	rdb := testredis.Start(t).Client(t)
	enq, err := jobs.NewEnqueuer(rdb, jobs.EnqueuerConfig{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	q, err := enq.DayPage(ctx, "s/2024-06-01", 3, time.Minute)
	if err != nil || q.Duplicate || q.Queue != jobs.QueuePages || q.Type != jobs.TypeDayPage {
		t.Fatalf("enqueue: %+v, %v", q, err)
	}
	if st, err := enq.TaskState(jobs.QueuePages, q.TaskID); err != nil || st != asynq.TaskStateScheduled {
		t.Errorf("state %v (%v), want scheduled", st, err)
	}
	if q, err := enq.DayPage(ctx, "s/2024-06-01", 3, 0); err != nil || !q.Duplicate {
		t.Errorf("the same round again: %+v, %v; want a duplicate", q, err)
	}
	if _, err := enq.TaskState(jobs.QueuePages, jobs.DayPageTaskID("s/2024-06-01", 4)); !errors.Is(err, asynq.ErrTaskNotFound) {
		t.Errorf("state of a round never enqueued: %v, want ErrTaskNotFound", err)
	}
}
