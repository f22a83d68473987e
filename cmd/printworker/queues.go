package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/hibiken/asynq"
	"github.com/redis/go-redis/v9"

	"github.com/printworker/printworker/jobs"
)

// queuesCommand is the operator's view of the queues, for the runbook: sizes, archived
// tasks with their reasons, retrying, pausing. It speaks to Redis through asynq's
// Inspector, so it works on a live fleet without stopping anything.
func queuesCommand() command {
	const help = `Usage: printworker queues <action> [flags]

Actions:
  stats                         size of every queue by state, latency, paused or not
  list --queue Q --state S      tasks of one queue in one state (pending, active,
                                scheduled, retry, archived, completed), with last error
  retry --queue Q [--id ID]     run archived (or retry) tasks now: one by id, or all archived
  delete --queue Q --id ID      delete one task (frees its dedupe id for a re-export)
  pause --queue Q               stop workers taking tasks from the queue (in-flight ones finish)
  unpause --queue Q             resume the queue
  workers                       running worker processes and their active tasks

Every action takes --redis-url (PRINTWORKER_REDIS_URL) and the Sentinel flags.
`
	return command{
		name:    "queues",
		summary: "inspect queues, list and retry archived tasks, pause and resume",
		run: func(ctx context.Context, e env, args []string) error {
			return subcommand(ctx, e, "queues", args, map[string]func(context.Context, env, []string) error{
				"stats":   queuesStats,
				"list":    queuesList,
				"retry":   queuesRetry,
				"delete":  queuesDelete,
				"pause":   func(ctx context.Context, e env, a []string) error { return queuesPause(ctx, e, a, true) },
				"unpause": func(ctx context.Context, e env, a []string) error { return queuesPause(ctx, e, a, false) },
				"workers": queuesWorkers,
			}, help)
		},
	}
}

// inspectorFlags parses the Redis flags plus any extra ones and opens an Inspector.
func inspector(ctx context.Context, e env, name string, args []string, extra func(fsAdder)) (*queueAdmin, func(), error) {
	fs := newFlagSet(e, "queues "+name, "queues "+name+" [flags]")
	rf := addRedisFlags(fs)
	if extra != nil {
		extra(fs)
	}
	if err := parseFlags(fs, e, args); err != nil {
		return nil, nil, err
	}
	rdb, err := rf.connect(ctx)
	if err != nil {
		return nil, nil, err
	}
	in := asynq.NewInspectorFromRedisClient(rdb)
	return &queueAdmin{Inspector: in, rdb: rdb}, func() { in.Close(); rdb.Close() }, nil
}

// queueAdmin is asynq's Inspector with the Redis client it reads, for the counts
// jobs.ReadQueueStats reads without asynq's failing memory estimate.
type queueAdmin struct {
	*asynq.Inspector
	rdb redis.UniversalClient
}

// fsAdder is the part of a flag set the actions add their own flags to.
type fsAdder interface {
	StringVar(p *string, name, value, usage string)
	IntVar(p *int, name string, value int, usage string)
}

func queuesStats(ctx context.Context, e env, args []string) error {
	in, done, err := inspector(ctx, e, "stats", args, nil)
	if err != nil {
		return helpOK(err)
	}
	defer done()
	qs, err := in.Queues()
	if err != nil {
		return fmt.Errorf("queues: %w", err)
	}
	sort.Strings(qs)
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "QUEUE\tPENDING\tACTIVE\tSCHEDULED\tRETRY\tARCHIVED\tCOMPLETED\tLATENCY\tPAUSED")
	now := time.Now()
	for _, q := range qs {
		info, err := jobs.ReadQueueStats(ctx, in.rdb, q, now)
		if err != nil {
			return err
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%d\t%d\t%s\t%v\n", q, info.Pending, info.Active, info.Scheduled,
			info.Retry, info.Archived, info.Completed, info.Latency.Round(time.Second), info.Paused)
	}
	if len(qs) == 0 {
		fmt.Fprintln(tw, "(no queues yet)")
	}
	return tw.Flush()
}

func queuesList(ctx context.Context, e env, args []string) error {
	var queue, state string
	var limit int
	in, done, err := inspector(ctx, e, "list", args, func(fs fsAdder) {
		fs.StringVar(&queue, "queue", "exports", "queue: orders, exports, events, sync, gang or pages")
		fs.StringVar(&state, "state", "archived", "pending, active, scheduled, retry, archived or completed")
		fs.IntVar(&limit, "limit", 50, "most tasks listed")
	})
	if err != nil {
		return helpOK(err)
	}
	defer done()
	opts := []asynq.ListOption{asynq.PageSize(limit)}
	var tasks []*asynq.TaskInfo
	switch state {
	case "pending":
		tasks, err = in.ListPendingTasks(queue, opts...)
	case "active":
		tasks, err = in.ListActiveTasks(queue, opts...)
	case "scheduled":
		tasks, err = in.ListScheduledTasks(queue, opts...)
	case "retry":
		tasks, err = in.ListRetryTasks(queue, opts...)
	case "archived":
		tasks, err = in.ListArchivedTasks(queue, opts...)
	case "completed":
		tasks, err = in.ListCompletedTasks(queue, opts...)
	default:
		return usageError("queues list: --state must be pending, active, scheduled, retry, archived or completed")
	}
	if err != nil {
		return fmt.Errorf("queues list %s %s: %w", queue, state, err)
	}
	return printTasks(e.stdout, tasks)
}

