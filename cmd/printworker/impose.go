package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/printworker/printworker/impose"
)

// imposeJob is what the impose command was asked to do.
type imposeJob struct {
	template, out, batch string
	items                []string
}

func imposeCommand() command {
	return command{
		name:    "impose",
		summary: "impose PDF items (cards, labels) on press sheets: n-up, cut-and-stack, duplex, marks, codes",
		run: func(ctx context.Context, e env, args []string) error {
			fs := newFlagSet(e, "impose", "impose --template FILE.json --out DIR ITEM.pdf...")
			j := imposeJob{}
			fs.StringVar(&j.template, "template", "", "imposition template (JSON: sheet, margins, gutter, duplex, order, marks, codes)")
			fs.StringVar(&j.out, "out", "", "folder to write sheets.pdf and impose.json to (created if missing)")
			fs.StringVar(&j.batch, "batch", "", "batch name in every sheet's slug (default: the --out folder's name)")
			// The items follow the flags: parse once to find where they start, then
			// parse the flags alone (parseFlags refuses arguments) with the environment.
			if err := fs.Parse(args); err != nil {
				if errors.Is(err, flag.ErrHelp) {
					return nil
				}
				return usageError(err.Error())
			}
			j.items = fs.Args()
			if err := parseFlags(fs, e, args[:len(args)-len(j.items)]); err != nil {
				return helpOK(err)
			}
			if j.template == "" || j.out == "" || len(j.items) == 0 {
				return usageError("impose: --template, --out and at least one ITEM.pdf are required")
			}
			return runImpose(ctx, e, j)
		},
	}
}

func runImpose(ctx context.Context, e env, j imposeJob) error {
	f, err := os.Open(j.template)
	if err != nil {
		return usageError(fmt.Sprintf("impose: --template: %v", err))
	}
	t, err := impose.ParseTemplate(f)
	f.Close()
	if err != nil {
		return usageError(fmt.Sprintf("impose: %s: %v", j.template, err))
	}
	in := make([]impose.Input, len(j.items))
	read := map[string][]byte{}
	for i, name := range j.items {
		b, ok := read[name]
		if !ok {
			if b, err = readItemFile(name); err != nil {
				return fmt.Errorf("impose: %w", err)
			}
			read[name] = b
		}
		in[i] = impose.Input{Name: name, Data: b}
	}
	batch := j.batch
	if batch == "" {
		batch = filepath.Base(filepath.Clean(j.out))
	}
	var pdf bytes.Buffer
	res, err := impose.Impose(ctx, &pdf, t, in, impose.Options{Batch: batch, Created: time.Now().UTC().Truncate(time.Second)})
	if err != nil {
		return fmt.Errorf("impose: %w", err)
	}
	doc, err := json.MarshalIndent(res, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(j.out, 0o755); err != nil {
		return fmt.Errorf("impose: %w", err)
	}
	// The sheets first, the layout last: a folder with impose.json is complete.
	for _, w := range []struct {
		name string
		data []byte
	}{{"sheets.pdf", pdf.Bytes()}, {"impose.json", append(doc, '\n')}} {
		if err := writeFileAtomic(filepath.Join(j.out, w.name), w.data); err != nil {
			return fmt.Errorf("impose: %w", err)
		}
	}
	fmt.Fprintf(e.stdout, "%d copies on %d sheet(s): %s\n", len(in), res.Sheets, filepath.Join(j.out, "sheets.pdf"))
	return nil
}

// readItemFile reads an item PDF, refusing what is not a regular file.
func readItemFile(name string) ([]byte, error) {
	st, err := os.Stat(name)
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a file", name)
	}
	return os.ReadFile(name)
}
