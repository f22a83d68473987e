// Command printworker turns personalized store orders into print-production files.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/redis/go-redis/v9"
)

func main() {
	applyGCPolicy(os.Args[1:])
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	// go-redis's logger is process-wide: set once, here, and pointed at each
	// command's slog logger through env (redislog.go).
	logs := &redisLogs{}
	redis.SetLogger(logs)
	err := runEnv(ctx, env{getenv: os.Getenv, stdout: os.Stdout, stderr: os.Stderr, redisLogs: logs}, os.Args[1:])
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "printworker: "+oneLine(err))
		os.Exit(exitCode(err))
	}
}
