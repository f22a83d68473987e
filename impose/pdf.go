package impose

import (
	"context"
	"fmt"
	"image/color"
	"io"
	"strconv"
	"strings"

	gofpdf "codeberg.org/go-pdf/fpdf"
	"github.com/boombuler/barcode"
	"github.com/boombuler/barcode/code128"
	"github.com/boombuler/barcode/qr"
	"github.com/phpdave11/gofpdi"
	"github.com/printworker/printworker/render"
	"golang.org/x/image/font/gofont/goregular"
)

// Code geometry (docs/imposition.md "Output"): the code lies in the strip under its
// item's trim, clear of the trim line by codeGapMM, on a white box taking in the quiet
// zones. Code 128 modules are the widest of codeModulesMM that fit the item's width;
// a QR module is at least minQRModuleMM.
var codeModulesMM = []float64{0.33, 0.254, 0.2}

const (
	codeGapMM      = 0.5
	minCodeMM      = 1
	codeInsetMM    = 1
	quietModules   = 10
	minQRModuleMM  = 0.25
	qrQuietModules = 2
)

// Mark geometry: crop marks are hairlines (0.25 pt) in registration colour, starting
// markOffsetMM beyond the item's bleed (or code strip), at most markMaxMM long and
// stopping markOffsetMM short of the sheet's edge; a gutter gets marks only when
// room of at least markMinMM is left between the neighbours' bleeds.
const (
	markOffsetMM = 1
	markMaxMM    = 5
	markMinMM    = 1
	markWidthPt  = 0.25
)

// checkCodes reports a code strip too shallow for the template's symbology.
func (t *Template) checkCodes(s ItemSize) error {
	if t.Codes == CodesNone {
		return nil
	}
	if h := t.codeStrip(s) - codeGapMM; h < minCodeMM {
		return fmt.Errorf("codes need a bleed or half gutter of at least %v mm under each item, there are %.2f mm (set \"codes\": \"none\" or widen the gutter)",
			minCodeMM+codeGapMM, t.codeStrip(s))
	}
	return nil
}

// codeFits says why a copy's code cannot be drawn under a footprint cellW mm wide
// with a strip strip mm deep ("" when it can).
func (t *Template) codeFits(text string, cellW, strip float64) string {
	switch t.Codes {
	case CodesCode128:
		bc, err := code128.Encode(text)
		if err != nil {
			return err.Error()
		}
		narrowest := codeModulesMM[len(codeModulesMM)-1]
		if w := float64(bc.Bounds().Dx()+2*quietModules) * narrowest; w > cellW-codeInsetMM {
			return fmt.Sprintf("its Code 128 is %.1f mm wide at %v mm modules, wider than the item", w, narrowest)
		}
	case CodesQR:
		bc, err := qr.Encode(text, qr.M, qr.Auto)
		if err != nil {
			return err.Error()
		}
		side := strip - codeGapMM
		if mod := side / float64(bc.Bounds().Dx()+2*qrQuietModules); mod < minQRModuleMM {
			return fmt.Sprintf("its QR code's modules would be %.2f mm in a %.1f mm strip, under %v mm (widen the gutter or use code128)", mod, strip, minQRModuleMM)
		}
		if side > cellW-codeInsetMM {
			return "its QR code is wider than the item"
		}
	}
	return ""
}

func mm(v float64) float64 { return v * ptPerMM }

// num formats a PDF number: four decimals, no trailing zeros.
func num(v float64) string {
	s := strconv.FormatFloat(v, 'f', 4, 64)
	s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	if s == "-0" || s == "" {
		return "0"
	}
	return s
}

