package main

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/printworker/printworker/hub"
	"github.com/printworker/printworker/jobs"
)

// Helpers of the operator commands (enqueue, templates) over the shared flag groups
// of wiring.go.

// enqueuer connects to Redis (failing now, in one line, when it does not answer) and
// returns a jobs Enqueuer with its closer.
func (r *redisFlags) enqueuer(ctx context.Context, log *slog.Logger) (*jobs.Enqueuer, func(), error) {
	rdb, err := r.connect(ctx)
	if err != nil {
		return nil, nil, err
	}
	enq, err := jobs.NewEnqueuer(rdb, r.enqueuerConfig(log))
	if err != nil {
		rdb.Close()
		return nil, nil, err
	}
	return enq, func() { enq.Close(); rdb.Close() }, nil
}

// client returns the hub client of --hub-store (or of the only store configured).
func (h *hubFlags) client(log *slog.Logger) (*hub.Client, string, error) {
	if h.baseURL == "" && h.templates.url == "" {
		return nil, "", usageError("--hub-url is required")
	}
	clients, err := h.clients(log)
	if err != nil {
		return nil, "", err
	}
	if h.store != "" {
		return clients[h.store], h.store, nil
	}
	if len(clients) == 1 {
		for s, c := range clients {
			return c, s, nil
		}
	}
	return nil, "", usageError(fmt.Sprintf("%d stores configured: choose one with --hub-store", len(clients)))
}

// cliLogger logs warnings and errors to stderr: operator commands print their results
// on stdout and keep stderr for trouble.
func cliLogger(e env) *slog.Logger {
	log := slog.New(slog.NewTextHandler(e.stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	e.redisLogs.use(log)
	return log
}

// subcommand dispatches "<cmd> <action> [flags]".
func subcommand(ctx context.Context, e env, cmd string, args []string, actions map[string]func(context.Context, env, []string) error, help string) error {
	if e.collect != nil {
		for _, run := range actions {
			_ = run(ctx, e, nil)
		}
		return errCollected
	}
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		fmt.Fprint(e.stdout, help)
		if len(args) == 0 {
			return usageError(cmd + ": no action given")
		}
		return nil
	}
	run, ok := actions[args[0]]
	if !ok {
		fmt.Fprint(e.stderr, help)
		return usageError(fmt.Sprintf("%s: unknown action %q", cmd, args[0]))
	}
	return run(ctx, e, args[1:])
}
