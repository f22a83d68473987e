package main

import (
	"context"
	"fmt"
	"io"
	iofs "io/fs"
	"os"
	"path"
	"path/filepath"
	"runtime/debug"

	"github.com/printworker/printworker/gang"
	"github.com/printworker/printworker/render"
)

// gangJob is what the gang command was asked to do.
type gangJob struct {
	dir, out           string
	width, gap, margin gang.Length
	maxLength          gang.Length
	dpi                float64
	rotate, sheets     bool
	labels, cutMarks   bool
	codes              bool
	dryRun             bool
	pdf                bool
	previewWidth       int
	memoryLimitMiB     int
	// group and store name a gang group's pending designs in Redis (instead of
	// --dir): build them now, or with --dry-run show their layout.
	group, store string
	redis        *redisFlags
	routing      *routingFlags
}

func gangCommand() command {
	return command{
		name:    "gang",
		summary: "nest rendered PNG designs onto a roll or sheets (gang sheet) and write it",
		run: func(ctx context.Context, e env, args []string) error {
			fs := newFlagSet(e, "gang", "gang --dir FOLDER --out DIR [--width 22in] [--dpi 300] [--gap 5mm] [--dry-run]\n   or: gang --group NAME --store ID --routing-rules FILE [--redis-url URL] [--dry-run]")
			j := gangJob{}
			j.width, _ = gang.ParseLength("22in")
			j.gap, _ = gang.ParseLength("5mm")
			j.margin, _ = gang.ParseLength("5mm")
			j.maxLength, _ = gang.ParseLength("10m")
			fs.StringVar(&j.dir, "dir", "", "folder of rendered PNG files and their order manifests (manifest.json), searched recursively")
			fs.StringVar(&j.out, "out", "", "folder to write the sheets, their manifests and previews to (created if missing)")
			fs.Var(&j.width, "width", "roll or sheet width with unit: 22in, 56cm, 580mm")
			fs.Float64Var(&j.dpi, "dpi", 300, "sheet resolution; designs must have been rendered at it (never resampled)")
			fs.Var(&j.gap, "gap", "clear space between two copies' artwork")
			fs.Var(&j.margin, "margin", "clear border around the sheet")
			fs.BoolVar(&j.rotate, "rotate", true, "allow turning copies by 90 degrees")
			fs.Var(&j.maxLength, "max-length", "longest roll section (a longer layout continues on the next); with --sheets the sheet length")
			fs.BoolVar(&j.sheets, "sheets", false, "fixed sheets of --width x --max-length instead of a roll cut to the length used")
			fs.BoolVar(&j.labels, "labels", false, "print a small order/line/copy label under each copy")
			fs.BoolVar(&j.codes, "codes", false, "print a Code 128 barcode (order-line-copy) under each copy")
			fs.BoolVar(&j.cutMarks, "cut-marks", false, "print corner cut marks in the gap around each copy")
			fs.BoolVar(&j.pdf, "pdf", false, "also write each sheet as a PDF with the designs embedded at native resolution")
			fs.BoolVar(&j.dryRun, "dry-run", false, "print the layout and utilisation; write nothing")
			fs.IntVar(&j.previewWidth, "preview-width", 800, "width in pixels of the staff preview PNG written next to each sheet (0: none)")
			fs.IntVar(&j.memoryLimitMiB, "memory-limit", gang.DefaultMemoryLimit>>20, "soft memory limit of the process in MiB while rendering (0: Go's default, or GOMEMLIMIT)")
			fs.StringVar(&j.group, "group", "", "gang group of the routing rules: build its pending designs now (enqueues a build) instead of reading --dir")
			fs.StringVar(&j.store, "store", "", "hub store id of the --group's pending designs")
			j.redis = addRedisFlags(fs)
			j.routing = addRoutingFlags(fs)
			if err := parseFlags(fs, e, args); err != nil {
				return helpOK(err)
			}
			if j.group != "" || j.store != "" {
				return runGangPending(ctx, e, j)
			}
			if j.memoryLimitMiB < 0 {
				return usageError("gang: --memory-limit must not be negative")
			}
			if j.dir == "" || (j.out == "" && !j.dryRun) {
				return usageError("gang: --dir and --out are required (--out not with --dry-run)")
			}
			if j.previewWidth < 0 {
				return usageError("gang: --preview-width must not be negative")
			}
			return runGang(ctx, e, j)
		},
	}
}

func (j gangJob) config() gang.Config {
	c := gang.Config{
		DPI: j.dpi, Width: j.width.Pixels(j.dpi), MaxLength: j.maxLength.Pixels(j.dpi),
		Sheets: j.sheets, Gap: j.gap.Pixels(j.dpi), Margin: j.margin.Pixels(j.dpi),
		Rotate: j.rotate, CutMarks: j.cutMarks,
	}
	if j.labels {
		c.Label = gang.LabelPx(j.dpi)
	}
	if j.codes {
		c.Code = gang.CodePx(j.dpi)
	}
	return c
}

