package gang

import (
	"context"
	"encoding/json"
	"fmt"
	"image"
	"image/png"
	"io/fs"
	"path"
	"sort"
	"strings"
)

// maxDesignPixels bounds one design file (a 22 in x 40 in design at 600 dpi is 317
// Mpx); a header claiming more is refused before any pixel is decoded.
const maxDesignPixels = 400 << 20

// Problem is an input file that cannot be used, and why; the rest proceed.
type Problem struct {
	Key    string
	Reason string
}

// orderManifest is the part of the worker's order manifest (worker.Manifest,
// "manifest.json" next to the order's files) that a gang sheet needs.
type orderManifest struct {
	OrderID   string `json:"orderId"`
	LineItems []struct {
		DesignID int64    `json:"designId"`
		Quantity int      `json:"quantity"`
		Files    []string `json:"files"`
	} `json:"lineItems"`
	Files []struct {
		Key      string  `json:"key"`
		Filename string  `json:"filename"`
		DesignID int64   `json:"designId"`
		ViewID   string  `json:"viewId"`
		Type     string  `json:"type"`
		DPI      float64 `json:"dpi"`
	} `json:"files"`
}

// ReadFolder finds the designs in fsys: every PNG listed by an order manifest
// ("manifest.json") gets its line's quantity, order id and line number; any other
// PNG counts once. Each file is decoded once to find its alpha-trimmed box. Files
// that cannot be used are returned as problems; the error is for the walk itself.
func ReadFolder(ctx context.Context, fsys fs.FS) ([]Design, []Problem, error) {
	var pngs, manifests []string
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			return nil
		}
		switch {
		case path.Base(p) == "manifest.json":
			manifests = append(manifests, p)
		case strings.EqualFold(path.Ext(p), ".png"):
			pngs = append(pngs, p)
		}
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	var designs []Design
	var probs []Problem
	claimed := map[string]bool{}
	for _, mp := range manifests {
		ds, ps := readManifest(fsys, mp)
		probs = append(probs, ps...)
		for _, d := range ds {
			claimed[d.Key] = true
		}
		designs = append(designs, ds...)
	}
	for _, p := range pngs {
		if !claimed[p] {
			designs = append(designs, Design{Key: p, Quantity: 1})
		}
	}
	sort.SliceStable(designs, func(i, j int) bool {
		a, b := designs[i], designs[j]
		if a.Key != b.Key {
			return a.Key < b.Key
		}
		return a.Line < b.Line
	})
	sizes := map[string]Design{}
	kept := designs[:0]
	for _, d := range designs {
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		s, ok := sizes[d.Key]
		if !ok {
			var err error
			if s, err = measure(fsys, d.Key); err != nil {
				probs = append(probs, Problem{Key: d.Key, Reason: err.Error()})
				sizes[d.Key] = Design{Width: -1}
				continue
			}
			sizes[d.Key] = s
		}
		if s.Width < 0 {
			continue
		}
		d.Width, d.Height, d.Trim = s.Width, s.Height, s.Trim
		kept = append(kept, d)
	}
	return kept, probs, nil
}

// readManifest lists the PNG designs of one order manifest.
func readManifest(fsys fs.FS, mp string) ([]Design, []Problem) {
	b, err := fs.ReadFile(fsys, mp)
	if err != nil {
		return nil, []Problem{{Key: mp, Reason: err.Error()}}
	}
	var m orderManifest
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, []Problem{{Key: mp, Reason: "not an order manifest: " + err.Error()}}
	}
	dir := path.Dir(mp)
	byKey := map[string]int{}
	for i, f := range m.Files {
		byKey[f.Key] = i
	}
	var out []Design
	var probs []Problem
	for li, line := range m.LineItems {
		for _, k := range line.Files {
			i, ok := byKey[k]
			if !ok {
				probs = append(probs, Problem{Key: mp, Reason: fmt.Sprintf("line %d lists file %q that the manifest does not describe", li+1, k)})
				continue
			}
			f := m.Files[i]
			name := f.Filename
			if name == "" {
				name = path.Base(f.Key)
			}
			if !strings.EqualFold(path.Ext(name), ".png") {
				continue // PDFs and other types are not ganged
			}
			if strings.Contains(name, "/") || name == ".." {
				probs = append(probs, Problem{Key: mp, Reason: fmt.Sprintf("file name %q is not a plain name", name)})
				continue
			}
			out = append(out, Design{
				Key: path.Join(dir, name), OrderID: m.OrderID, Line: li + 1, DesignID: f.DesignID,
				View: f.ViewID, Quantity: line.Quantity, DPI: f.DPI,
			})
		}
	}
	return out, probs
}

// measure decodes one PNG for its size and alpha-trimmed box.
func measure(fsys fs.FS, key string) (Design, error) {
	f, err := fsys.Open(key)
	if err != nil {
		return Design{}, err
	}
	cfg, err := png.DecodeConfig(f)
	f.Close()
	if err != nil {
		return Design{}, fmt.Errorf("not a readable PNG: %w", err)
	}
	if int64(cfg.Width)*int64(cfg.Height) > maxDesignPixels {
		return Design{}, fmt.Errorf("%dx%d px is more than the %d Mpx a design may have", cfg.Width, cfg.Height, maxDesignPixels>>20)
	}
	img, err := decodePNG(fsys, key)
	if err != nil {
		return Design{}, err
	}
	n := toNRGBA(img)
	return Design{Width: n.Rect.Dx(), Height: n.Rect.Dy(), Trim: AlphaBounds(n)}, nil
}

func decodePNG(fsys fs.FS, key string) (image.Image, error) {
	f, err := fsys.Open(key)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		return nil, fmt.Errorf("not a readable PNG: %w", err)
	}
	return img, nil
}

// AlphaBounds is the smallest rectangle holding every pixel with alpha > 0 (empty
// for a fully transparent image).
func AlphaBounds(n *image.NRGBA) image.Rectangle {
	b := n.Rect
	minX, minY, maxX, maxY := b.Max.X, b.Max.Y, b.Min.X-1, b.Min.Y-1
	for y := b.Min.Y; y < b.Max.Y; y++ {
		row := n.Pix[n.PixOffset(b.Min.X, y) : n.PixOffset(b.Min.X, y)+4*b.Dx()]
		first := -1
		for i := 3; i < len(row); i += 4 {
			if row[i] != 0 {
				first = i / 4
				break
			}
		}
		if first < 0 {
			continue
		}
		last := first
		for i := len(row) - 1; i/4 > last; i -= 4 {
			if row[i] != 0 {
				last = i / 4
				break
			}
		}
		minY, maxY = min(minY, y), max(maxY, y)
		minX, maxX = min(minX, b.Min.X+first), max(maxX, b.Min.X+last)
	}
	if maxY < minY {
		return image.Rectangle{}
	}
	return image.Rect(minX, minY, maxX+1, maxY+1)
}

// FolderLoader loads designs from the folder ReadFolder read.
type FolderLoader struct{ FS fs.FS }

// Load decodes the PNG at key.
func (l FolderLoader) Load(ctx context.Context, key string) (image.Image, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return decodePNG(l.FS, key)
}