// write renders the plan's sheets into w.
func (p *plan) write(ctx context.Context, w io.Writer, opt Options) error {
	t := p.t
	W, H := mm(t.Sheet.WidthMM), mm(t.Sheet.HeightMM)
	pdf := gofpdf.NewCustom(&gofpdf.InitType{UnitStr: "pt", Size: gofpdf.SizeType{Wd: W, Ht: H}})
	pdf.SetAutoPageBreak(false, 0)
	pdf.SetMargins(0, 0, 0)
	pdf.SetCompression(true)
	pdf.SetCatalogSort(true)
	pdf.SetCreationDate(opt.Created)
	pdf.SetModificationDate(opt.Created)
	pdf.SetCreator("printworker", true)
	title := "press sheets " + opt.Batch
	pdf.SetTitle(title, true)
	if p.intent != nil {
		render.DeclarePDFX(pdf, p.intent.info, p.intent.icc, title, opt.Created)
	}
	if *t.Slug {
		// A subset of Go Regular for the slug: PDF/X wants every font embedded.
		pdf.AddUTF8FontFromBytes("pw-goregular", "", goregular.TTF)
	}
	if err := p.importItems(pdf); err != nil {
		return err
	}
	bySheet := make([][]int, p.result.Sheets)
	for i, pl := range p.result.Placements {
		bySheet[pl.Sheet-1] = append(bySheet[pl.Sheet-1], i)
	}
	for s := range bySheet {
		if err := ctx.Err(); err != nil {
			return err
		}
		p.page(pdf, bySheet[s], s+1, false, opt.Batch)
		if t.Duplex != DuplexNone {
			p.page(pdf, bySheet[s], s+1, true, opt.Batch)
		}
	}
	if err := pdf.Error(); err != nil {
		return fmt.Errorf("sheet PDF: %w", err)
	}
	if p.intent != nil {
		return render.WritePDFX(pdf, w)
	}
	return render.WritePDF(pdf, w)
}

