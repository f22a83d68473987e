package main

import (
	"context"
	"fmt"
	"runtime"
	"runtime/debug"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "dev"

func versionCommand() command {
	return command{
		name:    "version",
		summary: "print the version and build information",
		run: func(ctx context.Context, e env, args []string) error {
			fs := newFlagSet(e, "version", "version")
			if err := parseFlags(fs, e, args); err != nil {
				return helpOK(err)
			}
			rev := ""
			if bi, ok := debug.ReadBuildInfo(); ok {
				for _, s := range bi.Settings {
					if s.Key == "vcs.revision" {
						rev = " " + s.Value
					}
				}
			}
			fmt.Fprintf(e.stdout, "printworker %s%s %s %s/%s\n", version, rev, runtime.Version(), runtime.GOOS, runtime.GOARCH)
			return nil
		},
	}
}
