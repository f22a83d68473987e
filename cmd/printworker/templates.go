package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"text/tabwriter"

	"github.com/printworker/printworker/filenames"
	"github.com/printworker/printworker/internal/progress"
	"github.com/printworker/printworker/jobs"
	"github.com/printworker/printworker/model"
	"github.com/printworker/printworker/worker"
)

const templatesHelp = `Usage: printworker templates <action> [flags]

Keeps the hub's product templates (spec 2.5) in line with a folder of template JSON
files, one per product, keyed by productId.

Actions:
  list   list the store's templates on the hub
  pull   write every template of the hub to --dir as <productId>.json
  sync   create, update (and with --prune delete) hub templates to match --dir;
         --dry-run prints the plan only; --queue runs it on a worker instead

Run 'printworker templates <action> --help' for its flags.
`

func templatesCommand() command {
	return command{
		name:    "templates",
		summary: "list, pull and sync the hub's product templates",
		run: func(ctx context.Context, e env, args []string) error {
			return subcommand(ctx, e, "templates", args, map[string]func(context.Context, env, []string) error{
				"list": templatesList,
				"pull": templatesPull,
				"sync": templatesSync,
			}, templatesHelp)
		},
	}
}

func templatesList(ctx context.Context, e env, args []string) error {
	fs := newFlagSet(e, "templates list", "templates list --hub-url U --hub-store S --hub-api-key K --hub-secret X")
	hf := addHubFlags(fs)
	rt := addRetryFlags(fs)
	if err := parseFlags(fs, e, args); err != nil {
		return helpOK(err)
	}
	hc, _, err := hf.client(cliLogger(e))
	if err != nil {
		return err
	}
	c := rt.wrap(hc, cliLogger(e))
	tw := tabwriter.NewWriter(e.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "PRODUCT ID\tNAME\tTEMPLATE ID\tUPDATED")
	n := 0
	for s, err := range c.AllTemplates(ctx) {
		if err != nil {
			tw.Flush()
			return fmt.Errorf("templates list: %w", err)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", s.ProductID, s.Name, s.ID, s.Updated)
		n++
	}
	tw.Flush()
	fmt.Fprintf(e.stdout, "%d templates\n", n)
	return nil
}

func templatesPull(ctx context.Context, e env, args []string) error {
	fs := newFlagSet(e, "templates pull", "templates pull --dir D [hub flags]\n\nWrites each template as <productId>.json (the form sync reads back); existing files\nof the same name are replaced, others are left alone.")
	dir := fs.String("dir", "", "folder to write the templates to (created when missing)")
	hf := addHubFlags(fs)
	rt := addRetryFlags(fs)
	if err := parseFlags(fs, e, args); err != nil {
		return helpOK(err)
	}
	if *dir == "" {
		return usageError("--dir required")
	}
	hc, _, err := hf.client(cliLogger(e))
	if err != nil {
		return err
	}
	c := rt.wrap(hc, cliLogger(e))
	// List first, so the progress has a total and a failed listing writes nothing.
	var all []model.TemplateSummary
	for s, err := range c.AllTemplates(ctx) {
		if err != nil {
			return fmt.Errorf("templates pull: %w", err)
		}
		all = append(all, s)
	}
	if err := os.MkdirAll(*dir, 0o755); err != nil {
		return fmt.Errorf("templates pull: %w", err)
	}
	bar := progress.New(e.stderr, "templates", len(all))
	defer bar.Finish()
	seen := map[string]string{}
	for _, s := range all {
		// The list may leave _id out; the productId addresses the template too.
		key := worker.TemplateKey(s)
		t, err := c.GetTemplate(ctx, key)
		if err != nil {
			return fmt.Errorf("templates pull: %s (%s): %w", s.ProductID, key, err)
		}
		name, err := templateFileName(t.ProductID, key)
		if err != nil {
			return fmt.Errorf("templates pull: %w", err)
		}
		if prev, dup := seen[name]; dup {
			return fmt.Errorf("templates pull: templates %s and %s both map to %s", prev, key, name)
		}
		seen[name] = key
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		if err := enc.Encode(t); err != nil {
			return fmt.Errorf("templates pull: %s: %w", s.ProductID, err)
		}
		if err := writeFileAtomic(filepath.Join(*dir, name), buf.Bytes()); err != nil {
			return fmt.Errorf("templates pull: %w", err)
		}
		bar.Add(1)
	}
	bar.Finish()
	fmt.Fprintf(e.stdout, "%d templates written to %s\n", len(all), *dir)
	return nil
}

// templateFileName is <productId>.json, cleaned so any productId makes one safe name.
func templateFileName(productID, templateID string) (string, error) {
	base := productID
	if base == "" {
		base = "template-" + templateID
	}
	clean := filenames.Clean(base)
	if clean == "" {
		return "", fmt.Errorf("template %s: productId %q gives no usable file name", templateID, productID)
	}
	return clean + ".json", nil
}

// writeFileAtomic writes through a temporary file and a rename, so an interrupted pull
// never leaves a half-written template that a later sync would push.
func writeFileAtomic(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".tmp-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

func templatesSync(ctx context.Context, e env, args []string) error {
	fs := newFlagSet(e, "templates sync", "templates sync --dir D [--dry-run] [--prune] [--queue] [hub flags]\n\nReads every *.json of --dir as one template (productId required and unique) and\nbrings the store's hub templates in line: missing ones created, differing ones\nupdated, equal ones left alone; --prune deletes hub templates absent from --dir.")
	dir := fs.String("dir", "", "folder of template JSON files")
	dryRun := fs.Bool("dry-run", false, "print the plan, change nothing")
	prune := fs.Bool("prune", false, "delete hub templates whose productId is not in --dir")
	queue := fs.Bool("queue", false, "enqueue the sync for a worker instead of running it here (needs --redis-url)")
	hf := addHubFlags(fs)
	rt := addRetryFlags(fs)
	rf := addRedisFlags(fs)
	if err := parseFlags(fs, e, args); err != nil {
		return helpOK(err)
	}
	if *dir == "" {
		return usageError("--dir required")
	}
	src, err := jobs.LoadTemplates(*dir)
	if err != nil {
		return fmt.Errorf("templates sync: %w", err)
	}
	if len(src) == 0 && *prune && !*dryRun {
		// An empty or mistyped folder with --prune would delete every template.
		return usageError(fmt.Sprintf("templates sync: %s holds no templates; refusing to --prune everything (use --dry-run to see)", *dir))
	}
	log := cliLogger(e)
	if *queue {
		// The worker syncs with its own credentials for the store; here --hub-store
		// only names the store.
		if hf.store == "" {
			return usageError("--queue needs --hub-store")
		}
		enq, closeFn, err := rf.enqueuer(ctx, log)
		if err != nil {
			return err
		}
		defer closeFn()
		q, err := enq.SyncTemplates(ctx, hf.store, *dir, *prune, *dryRun)
		if err != nil {
			return fmt.Errorf("templates sync: %w", err)
		}
		printEnqueued(e, q)
		return nil
	}
	c, store, err := hf.client(log)
	if err != nil {
		return err
	}
	rep, err := worker.SyncTemplates(ctx, rt.wrap(c, log), store, src, *prune, *dryRun)
	printSyncReport(e, rep, err)
	if err != nil {
		return fmt.Errorf("templates sync: %w", err)
	}
	return nil
}

// printSyncReport prints the actions carried out (or planned) and a summary line that
// says "done" only when the sync finished: a failed sync lists what it did before the
// failure and says so.
func printSyncReport(e env, rep worker.SyncReport, err error) {
	tw := tabwriter.NewWriter(e.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ACTION\tPRODUCT ID\tNAME\tTEMPLATE ID")
	for _, a := range rep.Actions {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", a.Action, a.ProductID, a.Name, a.TemplateID)
	}
	tw.Flush()
	verb := "done"
	switch {
	case err != nil && rep.DryRun:
		verb = "FAILED while planning (nothing changed)"
	case err != nil:
		verb = "FAILED (the actions above were carried out; the rest were not: run sync again)"
	case rep.DryRun:
		verb = "planned (dry run, nothing changed)"
	}
	fmt.Fprintf(e.stdout, "%d create, %d update, %d delete, %d unchanged: %s\n",
		rep.Count(worker.SyncCreate), rep.Count(worker.SyncUpdate), rep.Count(worker.SyncDelete), rep.Count(worker.SyncUnchanged), verb)
}
