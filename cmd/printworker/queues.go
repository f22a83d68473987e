package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
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
  shards                        the export queue shards of --export-queue-shards and their
                                Redis Cluster hash slots (no Redis needed)

--queue exports names every export queue shard (docs/operations.md#export-queue-shards);
a shard's own name (exports-1a) names that shard alone.

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
				"shards":  queuesShards,
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

// queueGroup is the queues --queue names: QueueExports stands for every export queue
// shard Redis knows (of any shard count, so shards of another fleet setting or left
// over after lowering it are included); any other name for itself.
func queueGroup(in *asynq.Inspector, queue string) ([]string, error) {
	if queue != jobs.QueueExports {
		return []string{queue}, nil
	}
	qs, err := in.Queues()
	if err != nil {
		return nil, fmt.Errorf("queues: %w", err)
	}
	group := []string{jobs.QueueExports}
	for _, q := range jobs.ExportQueues(jobs.MaxExportShards)[1:] {
		if slices.Contains(qs, q) {
			group = append(group, q)
		}
	}
	return group, nil
}

func queuesStats(ctx context.Context, e env, args []string) error {
	in, done, err := inspector(ctx, e, "stats", args, nil)
	if err != nil {
		return helpOK(err)
	}
	defer done()
	qs, err := jobs.Queues(ctx, in.rdb)
	if err != nil {
		return err
	}
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
		fs.StringVar(&queue, "queue", "exports", "queue: orders, exports (every export shard), events, sync, gang, pages or one export shard")
		fs.StringVar(&state, "state", "archived", "pending, active, scheduled, retry, archived or completed")
		fs.IntVar(&limit, "limit", 50, "most tasks listed")
	})
	if err != nil {
		return helpOK(err)
	}
	defer done()
	group, err := queueGroup(in.Inspector, queue)
	if err != nil {
		return err
	}
	var tasks []*asynq.TaskInfo
	for _, q := range group {
		got, err := listTasks(in.Inspector, q, state, limit-len(tasks))
		if errors.Is(err, asynq.ErrQueueNotFound) && len(group) > 1 {
			continue
		}
		if err != nil {
			return err
		}
		tasks = append(tasks, got...)
		if len(tasks) >= limit {
			break
		}
	}
	return printTasks(e.stdout, tasks)
}

// listTasks lists up to limit tasks of one queue in one state.
func listTasks(in *asynq.Inspector, queue, state string, limit int) ([]*asynq.TaskInfo, error) {
	opts := []asynq.ListOption{asynq.PageSize(limit)}
	var tasks []*asynq.TaskInfo
	var err error
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
		return nil, usageError("queues list: --state must be pending, active, scheduled, retry, archived or completed")
	}
	if err != nil {
		return nil, fmt.Errorf("queues list %s %s: %w", queue, state, err)
	}
	return tasks, nil
}

func printTasks(w io.Writer, tasks []*asynq.TaskInfo) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tQUEUE\tTYPE\tRETRIED\tLAST FAILED\tLAST ERROR")
	for _, t := range tasks {
		failed := ""
		if !t.LastFailedAt.IsZero() {
			failed = t.LastFailedAt.UTC().Format(time.RFC3339)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d/%d\t%s\t%s\n", t.ID, t.Queue, t.Type, t.Retried, t.MaxRetry, failed, oneLineString(t.LastErr))
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
	group, err := queueGroup(in.Inspector, queue)
	if err != nil {
		return err
	}
	if id != "" {
		q, err := inGroup(group, id, in.RunTask)
		if err != nil {
			return fmt.Errorf("queues retry %s %s: %w", queue, id, err)
		}
		fmt.Fprintf(e.stdout, "task %s of %s queued to run now\n", id, q)
		return nil
	}
	n := 0
	for _, q := range group {
		k, err := in.RunAllArchivedTasks(q)
		if errors.Is(err, asynq.ErrQueueNotFound) && len(group) > 1 {
			continue
		}
		if err != nil {
			return fmt.Errorf("queues retry %s: %w", q, err)
		}
		n += k
	}
	fmt.Fprintf(e.stdout, "%d archived task(s) of %s queued to run now\n", n, queue)
	return nil
}

// inGroup applies op to task id in the first queue of group that holds it and
// returns that queue: a task id is unique in its queue, and an order's tasks are in
// one export shard.
func inGroup(group []string, id string, op func(queue, id string) error) (string, error) {
	for i, q := range group {
		err := op(q, id)
		if err == nil {
			return q, nil
		}
		notHere := errors.Is(err, asynq.ErrTaskNotFound) || errors.Is(err, asynq.ErrQueueNotFound)
		if !notHere || i == len(group)-1 {
			return "", err
		}
	}
	return "", asynq.ErrTaskNotFound
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
	group, err := queueGroup(in.Inspector, queue)
	if err != nil {
		return err
	}
	q, err := inGroup(group, id, in.DeleteTask)
	if err != nil {
		if errors.Is(err, asynq.ErrTaskNotFound) {
			return fmt.Errorf("queues delete: no task %s in %s", id, queue)
		}
		return fmt.Errorf("queues delete %s %s: %w", queue, id, err)
	}
	fmt.Fprintf(e.stdout, "task %s deleted from %s\n", id, q)
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
	group, err := queueGroup(in.Inspector, queue)
	if err != nil {
		return err
	}
	for _, q := range group {
		if pause {
			err = in.PauseQueue(q)
		} else {
			err = in.UnpauseQueue(q)
		}
		if err != nil {
			return fmt.Errorf("queues %s %s: %w", name, q, err)
		}
		fmt.Fprintf(e.stdout, "queue %s %sd\n", q, name)
	}
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

// queuesShards prints the export queues of --export-queue-shards with their hash
// slots, for KEDA triggers and for checking, with CLUSTER SHARDS, which master
// serves each. It reads no Redis.
func queuesShards(_ context.Context, e env, args []string) error {
	fs := newFlagSet(e, "queues shards", "queues shards [flags]")
	rf := addRedisFlags(fs)
	if err := parseFlags(fs, e, args); err != nil {
		return helpOK(err)
	}
	if err := rf.validateShards(); err != nil {
		return err
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "QUEUE\tSLOT")
	for _, q := range jobs.ExportQueues(rf.exportShards) {
		fmt.Fprintf(tw, "%s\t%d\n", q, jobs.KeySlot(q))
	}
	return tw.Flush()
}
