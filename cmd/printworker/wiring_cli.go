package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/printworker/printworker/hub"
	"github.com/printworker/printworker/jobs"
)

// The connection flags of the operator commands (enqueue, templates).

// cliRedis connects to the queue's Redis.
type cliRedis struct{ url string }

func addCLIRedisFlags(fs *flag.FlagSet) *cliRedis {
	r := &cliRedis{}
	fs.StringVar(&r.url, "redis-url", "redis://127.0.0.1:6379/0", "Redis holding the job queue (redis://[:password@]host:port/db)")
	return r
}

// enqueuer connects and checks Redis answers, so a wrong URL fails now with one line
// rather than at the first enqueue.
func (r *cliRedis) enqueuer(ctx context.Context, log *slog.Logger) (*jobs.Enqueuer, func(), error) {
	opt, err := redis.ParseURL(r.url)
	if err != nil {
		return nil, nil, usageError("--redis-url: " + err.Error())
	}
	rdb := redis.NewClient(opt)
	pctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if err := rdb.Ping(pctx).Err(); err != nil {
		rdb.Close()
		return nil, nil, fmt.Errorf("redis %s: %w", redactRedisURL(r.url), err)
	}
	enq, err := jobs.NewEnqueuer(rdb, jobs.EnqueuerConfig{Logger: log})
	if err != nil {
		rdb.Close()
		return nil, nil, err
	}
	return enq, func() { enq.Close(); rdb.Close() }, nil
}

// cliHub builds a hub client.
type cliHub struct {
	url, store, key, secret, encoding string
	templatesURL, templatesVersion    string
	word                              string
	timeout                           time.Duration
}

func addCLIHubFlags(fs *flag.FlagSet) *cliHub {
	h := &cliHub{}
	fs.StringVar(&h.url, "hub-url", "", "base URL of the hub (every resource unless overridden)")
	fs.StringVar(&h.store, "hub-store", "", "hub store id")
	fs.StringVar(&h.key, "hub-api-key", "", "hub API key")
	fs.StringVar(&h.secret, "hub-secret", "", "hub API secret")
	fs.String("hub-secret-file", "", "file holding the hub API secret")
	fs.StringVar(&h.encoding, "hub-signature-encoding", "hex", "signature encoding: hex or base64")
	fs.StringVar(&h.templatesURL, "hub-templates-url", "", "base URL of the templates resource (default --hub-url)")
	fs.StringVar(&h.templatesVersion, "hub-templates-version", string(hub.V2022), "API version of the templates resource: v1, 2022-08 or 2023-10")
	fs.StringVar(&h.word, "hub-header-word", hub.DefaultWord, "vendor word of the header names (X-<Word>-Store)")
	fs.DurationVar(&h.timeout, "hub-timeout", hub.DefaultTimeout, "bound of one hub call")
	return h
}

func (h *cliHub) client(log *slog.Logger) (*hub.Client, error) {
	enc, err := hub.ParseSignatureEncoding(h.encoding)
	if err != nil {
		return nil, usageError(err.Error())
	}
	v, err := hub.ParseVersion(h.templatesVersion)
	if err != nil {
		return nil, usageError(err.Error())
	}
	if h.url == "" && h.templatesURL == "" {
		return nil, usageError("--hub-url is required")
	}
	c, err := hub.NewClient(hub.Config{
		Store: h.store, APIKey: h.key, Secret: h.secret, Encoding: enc, BaseURL: h.url,
		Templates: hub.Endpoint{BaseURL: h.templatesURL, Version: v, Word: h.word},
		Orders:    hub.Endpoint{Word: h.word},
		Designs:   hub.Endpoint{Word: h.word},
		Timeout:   h.timeout, Logger: log,
	})
	if err != nil {
		return nil, usageError(err.Error())
	}
	return c, nil
}

// cliLogger logs warnings and errors to stderr: operator commands print their results
// on stdout and keep stderr for trouble.
func cliLogger(e env) *slog.Logger {
	return slog.New(slog.NewTextHandler(e.stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
}

// subcommand dispatches "<cmd> <action> [flags]".
func subcommand(ctx context.Context, e env, cmd string, args []string, actions map[string]func(context.Context, env, []string) error, help string) error {
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
