package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
)

// env is what every subcommand gets from the process: a way to read the environment
// (so tests can pass their own), and the output streams.
type env struct {
	getenv func(string) string
	stdout io.Writer
	stderr io.Writer
	// redisLogs receives go-redis's log lines (nil: the library's default).
	redisLogs *redisLogs
	// collect, when set, receives each command's flag set in place of parsing it
	// (commandFlagSets: the settings file is checked against every command).
	collect func(*flag.FlagSet)
}

// command is one subcommand of printworker.
type command struct {
	name    string
	summary string
	// run parses args with the command's own flag set and does the work.
	run func(ctx context.Context, e env, args []string) error
}

// commands lists the subcommands. Each lives in its own file as a constructor so that
// main keeps no global registry.
func commands() []command {
	cmds := []command{
		versionCommand(),
		hubsimCommand(),
		serveCommand(),
		demoCommand(),
		enqueueCommand(),
		templatesCommand(),
		workCommand(),
		queuesCommand(),
		queueMetricsCommand(),
		reconcileCommand(),
		renderCommand(),
		profilesCommand(),
		preflightCommand(),
		gangCommand(),
		imposeCommand(),
		reviewCommand(),
		storesCommand(),
		configCommand(),
	}
	sort.Slice(cmds, func(i, j int) bool { return cmds[i].name < cmds[j].name })
	return cmds
}

// run is the whole program; tests call it in-process.
func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	return runEnv(ctx, env{getenv: getenv, stdout: stdout, stderr: stderr}, args)
}

// runEnv is run with the whole env (main adds the go-redis log router).
func runEnv(ctx context.Context, e env, args []string) error {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		usage(e.stdout)
		if len(args) == 0 {
			return usageError("no command given")
		}
		return nil
	}
	for _, c := range commands() {
		if c.name == args[0] {
			return c.run(ctx, e, args[1:])
		}
	}
	usage(e.stderr)
	return usageError(fmt.Sprintf("unknown command %q", args[0]))
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "printworker turns personalized orders into print-production files.")
	fmt.Fprintln(w, "\nUsage: printworker <command> [flags]\n\nCommands:")
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-14s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w, "\nEvery flag --some-name can also be set as PRINTWORKER_SOME_NAME; a flag on the")
	fmt.Fprintln(w, "command line wins. Secrets also read from files: --x-file / PRINTWORKER_X_FILE.")
	fmt.Fprintln(w, "Run 'printworker <command> --help' for a command's flags, grouped by concern.")
}

// errUsage marks errors in how the program was called (exit status 2).
type errUsage struct{ msg string }

func (e errUsage) Error() string { return e.msg }

func usageError(msg string) error { return errUsage{msg} }

func exitCode(err error) int {
	var u errUsage
	if errors.As(err, &u) {
		return 2
	}
	return 1
}

// oneLine folds an error into one line for the final message; the lines of a joined
// error (every bad setting at once) stay apart as "; ".
func oneLine(err error) string {
	var parts []string
	for _, l := range strings.Split(err.Error(), "\n") {
		if l = strings.Join(strings.Fields(l), " "); l != "" {
			parts = append(parts, l)
		}
	}
	return strings.Join(parts, "; ")
}

// envName is the one naming rule between flags and environment variables:
// --hub-url <-> PRINTWORKER_HUB_URL.
func envName(flagName string) string {
	return "PRINTWORKER_" + strings.ToUpper(strings.ReplaceAll(flagName, "-", "_"))
}

// newFlagSet makes a command's flag set that reports errors instead of exiting.
func newFlagSet(e env, name, synopsis string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(e.stdout)
	fs.Usage = func() { printHelp(e.stdout, fs, synopsis) }
	addConfigFlag(fs)
	return fs
}

// parseFlags parses args, then fills every flag not given on the command line from its
// environment variable, then every flag still unset from the settings file (--config),
// then resolves secret files: for a flag "x" with a companion
// "x-file", a non-empty x-file is read (trailing newline trimmed) into x.
// errHelp is returned as-is so commands can exit 0 after printing help.
func parseFlags(fs *flag.FlagSet, e env, args []string) error {
	if e.collect != nil {
		e.collect(fs)
		return errCollected
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return usageError(err.Error())
	}
	if fs.NArg() > 0 {
		return usageError(fmt.Sprintf("%s: unexpected argument %q", fs.Name(), fs.Arg(0)))
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	var errs []error
	fs.VisitAll(func(f *flag.Flag) {
		if set[f.Name] {
			return
		}
		if v := e.getenv(envName(f.Name)); v != "" {
			set[f.Name] = true
			if err := f.Value.Set(v); err != nil {
				errs = append(errs, fmt.Errorf("%s: %w", envName(f.Name), err))
			}
		}
	})
	if len(errs) == 0 {
		if err := loadSettings(fs, e, set); err != nil {
			errs = append(errs, err)
		}
	}
	fs.VisitAll(func(f *flag.Flag) {
		base, ok := strings.CutSuffix(f.Name, "-file")
		if !ok || f.Value.String() == "" {
			return
		}
		target := fs.Lookup(base)
		if target == nil {
			return
		}
		b, err := os.ReadFile(f.Value.String())
		if err != nil {
			errs = append(errs, fmt.Errorf("--%s: %w", f.Name, err))
			return
		}
		if err := target.Value.Set(strings.TrimRight(string(b), "\r\n")); err != nil {
			errs = append(errs, fmt.Errorf("--%s: %w", f.Name, err))
		}
	})
	if len(errs) > 0 {
		return usageError(errors.Join(errs...).Error())
	}
	return nil
}

// helpOK turns flag.ErrHelp into success: asking for help is not a failure.
func helpOK(err error) error {
	if errors.Is(err, flag.ErrHelp) {
		return nil
	}
	return err
}

// stringList is a repeatable / comma-separated flag.
type stringList []string

func (s *stringList) String() string { return strings.Join(*s, ",") }
func (s *stringList) Set(v string) error {
	for _, p := range strings.Split(v, ",") {
		if p = strings.TrimSpace(p); p != "" {
			*s = append(*s, p)
		}
	}
	return nil
}