func runGang(ctx context.Context, e env, j gangJob) error {
	if st, err := os.Stat(j.dir); err != nil || !st.IsDir() {
		return usageError(fmt.Sprintf("gang: --dir %s is not a folder", j.dir))
	}
	fsys := os.DirFS(j.dir)
	designs, probs, err := gang.ReadFolder(ctx, fsys)
	if err != nil {
		return fmt.Errorf("gang: read %s: %w", j.dir, err)
	}
	for _, p := range probs {
		fmt.Fprintf(e.stderr, "skipped %s: %s\n", p.Key, p.Reason)
	}
	l, err := gang.Plan(designs, j.config())
	if l != nil {
		for _, r := range l.Rejected {
			fmt.Fprintf(e.stderr, "left off %s: %s\n", r.Key, r.Reason)
		}
	}
	if err != nil {
		return err
	}
	if j.dryRun {
		printLayout(e.stdout, l)
	} else if err := writeSheets(ctx, e, j, l, fsys); err != nil {
		return err
	}
	if n := len(l.Rejected) + len(probs); n > 0 {
		return fmt.Errorf("gang: %d design file(s) left off the sheets (listed above and in the sheet manifests)", n)
	}
	return nil
}

// sheetName is the base name of sheet i's files.
func sheetName(i int) string { return fmt.Sprintf("sheet-%03d", i+1) }

func writeSheets(ctx context.Context, e env, j gangJob, l *gang.Layout, fsys iofs.FS) error {
	if err := os.MkdirAll(j.out, 0o755); err != nil {
		return fmt.Errorf("gang: %w", err)
	}
	if j.memoryLimitMiB > 0 {
		// Rendering decodes design after design; near the limit the collector reuses
		// their freed buffers instead of letting the heap double (docs/gang.md).
		defer debug.SetMemoryLimit(debug.SetMemoryLimit(int64(j.memoryLimitMiB) << 20))
	}
	for i := range l.Sheets {
		name := sheetName(i)
		if err := writeGangFile(j.out, name+".png", func(w io.Writer) error {
			return gang.Render(ctx, w, l, i, gang.FolderLoader{FS: fsys}, render.PNGOptions{})
		}); err != nil {
			return err
		}
		if j.pdf {
			if err := writeGangFile(j.out, name+".pdf", func(w io.Writer) error {
				return gang.RenderPDF(ctx, w, l, i, gang.FolderLoader{FS: fsys})
			}); err != nil {
				return err
			}
		}
		m := l.Manifest(i, name+".png")
		b, err := gang.MarshalManifest(m)
		if err != nil {
			return fmt.Errorf("gang: %w", err)
		}
		if err := writeGangFile(j.out, name+".json", func(w io.Writer) error { _, err := w.Write(b); return err }); err != nil {
			return err
		}
		if j.previewWidth > 0 {
			if err := writeGangFile(j.out, name+"-preview.png", func(w io.Writer) error {
				return render.EncodePNG(ctx, w, l.Preview(i, j.previewWidth), render.PNGOptions{})
			}); err != nil {
				return err
			}
		}
		fmt.Fprintf(e.stdout, "%s.png  %d copies  %.2f x %.2f mm  utilisation %.1f %%\n", name, len(m.Copies), m.WidthMM, m.LengthMM, 100*m.Utilisation)
	}
	return nil
}

// writeGangFile writes through a temporary file renamed into place: a RIP's hot
// folder never sees half a sheet.
func writeGangFile(dir, name string, write func(io.Writer) error) error {
	tmp, err := os.CreateTemp(dir, ".gang-*")
	if err != nil {
		return fmt.Errorf("gang: %w", err)
	}
	defer os.Remove(tmp.Name())
	err = write(tmp)
	if cerr := tmp.Close(); err == nil && cerr != nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp.Name(), 0o644)
	}
	if err == nil {
		err = os.Rename(tmp.Name(), filepath.Join(dir, name))
	}
	if err != nil {
		return fmt.Errorf("gang: %s: %w", name, err)
	}
	return nil
}

// printLayout is --dry-run's report: per sheet its size and utilisation, then one
// line per copy.
func printLayout(w io.Writer, l *gang.Layout) {
	for i := range l.Sheets {
		m := l.Manifest(i, sheetName(i)+".png")
		fmt.Fprintf(w, "%s: %d x %d px (%.0f x %.0f mm) at %g dpi, %d copies, utilisation %.1f %% (artwork area / sheet area; area bound on the length %.0f mm)\n",
			sheetName(i), m.WidthPx, m.LengthPx, m.WidthMM, m.LengthMM, m.DPI, len(m.Copies), 100*m.Utilisation,
			float64(m.LowerBoundLengthPx)/m.DPI*25.4)
		for _, c := range m.Copies {
			who := path.Base(c.File)
			if c.OrderID != "" {
				who = fmt.Sprintf("order %s line %d", c.OrderID, c.Line)
			}
			fmt.Fprintf(w, "  %-28s copy %d/%d  at %7.1f,%7.1f mm  %6.1f x %6.1f mm  rot %2d  %s\n",
				who, c.Copy, c.Of, c.XMM, c.YMM, c.WMM, c.HMM, c.Rotation, c.File)
		}
	}
}