func printTasks(w io.Writer, tasks []*asynq.TaskInfo) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tTYPE\tRETRIED\tLAST FAILED\tLAST ERROR")
	for _, t := range tasks {
		failed := ""
		if !t.LastFailedAt.IsZero() {
			failed = t.LastFailedAt.UTC().Format(time.RFC3339)
		}
		fmt.Fprintf(tw, "%s\t%s\t%d/%d\t%s\t%s\n", t.ID, t.Type, t.Retried, t.MaxRetry, failed, oneLineString(t.LastErr))
	}
	if len(tasks) == 0 {
		fmt.Fprintln(tw, "(none)")
	}
	return tw.Flush()
}

// oneLineString folds s onto one line, whole: the hub's own message usually ends a
// task's error, and an operator needs it to decide between retry and delete. The
// error is the table's last column, so a long one does not shift the others.
func oneLineString(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

func queuesRetry(ctx context.Context, e env, args []string) error {
	var queue, id string
	in, done, err := inspector(ctx, e, "retry", args, func(fs fsAdder) {
		fs.StringVar(&queue, "queue", "", "queue of the task(s)")
		fs.StringVar(&id, "id", "", "task id (empty: every archived task of the queue)")
	})
	if err != nil {
		return helpOK(err)
	}
	defer done()
	if queue == "" {
		return usageError("queues retry: --queue is required")
	}
	if id != "" {
		if err := in.RunTask(queue, id); err != nil {
			return fmt.Errorf("queues retry %s %s: %w", queue, id, err)
		}
		fmt.Fprintf(e.stdout, "task %s of %s queued to run now\n", id, queue)
		return nil
	}
	n, err := in.RunAllArchivedTasks(queue)
	if err != nil {
		return fmt.Errorf("queues retry %s: %w", queue, err)
	}
	fmt.Fprintf(e.stdout, "%d archived task(s) of %s queued to run now\n", n, queue)
	return nil
}

func queuesDelete(ctx context.Context, e env, args []string) error {
	var queue, id string
	in, done, err := inspector(ctx, e, "delete", args, func(fs fsAdder) {
		fs.StringVar(&queue, "queue", "", "queue of the task")
		fs.StringVar(&id, "id", "", "task id")
	})
	if err != nil {
		return helpOK(err)
	}
	defer done()
	if queue == "" || id == "" {
		return usageError("queues delete: --queue and --id are required")
	}
	if err := in.DeleteTask(queue, id); err != nil {
		if errors.Is(err, asynq.ErrTaskNotFound) {
			return fmt.Errorf("queues delete: no task %s in %s", id, queue)
		}
		return fmt.Errorf("queues delete %s %s: %w", queue, id, err)
	}
	fmt.Fprintf(e.stdout, "task %s deleted from %s\n", id, queue)
	return nil
}

func queuesPause(ctx context.Context, e env, args []string, pause bool) error {
	name := map[bool]string{true: "pause", false: "unpause"}[pause]
	var queue string
	in, done, err := inspector(ctx, e, name, args, func(fs fsAdder) {
		fs.StringVar(&queue, "queue", "", "queue: orders, exports or sync")
	})
	if err != nil {
		return helpOK(err)
	}
	defer done()
	if queue == "" {
		return usageError("queues " + name + ": --queue is required")
	}
	if pause {
		err = in.PauseQueue(queue)
	} else {
		err = in.UnpauseQueue(queue)
	}
	if err != nil {
		return fmt.Errorf("queues %s %s: %w", name, queue, err)
	}
	fmt.Fprintf(e.stdout, "queue %s %sd\n", queue, name)
	return nil
}

func queuesWorkers(ctx context.Context, e env, args []string) error {
	in, done, err := inspector(ctx, e, "workers", args, nil)
	if err != nil {
		return helpOK(err)
	}
	defer done()
	servers, err := in.Servers()
	if err != nil {
		return fmt.Errorf("queues workers: %w", err)
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "HOST\tPID\tSTATUS\tCONCURRENCY\tACTIVE\tSTARTED")
	for _, s := range servers {
		fmt.Fprintf(tw, "%s\t%d\t%s\t%d\t%d\t%s\n", s.Host, s.PID, s.Status, s.Concurrency, len(s.ActiveWorkers), s.Started.UTC().Format(time.RFC3339))
	}
	if len(servers) == 0 {
		fmt.Fprintln(tw, "(no workers)")
	}
	return tw.Flush()
}
