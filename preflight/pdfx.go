package preflight

import (
	"bytes"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// maxPages is how many pages one PDF's pages are checked of; more is a finding.
const maxPages = 10_000

// standardBlend are the blend modes of PDF 1.6 (PDF/X-4 allows no others).
var standardBlend = map[name]bool{"Normal": true, "Compatible": true, "Multiply": true, "Screen": true,
	"Overlay": true, "Darken": true, "Lighten": true, "ColorDodge": true, "ColorBurn": true,
	"HardLight": true, "SoftLight": true, "Difference": true, "Exclusion": true, "Hue": true,
	"Saturation": true, "Color": true, "Luminosity": true}

// forbiddenActions are the action types ISO 15930-7 does not allow in a PDF/X-4 file.
var forbiddenActions = map[name]bool{"JavaScript": true, "Launch": true, "Sound": true, "Movie": true,
	"ResetForm": true, "ImportData": true, "SubmitForm": true, "Hide": true, "Rendition": true,
	"Trans": true, "GoTo3DView": true, "RichMediaExecute": true}

var xmpVersion = regexp.MustCompile(`GTS_PDFXVersion(?:>\s*|\s*=\s*["'])PDF/X-4`)

// pdfCheck holds one PDF's state while it is checked.
type pdfCheck struct {
	rep    *FileReport
	r      Rules
	f      *pdfFile
	space  string // the output intent's colour space: CMYK, RGB, GRAY ("" none)
	encryp bool
}

func checkPDF(rep *FileReport, data []byte, r Rules, lim Limits) {
	c := &pdfCheck{rep: rep, r: r}
	c.header(data)
	f := openPDF(data, lim)
	c.f = f
	if f.repaired {
		rep.add("pdf.xref", Warning, 0, "the cross-reference table is broken: the file was read by scanning it, as readers repair it")
	}
	root := f.dictOf(f.trailer["Root"])
	if root == nil {
		rep.add("pdf.structure", Error, 0, "no document catalog: the file cannot be read")
		return
	}
	if f.trailer["Encrypt"] != nil {
		c.encryp = true
		if r.PDFX4 {
			rep.add("pdfx.encryption", Error, 0, "the file is encrypted (ISO 15930-7 forbids encryption)")
		} else {
			rep.add("pdf.encryption", Warning, 0, "the file is encrypted: its content was not checked")
		}
	}
	if r.PDFX4 {
		if v, ok := f.get(root["Version"]).(name); ok && !okVersion(string(v)) {
			rep.add("pdfx.header", Error, 0, fmt.Sprintf("the catalog declares PDF %s; PDF/X-4 is PDF 1.4 to 1.6", v))
		}
		if f.trailer["ID"] == nil {
			rep.add("pdfx.id", Error, 0, "the trailer has no file identifier (/ID)")
		}
		c.info()
		c.xmp(root)
		c.optionalContent(root)
	}
	c.outputIntent(root)
	pages := f.pages(maxPages + 1)
	if len(pages) == 0 {
		rep.add("pdf.structure", Error, 0, "the document has no pages")
	}
	if len(pages) > maxPages {
		rep.add("pdf.limit", Error, 0, fmt.Sprintf("more than %d pages: only the first %d were checked", maxPages, maxPages))
		pages = pages[:maxPages]
	}
	tac, tacSeen, cmyk := 0.0, false, false
	spots := map[string]bool{}
	var partial []string
	for i, p := range pages {
		bleed := c.boxes(i+1, p)
		var trim *rect
		if t, ok := f.rect(p["TrimBox"]); ok {
			trim = &t
		}
		if r.PDFX4 {
			c.pageGroup(i+1, f.dictOf(p["Group"]))
			if f.get(p["AA"]) != nil {
				rep.add("pdfx.actions", Error, i+1, "the page has additional actions (/AA)")
			}
		}
		if c.encryp {
			continue
		}
		ps := f.scanPage(p, bleed, trim)
		c.content(i+1, p, ps)
		cmyk = cmyk || ps.cmykSeen
		if ps.tacSeen {
			tacSeen = true
			if ps.tacMax > tac {
				tac = ps.tacMax
			}
			checkTAC(rep, r, i+1, ps.tacMax)
		}
		checkDPI(rep, r, i+1, ps.minDPI)
		if r.MinLinePt > 0 && ps.thinLine >= 0 && ps.thinLine < r.MinLinePt {
			rep.add("line.thin", Warning, i+1, fmt.Sprintf("a line %.3f pt wide (%.3f mm) is thinner than the %.2f pt of profile %s: it may break up in print", ps.thinLine, ps.thinLine*25.4/72, r.MinLinePt, r.Profile))
		}
		if r.SafetyPt > 0 && ps.textEdge >= 0 && ps.textEdge < r.SafetyPt {
			rep.add("text.margin", Warning, i+1, fmt.Sprintf("text starts %.1f mm from the trim, inside the %.1f mm safety margin of profile %s: the cut may touch it", ps.textEdge*25.4/72, r.SafetyPt*25.4/72, r.Profile))
		}
		for s := range ps.spots {
			spots[s] = true
		}
		for _, p := range ps.tacPartial {
			if !slices.Contains(partial, p) {
				partial = append(partial, p)
			}
		}
	}
	if !c.encryp {
		// A file printed in CMYK: its output intent says so, or it paints CMYK
		// (an RGB or gray PDF's gray is no ink total).
		if tacSeen && (c.space == "CMYK" || c.space == "" && cmyk) {
			rep.setTAC(tac)
		}
		if len(partial) > 0 {
			rep.add("ink.tac.partial", Info, 0, "the total ink does not include "+strings.Join(partial, ", "))
		}
		checkSpots(rep, r, spots, "separation")
	}
	if r.PDFX4 {
		c.walk(root)
	}
	if f.err != nil {
		rep.add("pdf.limit", Error, 0, f.err.Error()+": the file was not checked completely")
	}
}

func okVersion(v string) bool { return v == "1.4" || v == "1.5" || v == "1.6" }

// header: %PDF-1.4 to 1.6 (PDF/X-4 is based on PDF 1.6; below 1.4 a file cannot
// declare the transparency and optional content PDF/X-4 allows).
func (c *pdfCheck) header(data []byte) {
	i := bytes.Index(data[:min(len(data), 1024)], []byte("%PDF-"))
	v := ""
	if i >= 0 && i+8 <= len(data) {
		v = string(data[i+5 : i+8])
	}
	if i != 0 {
		c.rep.add("pdf.header", Warning, 0, "the %PDF header is not at the start of the file")
	}
	if c.r.PDFX4 && !okVersion(v) {
		c.rep.add("pdfx.header", Error, 0, fmt.Sprintf("header %%PDF-%s: PDF/X-4 needs %%PDF-1.4 to %%PDF-1.6", strings.TrimSpace(v)))
	}
}

func (c *pdfCheck) str(o any) (string, bool) {
	switch v := c.f.get(o).(type) {
	case pdfS:
		s := string(v)
		if strings.HasPrefix(s, "\xfe\xff") { // UTF-16BE: keep the ASCII of it
			var b strings.Builder
			for i := 2; i+1 < len(s); i += 2 {
				if s[i] == 0 {
					b.WriteByte(s[i+1])
				}
			}
			s = b.String()
		}
		return s, true
	case name:
		return string(v), true
	}
	return "", false
}

// info: GTS_PDFXVersion and Trapped in the Info dictionary.
func (c *pdfCheck) info() {
	info := c.f.dictOf(c.f.trailer["Info"])
	// An encrypted file's strings are encrypted: the version is not readable (the
	// encryption is its own error).
	if v, _ := c.str(info["GTS_PDFXVersion"]); !c.encryp && !strings.HasPrefix(v, "PDF/X-4") {
		msg := "the Info dictionary has no GTS_PDFXVersion"
		if v != "" {
			msg = fmt.Sprintf("the Info dictionary's GTS_PDFXVersion is %q, not PDF/X-4", v)
		}
		c.rep.add("pdfx.version.info", Error, 0, msg)
	}
	switch t, _ := c.f.get(info["Trapped"]).(name); t {
	case "True", "False":
	case "":
		c.rep.add("pdfx.trapped", Error, 0, "the Info dictionary has no Trapped key (True or False)")
	default:
		c.rep.add("pdfx.trapped", Error, 0, fmt.Sprintf("Trapped is /%s: PDF/X-4 wants /True or /False", t))
	}
}

// xmp: the catalog's metadata stream says GTS_PDFXVersion PDF/X-4.
func (c *pdfCheck) xmp(root dict) {
	s, ok := c.f.get(root["Metadata"]).(*stream)
	if !ok {
		c.rep.add("pdfx.metadata", Error, 0, "the catalog has no XMP metadata stream")
		return
	}
	b, err := c.f.decode(s)
	if err != nil {
		if !c.encryp {
			c.rep.add("pdfx.metadata", Error, 0, "the XMP metadata stream cannot be read: "+err.Error())
		}
		return
	}
	if !xmpVersion.Match(b) {
		c.rep.add("pdfx.version.xmp", Error, 0, "the XMP metadata has no pdfxid:GTS_PDFXVersion PDF/X-4")
	}
}

// outputIntent: exactly one GTS_PDFX output intent with an embedded output profile
// whose colour space is the one N says; a registered condition when the profile
// names one.
func (c *pdfCheck) outputIntent(root dict) {
	var gts []dict
	for _, o := range c.f.arrayOf(root["OutputIntents"]) {
		d := c.f.dictOf(o)
		if c.f.get(d["S"]) == name("GTS_PDFX") {
			gts = append(gts, d)
		}
	}
	if len(gts) != 1 {
		if c.r.PDFX4 {
			msg := "no GTS_PDFX output intent"
			if len(gts) > 1 {
				msg = fmt.Sprintf("%d GTS_PDFX output intents: PDF/X-4 allows one", len(gts))
			}
			c.rep.add("pdfx.output-intent", Error, 0, msg)
		}
		if len(gts) == 0 && c.r.Condition != "" {
			c.rep.add("condition.missing", Error, 0, fmt.Sprintf("no output intent: profile %s prints to %s", c.r.Profile, c.r.Condition))
		}
		if len(gts) == 0 {
			return
		}
	}
	oi := gts[0]
	ident, _ := c.str(oi["OutputConditionIdentifier"])
	if c.r.PDFX4 && ident == "" {
		c.rep.add("pdfx.output-intent.condition", Error, 0, "the output intent has no OutputConditionIdentifier")
	}
	if c.r.Condition != "" {
		reg, _ := c.str(oi["RegistryName"])
		if !strings.EqualFold(ident, c.r.Condition) || (c.r.Registry != "" && strings.TrimRight(reg, "/") != strings.TrimRight(c.r.Registry, "/")) {
			want := c.r.Condition
			if c.r.Registry != "" {
				want += " of the registry " + c.r.Registry
			}
			c.rep.add("condition.mismatch", Error, 0, fmt.Sprintf("the output intent names condition %q (registry %q), where profile %s prints to %s", ident, reg, c.r.Profile, want))
		}
	}
	s, ok := c.f.get(oi["DestOutputProfile"]).(*stream)
	if !ok {
		if c.r.PDFX4 {
			msg := "the output intent embeds no DestOutputProfile"
			if oi["DestOutputProfileRef"] != nil {
				msg += " (it references one, as PDF/X-4p does; PDF/X-4 embeds it)"
			}
			c.rep.add("pdfx.output-intent.profile", Error, 0, msg)
		}
		return
	}
	icc, err := c.f.decode(s)
	if err != nil {
		if !c.encryp {
			c.rep.add("pdfx.output-intent.profile", Error, 0, "the output profile cannot be read: "+err.Error())
		}
		return
	}
	if len(icc) < 128 || string(icc[36:40]) != "acsp" {
		c.rep.add("pdfx.output-intent.profile", Error, 0, "the output profile is not an ICC profile")
		return
	}
	space, class := strings.TrimSpace(string(icc[16:20])), string(icc[12:16])
	want := map[string]int64{"CMYK": 4, "RGB": 3, "GRAY": 1}[space]
	n, _ := c.f.get(s.dict["N"]).(int64)
	switch {
	case want == 0:
		c.rep.add("pdfx.output-intent.colourspace", Error, 0, fmt.Sprintf("the output profile's colour space is %q: PDF/X-4 wants CMYK, RGB or gray", space))
	case n != want:
		c.rep.add("pdfx.output-intent.colourspace", Error, 0, fmt.Sprintf("the output profile is %s but its stream says /N %d", space, n))
	case class != "prtr" && class != "mntr":
		c.rep.add("pdfx.output-intent.colourspace", Error, 0, fmt.Sprintf("the output profile's class is %q: an output (prtr) profile is needed", class))
	default:
		c.space = space
	}
	if c.r.CMYK && (space == "RGB" || space == "GRAY") {
		c.rep.add("colour.rgb", Error, 0, fmt.Sprintf("the output intent is %s where profile %s promises CMYK", space, c.r.Profile))
	}
}

// boxes checks one page's boxes and returns its BleedBox.
func (c *pdfCheck) boxes(pg int, p dict) rect {
	media, ok := c.f.rect(p["MediaBox"])
	if !ok {
		c.rep.add("pdf.structure", Error, pg, "the page has no MediaBox")
		return rect{}
	}
	crop, ok := c.f.rect(p["CropBox"])
	if !ok {
		crop = media
	}
	bleed, hasBleed := c.f.rect(p["BleedBox"])
	if !hasBleed {
		bleed = crop
	}
	trim, hasTrim := c.f.rect(p["TrimBox"])
	art, hasArt := c.f.rect(p["ArtBox"])
	if c.r.PDFX4 {
		switch {
		case !hasTrim && !hasArt:
			c.rep.add("pdfx.trimbox", Error, pg, "the page has neither a TrimBox nor an ArtBox")
		case hasTrim && hasArt:
			c.rep.add("pdfx.trimbox", Warning, pg, "the page has both a TrimBox and an ArtBox: PDF/X wants one (TrimBox preferred)")
		}
		inner, innerName := trim, "TrimBox"
		if !hasTrim {
			inner, innerName = art, "ArtBox"
		}
		if (hasTrim || hasArt) && !inner.inside(bleed) {
			c.rep.add("pdfx.boxes", Error, pg, fmt.Sprintf("the %s %v is not inside the BleedBox %v", innerName, inner, bleed))
		}
		if !bleed.inside(media) {
			c.rep.add("pdfx.boxes", Error, pg, fmt.Sprintf("the BleedBox %v is not inside the MediaBox %v", bleed, media))
		}
	}
	if c.r.BleedPt > 0 && hasTrim {
		short := min(trim.x0-bleed.x0, trim.y0-bleed.y0, bleed.x1-trim.x1, bleed.y1-trim.y1)
		if short < c.r.BleedPt-0.1 {
			code, msg := "bleed.short", fmt.Sprintf("the bleed is %.2f mm on its narrowest side; profile %s wants %.2f mm", max(0, short)*25.4/72, c.r.Profile, c.r.BleedPt*25.4/72)
			if short < 0.01 {
				code, msg = "bleed.missing", fmt.Sprintf("the page has no bleed beyond its TrimBox; profile %s wants %.2f mm", c.r.Profile, c.r.BleedPt*25.4/72)
			}
			c.rep.add(code, Error, pg, msg)
		}
	}
	return bleed
}

// pageGroup: a page's transparency group blends in a colour space the output
// intent allows.
func (c *pdfCheck) pageGroup(pg int, g dict) {
	if g == nil {
		return
	}
	if cs, ok := c.f.get(g["CS"]).(name); ok && c.space != "" && !c.deviceOK(string(cs)) {
		c.rep.add("pdfx.transparency", Error, pg, fmt.Sprintf("a transparency group blends in %s, outside the output intent's %s", cs, c.space))
	}
}

// deviceOK: device colour of that family is allowed with the output intent.
func (c *pdfCheck) deviceOK(fam string) bool {
	switch fam {
	case "DeviceGray", "":
		return true
	case "DeviceCMYK":
		return c.space == "CMYK"
	case "DeviceRGB":
		return c.space == "RGB"
	}
	return true
}

// content reports what the scan of a page found.
func (c *pdfCheck) content(pg int, p dict, ps *pageScan) {
	if ps.err != nil {
		switch {
		case errors.Is(ps.err, errBudget):
			c.rep.add("pdf.limit", Error, pg, ps.err.Error()+": the page was not checked completely")
		case errors.Is(ps.err, errFilter):
			c.rep.add("pdf.content", Warning, pg, "a content stream uses a filter the checker does not decode: its content was not checked")
		default:
			c.rep.add("pdf.content", Error, pg, "a content stream cannot be decoded: "+ps.err.Error())
		}
	}
	res := c.f.dictOf(p["Resources"])
	cspaces := c.f.dictOf(res["ColorSpace"])
	for _, fam := range []string{"DeviceRGB", "DeviceCMYK"} {
		if !ps.device[fam] {
			continue
		}
		if c.r.PDFX4 && c.space != "" && !c.deviceOK(fam) && cspaces["Default"+name(strings.TrimPrefix(fam, "Device"))] == nil {
			c.rep.add("pdfx.colour.device", Error, pg, fmt.Sprintf("%s paints in %s, outside the output intent's %s, without a Default%s colour space", ps.deviceAt[fam], fam, c.space, strings.TrimPrefix(fam, "Device")))
		}
		if c.r.CMYK && fam == "DeviceRGB" {
			c.rep.add("colour.rgb", Error, pg, fmt.Sprintf("%s paints in DeviceRGB where profile %s promises CMYK", ps.deviceAt[fam], c.r.Profile))
		}
	}
	if c.r.PDFX4 {
		for _, g := range ps.extg {
			c.gstate(pg, g)
		}
		for _, g := range ps.groups {
			c.pageGroup(pg, g)
		}
		keys := make([]any, 0, len(ps.fonts))
		for k := range ps.fonts {
			keys = append(keys, k)
		}
		for _, k := range keys {
			c.font(pg, k)
		}
	}
}

// gstate: PDF/X-4's graphics state rules: the standard blend modes, no transfer
// functions, no halftone phase.
func (c *pdfCheck) gstate(pg int, g dict) {
	bms := []any{c.f.get(g["BM"])}
	if a, ok := bms[0].(array); ok {
		bms = a
	}
	for _, b := range bms {
		if bm, ok := c.f.get(b).(name); ok && !standardBlend[bm] {
			c.rep.add("pdfx.transparency", Error, pg, fmt.Sprintf("blend mode /%s is not one of PDF 1.6's", bm))
		}
	}
	for _, k := range []name{"TR", "TR2"} {
		if v := c.f.get(g[k]); v != nil && v != name("Default") {
			c.rep.add("pdfx.gstate", Error, pg, fmt.Sprintf("a graphics state sets a transfer function (/%s)", k))
		}
	}
	if g["HTP"] != nil {
		c.rep.add("pdfx.gstate", Error, pg, "a graphics state sets a halftone phase (/HTP)")
	}
}

// font: a font the page draws with is embedded (Type 3 fonts are their own glyphs).
func (c *pdfCheck) font(pg int, key any) {
	d := c.f.dictOf(key)
	if d == nil {
		return
	}
	base, _ := c.str(d["BaseFont"])
	sub := c.f.get(d["Subtype"])
	if sub == name("Type3") {
		return
	}
	fd := d
	if sub == name("Type0") {
		if desc := c.f.arrayOf(d["DescendantFonts"]); len(desc) > 0 {
			fd = c.f.dictOf(desc[0])
		}
	}
	desc := c.f.dictOf(fd["FontDescriptor"])
	for _, k := range []name{"FontFile", "FontFile2", "FontFile3"} {
		if desc[k] != nil {
			return
		}
	}
	c.rep.add("pdfx.fonts", Error, pg, fmt.Sprintf("font %s is not embedded", base))
}

// optionalContent: every optional content configuration has a Name and no AS.
func (c *pdfCheck) optionalContent(root dict) {
	ocp := c.f.dictOf(root["OCProperties"])
	if ocp == nil {
		return
	}
	confs := []any{ocp["D"]}
	confs = append(confs, c.f.arrayOf(ocp["Configs"])...)
	for i, o := range confs {
		d := c.f.dictOf(o)
		what := "the default optional content configuration"
		if i > 0 {
			what = fmt.Sprintf("optional content configuration %d", i)
		}
		if d == nil {
			if i == 0 {
				c.rep.add("pdfx.optional-content", Error, 0, "OCProperties has no default configuration (/D)")
			}
			continue
		}
		if d["Name"] == nil {
			c.rep.add("pdfx.optional-content", Error, 0, what+" has no /Name")
		}
		if d["AS"] != nil {
			c.rep.add("pdfx.optional-content", Error, 0, what+" has an /AS key")
		}
	}
}

// walk looks at every object of the file for what PDF/X-4 forbids anywhere:
// forbidden actions and JavaScript, PostScript XObjects.
func (c *pdfCheck) walk(root dict) {
	if c.f.get(root["AA"]) != nil {
		c.rep.add("pdfx.actions", Error, 0, "the catalog has additional actions (/AA)")
	}
	if names := c.f.dictOf(root["Names"]); names["JavaScript"] != nil {
		c.rep.add("pdfx.actions", Error, 0, "the document has JavaScript (/Names /JavaScript)")
	}
	nums := make([]int, 0, len(c.f.xref))
	for n, e := range c.f.xref {
		if e.exists {
			nums = append(nums, n)
		}
	}
	slices.Sort(nums)
	for _, n := range nums {
		if c.f.err != nil {
			return
		}
		o := c.f.get(ref{n, 0})
		if s, ok := o.(*stream); ok {
			o = s.dict
		}
		c.visit(n, o, 0)
	}
}

// visit looks at one object and the dictionaries and arrays written inside it
// (references are visited as objects of their own).
func (c *pdfCheck) visit(n int, o any, depth int) {
	if depth > maxDepth {
		return
	}
	switch v := o.(type) {
	case array:
		for _, x := range v {
			c.visit(n, x, depth+1)
		}
	case dict:
		if s, ok := v["S"].(name); ok && forbiddenActions[s] && (v["Type"] == name("Action") || v["Type"] == nil) {
			c.rep.add("pdfx.actions", Error, 0, fmt.Sprintf("object %d holds a %s action", n, s))
		} else if v["JS"] != nil {
			c.rep.add("pdfx.actions", Error, 0, fmt.Sprintf("object %d carries JavaScript (/JS)", n))
		}
		if v["Subtype"] == name("PS") || v["Subtype2"] == name("PS") {
			c.rep.add("pdfx.postscript", Error, 0, fmt.Sprintf("object %d is a PostScript XObject", n))
		}
		for _, x := range v {
			c.visit(n, x, depth+1)
		}
	}
}

// checkSpots: the profile's cut and white spot colours are in the file, spelt as
// the profile spells them.
func checkSpots(rep *FileReport, r Rules, found map[string]bool, what string) {
	for _, want := range []string{r.CutSpot, r.WhiteSpot} {
		if want == "" || found[want] {
			continue
		}
		near := ""
		for s := range found {
			if squash(s) == squash(want) {
				near = s
			}
		}
		if near != "" {
			rep.add("spot.misnamed", Error, 0, fmt.Sprintf("the %s %q is spelt %q by profile %s: RIPs match the exact name", what, near, want, r.Profile))
		} else {
			rep.add("spot.missing", Error, 0, fmt.Sprintf("no %s named %q, which profile %s writes", what, want, r.Profile))
		}
	}
}

// squash folds case, spaces, '-' and '_' away: "Cut Contour" ~ "CutContour".
func squash(s string) string {
	return strings.Map(func(r rune) rune {
		if r == ' ' || r == '_' || r == '-' {
			return -1
		}
		return r
	}, strings.ToLower(s))
}
