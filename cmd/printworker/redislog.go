package main

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync/atomic"
)

// redisLogs routes go-redis's own log lines (pool dial failures, Sentinel failovers)
// through the running command's slog logger; go-redis printed them raw on stderr,
// in the middle of JSON logs and before a command's one-line error.
//
// go-redis has a single process-wide logger (redis.SetLogger), so main installs one
// redisLogs, once, and hands it to the command in env; each command points it at
// its logger as soon as it has one (logFlags.logger, cliLogger). Tests that call run
// in-process leave it out and keep the library's default.
type redisLogs struct {
	l atomic.Pointer[slog.Logger]
}

// use sends the lines to l from now on (nil-safe: a process without redisLogs keeps
// the library's default).
func (r *redisLogs) use(l *slog.Logger) {
	if r != nil {
		r.l.Store(l)
	}
}

// Printf implements go-redis's internal.Logging. The lines are logged at debug: the
// same failures reach the operator as the command's own error, a warning on start,
// /readyz and 503s, while during an outage go-redis repeats them for every dial.
func (r *redisLogs) Printf(ctx context.Context, format string, v ...any) {
	l := r.l.Load()
	if l == nil {
		return
	}
	l.Log(ctx, slog.LevelDebug, strings.TrimSpace(fmt.Sprintf(format, v...)), "component", "go-redis")
}