// importItems embeds every distinct item page once, as a form XObject whose BBox is
// the page's BleedBox (so drawing it clips it there) and whose content is the page's
// own stream: vectors, fonts and pictures as they were.
func (p *plan) importItems(pdf *gofpdf.Fpdf) error {
	imp := gofpdi.NewImporter()
	// The importer names a stream source by the address of the ReadSeeker given, so
	// each item needs its own variable, alive until the end.
	sources := make([]io.ReadSeeker, len(p.items))
	for i, it := range p.items {
		sources[i] = newGuard(it.data)
		err := safely(fmt.Sprint("#", i+1), func() error {
			imp.SetSourceStream(&sources[i])
			ids := make([]int, it.pages)
			for pg := range ids {
				ids[pg] = imp.ImportPage(pg+1, "/BleedBox")
			}
			// All of this item's pages at once: each call writes every page imported
			// from the source so far.
			pdf.ImportTemplates(imp.PutFormXobjectsUnordered())
			pdf.ImportObjects(imp.GetImportedObjectsUnordered())
			pdf.ImportObjPos(imp.GetImportedObjHashPos())
			for pg, id := range ids {
				it.tpl[pg], _, _, _, _ = imp.UseTemplate(id, 0, 0, 0, 0)
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// page draws one side of sheet n: its items, marks, codes (front only) and slug.
func (p *plan) page(pdf *gofpdf.Fpdf, placements []int, n int, back bool, batch string) {
	t := p.t
	W, H := mm(t.Sheet.WidthMM), mm(t.Sheet.HeightMM)
	pdf.AddPageFormat("P", gofpdf.SizeType{Wd: W, Ht: H})
	// The sheet is the product: trimmed and bled to its own edges.
	pdf.SetPageBox("trim", 0, 0, W, H)
	pdf.SetPageBox("bleed", 0, 0, W, H)
	var c strings.Builder
	size := p.items[0].size
	// How far each item is drawn beyond its trim: its bleed, but never into the
	// neighbour's half of the gutter.
	ext := size.Bleed
	if t.GutterMM < 2*ext {
		ext = t.GutterMM / 2
	}
	for _, i := range placements {
		pl := p.result.Placements[i]
		it := p.items[p.of[i]]
		pg := 0
		if back {
			if it.pages < 2 {
				continue
			}
			pg = 1
		}
		x, y := p.grid.Cell(pl.Position)
		m := frontMatrix(x, y, size.TrimW, p.grid.Rotated)
		if back {
			m = t.backMatrix(x, y, size.TrimW, p.grid.Rotated)
		}
		// Form space (points from the BleedBox's lower-left) -> trim mm -> sheet pt.
		toTrim := affine{1 / ptPerMM, 0, 0, 1 / ptPerMM, (it.bleed.llx - it.trim.llx) / ptPerMM, (it.bleed.lly - it.trim.lly) / ptPerMM}
		full := toTrim.then(m).then(affine{ptPerMM, 0, 0, ptPerMM, 0, 0})
		fx, fy := x, y
		if back {
			fx, fy = t.Back(x, y, p.grid.CellW, p.grid.CellH)
		}
		fmt.Fprintf(&c, "q %s %s %s %s re W n %s %s %s %s %s %s cm %s Do Q\n",
			num(mm(fx-ext)), num(mm(fy-ext)), num(mm(p.grid.CellW+2*ext)), num(mm(p.grid.CellH+2*ext)),
			num(full[0]), num(full[1]), num(full[2]), num(full[3]), num(full[4]), num(full[5]), it.tpl[pg])
	}
	for _, i := range placements {
		pl := p.result.Placements[i]
		x, y := p.grid.Cell(pl.Position)
		fx, fy := x, y
		if back {
			fx, fy = t.Back(x, y, p.grid.CellW, p.grid.CellH)
		}
		if *t.Marks {
			p.marks(&c, fx, fy, ext)
		}
		if !back && pl.Code != "" {
			p.code(&c, pl.Code, fx, fy, size)
		}
	}
	pdf.RawWriteStr(c.String())
	if *t.Slug {
		p.slug(pdf, n, back, batch)
	}
}

// marks draws the crop marks of the item whose trim footprint is at (x, y) (mm) on
// this side: at each trim line, beyond the block's outer edges and in gutters wide
// enough (see the mark constants).
func (p *plan) marks(c *strings.Builder, x, y, ext float64) {
	t, g := p.t, p.grid
	w, h := g.CellW, g.CellH
	out := t.outer(p.items[0].size)
	W, H := t.Sheet.WidthMM, t.Sheet.HeightMM
	// How deep under an item its drawn area reaches: its bleed, or its code strip.
	under := ext
	if t.Codes != CodesNone {
		under = max(ext, t.codeStrip(p.items[0].size))
	}
	lines := func(from, to float64, at float64, vertical bool) {
		if to-from < markMinMM {
			return
		}
		if vertical {
			fmt.Fprintf(c, "%s %s m %s %s l S\n", num(mm(at)), num(mm(from)), num(mm(at)), num(mm(to)))
		} else {
			fmt.Fprintf(c, "%s %s m %s %s l S\n", num(mm(from)), num(mm(at)), num(mm(to)), num(mm(at)))
		}
	}
	fmt.Fprintf(c, "q %s w 1 1 1 1 K 0 J\n", num(markWidthPt))
	// Is the side on the block's outer edge? The block is centred, so the back's
	// cells (the front's mirrored) are the same block.
	const eps = 0.01
	bw := float64(g.Columns)*w + float64(g.Columns-1)*g.Gutter
	bh := float64(g.Rows)*h + float64(g.Rows-1)*g.Gutter
	leftOuter, rightOuter := x < g.X0+eps, x+w > g.X0+bw-eps
	bottomOuter, topOuter := y < g.Y0+eps, y+h > g.Y0+bh-eps
	// Inside the block a mark runs in the gutter between this item's drawn area and
	// its neighbour's (the neighbour's mark on the same line may overlap it).
	for _, yy := range []float64{y, y + h} {
		if leftOuter {
			from := x - out - markOffsetMM
			lines(max(markOffsetMM, from-markMaxMM), from, yy, false)
		} else {
			from, to := x-g.Gutter+ext+markOffsetMM, x-ext-markOffsetMM
			lines(max(from, to-markMaxMM), to, yy, false)
		}
		if rightOuter {
			from := x + w + out + markOffsetMM
			lines(from, min(W-markOffsetMM, from+markMaxMM), yy, false)
		} else {
			from, to := x+w+ext+markOffsetMM, x+w+g.Gutter-ext-markOffsetMM
			lines(from, min(to, from+markMaxMM), yy, false)
		}
	}
	for _, xx := range []float64{x, x + w} {
		if bottomOuter {
			from := y - out - markOffsetMM
			lines(max(markOffsetMM, from-markMaxMM), from, xx, true)
		} else {
			from, to := y-g.Gutter+ext+markOffsetMM, y-under-markOffsetMM
			lines(max(from, to-markMaxMM), to, xx, true)
		}
		if topOuter {
			from := y + h + out + markOffsetMM
			lines(from, min(H-markOffsetMM, from+markMaxMM), xx, true)
		} else {
			from, to := y+h+ext+markOffsetMM, y+h+g.Gutter-under-markOffsetMM
			lines(from, min(to, from+markMaxMM), xx, true)
		}
	}
	c.WriteString("Q\n")
}

// code draws a copy's code in the strip under its trim footprint at (x, y) mm: on a
// white box, black (100 % K) modules.
func (p *plan) code(c *strings.Builder, text string, x, y float64, s ItemSize) {
	t := p.t
	boxH := t.codeStrip(s) - codeGapMM
	top := y - codeGapMM
	switch t.Codes {
	case CodesCode128:
		bc, err := code128.Encode(text)
		if err != nil {
			return
		}
		n := bc.Bounds().Dx()
		// The widest module that fits; codeFits made sure the narrowest does.
		for _, mod := range codeModulesMM {
			wmm := float64(n+2*quietModules) * mod
			if wmm > p.grid.CellW-codeInsetMM && mod != codeModulesMM[len(codeModulesMM)-1] {
				continue
			}
			bx := x + codeInsetMM
			fmt.Fprintf(c, "q 0 0 0 0 k %s %s %s %s re f 0 0 0 1 k\n", num(mm(bx)), num(mm(top-boxH)), num(mm(wmm)), num(mm(boxH)))
			drawModules(c, bc, bx+quietModules*mod, top-boxH, mod, boxH/float64(bc.Bounds().Dy()))
			c.WriteString("Q\n")
			return
		}
	case CodesQR:
		bc, err := qr.Encode(text, qr.M, qr.Auto)
		if err != nil {
			return
		}
		n := bc.Bounds().Dx()
		mod := boxH / float64(n+2*qrQuietModules)
		bx := x + codeInsetMM
		fmt.Fprintf(c, "q 0 0 0 0 k %s %s %s %s re f 0 0 0 1 k\n", num(mm(bx)), num(mm(top-boxH)), num(mm(boxH)), num(mm(boxH)))
		drawModules(c, bc, bx+qrQuietModules*mod, top-boxH+qrQuietModules*mod, mod, mod)
		c.WriteString("Q\n")
	}
}

// drawModules fills a barcode's dark modules, run by run, with (x, y) the lower-left
// corner in mm and each module mw x mh mm (the barcode's rows go down).
func drawModules(c *strings.Builder, bc barcode.Barcode, x, y, mw, mh float64) {
	b := bc.Bounds()
	rows := b.Dy()
	for j := b.Min.Y; j < b.Max.Y; j++ {
		yy := y + float64(rows-1-(j-b.Min.Y))*mh
		for i := b.Min.X; i < b.Max.X; {
			if !dark(bc.At(i, j)) {
				i++
				continue
			}
			run := i
			for run < b.Max.X && dark(bc.At(run, j)) {
				run++
			}
			fmt.Fprintf(c, "%s %s %s %s re\n", num(mm(x+float64(i-b.Min.X)*mw)), num(mm(yy)), num(mm(float64(run-i)*mw)), num(mm(mh)))
			i = run
		}
	}
	c.WriteString("f\n")
}

func dark(c color.Color) bool {
	r, g, b, _ := c.RGBA()
	return r+g+b < 3*0x8000
}

// slug writes the batch, sheet n of m and the side, and a colour bar (C, M, Y, K,
// 50 % and 25 % K) in the bottom margin.
func (p *plan) slug(pdf *gofpdf.Fpdf, n int, back bool, batch string) {
	t := p.t
	side := "front"
	if back {
		side = "back"
	}
	const patch = 3.0 // mm
	yMid := t.MarginMM / 2
	var c strings.Builder
	patches := [][4]float64{{1, 0, 0, 0}, {0, 1, 0, 0}, {0, 0, 1, 0}, {0, 0, 0, 1}, {0, 0, 0, 0.5}, {0, 0, 0, 0.25}}
	x0 := t.Sheet.WidthMM - t.MarginMM - float64(len(patches))*patch
	for i, k := range patches {
		fmt.Fprintf(&c, "q %s %s %s %s k %s %s %s %s re f Q\n", num(k[0]), num(k[1]), num(k[2]), num(k[3]),
			num(mm(x0+float64(i)*patch)), num(mm(yMid-patch/2)), num(mm(patch)), num(mm(patch)))
	}
	c.WriteString("0 0 0 1 k\n")
	pdf.RawWriteStr(c.String())
	pdf.SetFont("pw-goregular", "", 6)
	label := fmt.Sprintf("batch %s   sheet %d of %d   %s", batch, n, p.result.Sheets, side)
	pdf.Text(mm(t.MarginMM), mm(t.Sheet.HeightMM-yMid)+2, label)
}
