package jobs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"time"

	"github.com/hibiken/asynq"
)

// Day pages (docs/shop-floor.md, "Day page"): a completion records its order's
// summary in the day's Redis state and enqueues one debounced daypage:build task per
// day folder, which writes the page from those summaries. The worker owns the
// protocol (worker/daypage.go); this file has the task type, its payload, options
// and id, and the enqueue.
const (
	TypeDayPage = "daypage:build"
	// QueuePages holds the day page builds: a queue of their own, weighed low, so an
	// operator sees their backlog apart from the orders' and a burst of completions
	// never waits behind a page.
	QueuePages = "pages"
)

// DayPage builds the day page of one day folder ({store}/{date} by default).
type DayPage struct {
	V      int    `json:"v"`
	Folder string `json:"folder"`
}

// DayPageOptions: a build is one Redis read and one small object; one that keeps
// failing (storage down for an hour) is archived, and the next completion of the
// day starts a new round (worker/daypage.go). Finished builds are kept an hour
// only: a round's id is never used again, so retention dedupes nothing.
func DayPageOptions() TaskOptions {
	return TaskOptions{MaxRetry: 15, Timeout: 5 * time.Minute, Retention: time.Hour}
}

// DayPageTaskID is round n of the day folder's page builds. Every build ends its
// round (the worker's finish step raises n), so a finished task's id is never
// asked for again and a completion's enqueue collides only with a build that has
// yet to read the day's generation.
func DayPageTaskID(folder string, n int64) string {
	return "daypage:" + url.PathEscape(folder) + ":" + strconv.FormatInt(n, 10)
}

// NewDayPageTask builds round n's task of folder.
func NewDayPageTask(folder string, n int64) (*asynq.Task, error) {
	if folder == "" {
		return nil, errors.New("jobs: day page: folder is empty")
	}
	b, err := json.Marshal(DayPage{V: PayloadVersion, Folder: folder})
	if err != nil {
		return nil, fmt.Errorf("jobs: day page payload: %w", err)
	}
	return asynq.NewTask(TypeDayPage, b, DayPageOptions().asynq(QueuePages, DayPageTaskID(folder, n))...), nil
}

// DayPage enqueues round n's build of folder's page, to run after delay (the
// debounce: completions within it share the build). Enqueued.Duplicate is true when
// the round's task exists; TaskState tells whether it will still run.
func (e *Enqueuer) DayPage(ctx context.Context, folder string, n int64, delay time.Duration) (Enqueued, error) {
	t, err := NewDayPageTask(folder, n)
	if err != nil {
		return Enqueued{}, err
	}
	var extra []asynq.Option
	if delay > 0 {
		extra = append(extra, asynq.ProcessIn(delay))
	}
	return e.enqueue(ctx, t, DayPageTaskID(folder, n), QueuePages, extra...)
}

// TaskState is the state of task id in queue; asynq.ErrTaskNotFound when there is
// none (deleted, or its retention ended).
func (e *Enqueuer) TaskState(queue, id string) (asynq.TaskState, error) {
	info, err := e.insp.GetTaskInfo(queue, id)
	if err != nil {
		return 0, err
	}
	return info.State, nil
}
