package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/printworker/printworker/preflight"
	"github.com/printworker/printworker/profiles"
)

// maxPreflightFile is the largest file preflight reads (it holds the file in
// memory while it checks it).
const maxPreflightFile = 2 << 30

// preflightCommand checks print files made by anyone (docs/preflight.md).
func preflightCommand() command {
	return command{
		name:    "preflight",
		summary: "check PDF, PNG and TIFF print files (PDF/X-4 conformance, ink, resolution, bleed, plates)",
		run: func(ctx context.Context, e env, args []string) error {
			fs := newFlagSet(e, "preflight", "preflight [--profile NAME] [--profiles FILE] [--json] [--report-dir DIR] FILE...\n\nChecks each file with the check profile: pdfx4 (PDF/X-4 conformance) or a production\nprofile's name (its PDF/X-4 conformance and print checks). Exit status 0 without\nerror findings, 1 with any, 2 on usage errors. See docs/preflight.md.")
			prof := fs.String("profile", preflight.PDFX4, "check profile: pdfx4, a built-in production profile or one of --profiles FILE")
			file := fs.String("profiles", "", "JSON file of production profiles and the rules choosing them per store, product and view (docs/profiles.md)")
			asJSON := fs.Bool("json", false, `print the report as JSON: {"files": [{"file", "verdict", "findings", "inks"}]}`)
			reportDir := fs.String("report-dir", "", "folder to write each file's report into, as NAME.preflight.json and NAME.preflight.html")
			files, err := parseWithFiles(fs, e, args)
			if err != nil {
				return helpOK(err)
			}
			if len(files) == 0 {
				fs.Usage()
				return usageError("preflight: no file given")
			}
			var pf *profiles.File
			if *file != "" {
				if pf, err = profiles.ReadFile(*file); err != nil {
					return usageError(err.Error())
				}
			}
			rules, err := profiles.CheckProfile(*prof, pf)
			if err != nil {
				return usageError(err.Error())
			}
			rep := preflight.Report{Files: []preflight.FileReport{}}
			failed := false
			for _, name := range files {
				if err := ctx.Err(); err != nil {
					return err
				}
				fr, err := preflightFile(name, rules)
				if err != nil {
					return err
				}
				if fr.Verdict == preflight.Fail {
					failed = true
				}
				if *reportDir != "" {
					if err := writeReports(*reportDir, fr); err != nil {
						return err
					}
				}
				rep.Files = append(rep.Files, fr)
			}
			if *asJSON {
				enc := json.NewEncoder(e.stdout)
				enc.SetIndent("", "  ")
				if err := enc.Encode(rep); err != nil {
					return err
				}
			} else {
				for _, fr := range rep.Files {
					printFileReport(e.stdout, fr)
				}
			}
			if failed {
				return errPreflightFailed
			}
			return nil
		},
	}
}

// errPreflightFailed: some file has an error finding (exit status 1).
var errPreflightFailed = errors.New("preflight: a file has errors")

// parseWithFiles parses flags that may stand before, between and after the file
// names (parseFlags takes flags only).
func parseWithFiles(fs *flag.FlagSet, e env, args []string) ([]string, error) {
	var files []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, err
			}
			return nil, usageError(err.Error())
		}
		if fs.NArg() == 0 {
			break
		}
		files = append(files, fs.Arg(0))
		args = fs.Args()[1:]
	}
	return files, parseFlags(fs, e, nil)
}

// preflightFile reads and checks one file; a file that cannot be read is an
// error finding of its own, not the end of the run.
func preflightFile(name string, r preflight.Rules) (preflight.FileReport, error) {
	st, err := os.Stat(name)
	if err == nil && st.Size() > maxPreflightFile {
		err = fmt.Errorf("%d bytes: larger than the %d preflight reads", st.Size(), maxPreflightFile)
	}
	var b []byte
	if err == nil {
		b, err = os.ReadFile(name)
	}
	if err != nil {
		return preflight.FileReport{File: name, Verdict: preflight.Fail, Findings: []preflight.Finding{
			{Code: "file.unreadable", Severity: preflight.Error, Message: err.Error()}}}, nil
	}
	fr := preflight.Check(name, b, r, preflight.DefaultLimits)
	return fr, nil
}

func printFileReport(w io.Writer, fr preflight.FileReport) {
	tac := "not measured"
	if fr.Inks.TACMax != nil {
		tac = fmt.Sprintf("%.1f %%", *fr.Inks.TACMax)
	}
	fmt.Fprintf(w, "%s: %s (total ink %s)\n", fr.File, fr.Verdict, tac)
	for _, f := range fr.Findings {
		where := ""
		if f.Page > 0 {
			where = fmt.Sprintf(" page %d:", f.Page)
		}
		fmt.Fprintf(w, "  %-7s %s%s %s\n", f.Severity, f.Code, where, f.Message)
	}
}

// writeReports writes NAME.preflight.json and NAME.preflight.html into dir.
func writeReports(dir string, fr preflight.FileReport) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	base := filepath.Join(dir, filepath.Base(fr.File)+".preflight")
	b, err := json.MarshalIndent(fr, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(base+".json", append(b, '\n'), 0o644); err != nil {
		return err
	}
	return os.WriteFile(base+".html", []byte(preflight.HTML(fr)), 0o644)
}
