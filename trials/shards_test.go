//go:build trial

package trials

import (
	"github.com/hibiken/asynq"

	"github.com/printworker/printworker/jobs"
)

// withExportShards returns qs with jobs.QueueExports standing for every export queue
// shard of the default --export-queue-shards, which the processes under test use.
func withExportShards(qs ...string) []string {
	return jobs.WithExportShards(jobs.DefaultExportShards, qs...)
}

// archivedExports lists the archived tasks of every export queue shard.
func archivedExports(insp *asynq.Inspector) []*asynq.TaskInfo {
	return exportTasks(insp.ListArchivedTasks)
}

// activeExports lists the running tasks of every export queue shard.
func activeExports(insp *asynq.Inspector) []*asynq.TaskInfo {
	return exportTasks(insp.ListActiveTasks)
}

// exportTasks gathers what list returns for every export queue shard.
func exportTasks(list func(string, ...asynq.ListOption) ([]*asynq.TaskInfo, error)) []*asynq.TaskInfo {
	var out []*asynq.TaskInfo
	for _, q := range jobs.ExportQueues(jobs.DefaultExportShards) {
		ts, _ := list(q)
		out = append(out, ts...)
	}
	return out
}
