package main

import (
	"context"
	"errors"
)

// hubsimCommand is replaced by the simulator's real command (hub/hubsim).
func hubsimCommand() command {
	return command{
		name:    "hubsim",
		summary: "serve the hub simulator (for tests, the demo and staging)",
		run: func(ctx context.Context, e env, args []string) error {
			return errors.New("hubsim: not built yet")
		},
	}
}
