package preflight

import (
	"bytes"
	"compress/zlib"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
)

// A small PDF object reader made for checking, not for drawing (docs/preflight.md
// "How PDFs are read"): it reads the cross-reference tables and streams (with /Prev
// chains and object streams), falls back to scanning the file for "n g obj" when they
// are broken, and decodes Flate streams only. Everything it does is counted against a
// budget (objects parsed, bytes inflated, nesting), so a hostile file costs bounded
// CPU and memory; running out of budget is an error the report names, never a
// silent partial pass.

// Object kinds of a parsed PDF.
type (
	name  string
	pdfS  string // a string object's bytes
	array []any
	dict  map[name]any
	ref   struct{ num, gen int }
)

// stream is a stream object: its dictionary and its raw (still encoded) bytes, a
// slice of the file.
type stream struct {
	dict dict
	raw  []byte
}

// Limits bound the work of one check.
type Limits struct {
	// MaxObjects is how many objects may be parsed (each indirect object once).
	MaxObjects int
	// MaxInflate is how many bytes all decoded streams may take together.
	MaxInflate int64
	// MaxStream is the largest one decoded stream may be.
	MaxStream int64
	// MaxOps is how many content stream operators and operands may be read.
	MaxOps int
}

// DefaultLimits suit print files of a few hundred megabytes.
var DefaultLimits = Limits{MaxObjects: 500_000, MaxInflate: 1 << 30, MaxStream: 256 << 20, MaxOps: 20_000_000}

// errBudget: the file needs more work than the limits allow.
var errBudget = errors.New("file exceeds the checker's limits")

const maxDepth = 64 // nesting of arrays and dictionaries, and of references followed

type budget struct {
	Limits
	objects int
	inflate int64
	ops     int
}

func (b *budget) spendInflate(n int64) error {
	b.inflate += n
	if b.inflate > b.MaxInflate {
		return fmt.Errorf("%w: more than %d decoded stream bytes", errBudget, b.MaxInflate)
	}
	return nil
}

// pdfFile is a parsed PDF: its bytes, cross-reference entries and trailer.
type pdfFile struct {
	data     []byte
	xref     map[int]xrefEntry
	trailer  dict
	cache    map[int]any
	objstms  map[int][]any // decoded object streams: their objects by index
	budget   *budget
	repaired bool // the xref was rebuilt by scanning
	err      error
	// endstreams are the offsets of every "endstream" in the file, found once when
	// a stream's /Length is wrong: searching the rest of the file for each such
	// stream would cost the file's size per stream.
	endstreams []int
	endIndexed bool
}

type xrefEntry struct {
	off    int64 // byte offset (type 1) or the object stream's number (type 2)
	idx    int   // index in the object stream (type 2)
	inStm  bool
	exists bool
}

// lexer reads PDF tokens from data starting at pos.
type lexer struct {
	data []byte
	pos  int
}

func isWhite(c byte) bool {
	return c == 0 || c == '\t' || c == '\n' || c == '\f' || c == '\r' || c == ' '
}

func isDelim(c byte) bool {
	switch c {
	case '(', ')', '<', '>', '[', ']', '{', '}', '/', '%':
		return true
	}
	return false
}

func (l *lexer) skipSpace() {
	for l.pos < len(l.data) {
		c := l.data[l.pos]
		if isWhite(c) {
			l.pos++
		} else if c == '%' {
			for l.pos < len(l.data) && l.data[l.pos] != '\n' && l.data[l.pos] != '\r' {
				l.pos++
			}
		} else {
			return
		}
	}
}

// token kinds
type keyword string

var errSyntax = errors.New("syntax error")

// next reads one token: a number (int64 or float64), name, pdfS, keyword, or the
// delimiters "[", "]", "<<", ">>" as keywords.
func (l *lexer) next() (any, error) {
	l.skipSpace()
	if l.pos >= len(l.data) {
		return nil, io.EOF
	}
	c := l.data[l.pos]
	switch {
	case c == '/':
		l.pos++
		start := l.pos
		for l.pos < len(l.data) && !isWhite(l.data[l.pos]) && !isDelim(l.data[l.pos]) {
			l.pos++
		}
		return name(unescapeName(l.data[start:l.pos])), nil
	case c == '(':
		return l.literal()
	case c == '<':
		if l.pos+1 < len(l.data) && l.data[l.pos+1] == '<' {
			l.pos += 2
			return keyword("<<"), nil
		}
		return l.hex()
	case c == '>':
		if l.pos+1 < len(l.data) && l.data[l.pos+1] == '>' {
			l.pos += 2
			return keyword(">>"), nil
		}
		l.pos++
		return nil, errSyntax
	case c == '[' || c == ']' || c == '{' || c == '}':
		l.pos++
		return keyword(string(c)), nil
	case c == ')':
		l.pos++
		return nil, errSyntax
	}
	start := l.pos
	for l.pos < len(l.data) && !isWhite(l.data[l.pos]) && !isDelim(l.data[l.pos]) {
		l.pos++
	}
	tok := l.data[start:l.pos]
	if c == '+' || c == '-' || c == '.' || (c >= '0' && c <= '9') {
		if i, err := strconv.ParseInt(string(tok), 10, 64); err == nil {
			return i, nil
		}
		if f, err := strconv.ParseFloat(string(tok), 64); err == nil {
			return f, nil
		}
		if bytes.Count(tok, []byte("-")) > 0 { // "--5" and the like: read as 0
			return int64(0), nil
		}
	}
	return keyword(tok), nil
}

func unescapeName(b []byte) string {
	if bytes.IndexByte(b, '#') < 0 {
		return string(b)
	}
	out := make([]byte, 0, len(b))
	for i := 0; i < len(b); i++ {
		if b[i] == '#' && i+2 < len(b) {
			if v, err := strconv.ParseUint(string(b[i+1:i+3]), 16, 8); err == nil {
				out = append(out, byte(v))
				i += 2
				continue
			}
		}
		out = append(out, b[i])
	}
	return string(out)
}

func (l *lexer) literal() (any, error) {
	l.pos++ // (
	var out []byte
	depth := 1
	for l.pos < len(l.data) {
		c := l.data[l.pos]
		l.pos++
		switch c {
		case '\\':
			if l.pos >= len(l.data) {
				return nil, errSyntax
			}
			e := l.data[l.pos]
			l.pos++
			switch e {
			case 'n':
				out = append(out, '\n')
			case 'r':
				out = append(out, '\r')
			case 't':
				out = append(out, '\t')
			case 'b':
				out = append(out, '\b')
			case 'f':
				out = append(out, '\f')
			case '\r':
				if l.pos < len(l.data) && l.data[l.pos] == '\n' {
					l.pos++
				}
			case '\n':
			default:
				if e >= '0' && e <= '7' {
					v := int(e - '0')
					for k := 0; k < 2 && l.pos < len(l.data) && l.data[l.pos] >= '0' && l.data[l.pos] <= '7'; k++ {
						v = v*8 + int(l.data[l.pos]-'0')
						l.pos++
					}
					out = append(out, byte(v))
				} else {
					out = append(out, e)
				}
			}
		case '(':
			depth++
			out = append(out, c)
		case ')':
			depth--
			if depth == 0 {
				return pdfS(out), nil
			}
			out = append(out, c)
		default:
			out = append(out, c)
		}
	}
	return nil, errSyntax
}

func (l *lexer) hex() (any, error) {
	l.pos++ // <
	var out []byte
	var hi int = -1
	for l.pos < len(l.data) {
		c := l.data[l.pos]
		l.pos++
		if c == '>' {
			if hi >= 0 {
				out = append(out, byte(hi<<4))
			}
			return pdfS(out), nil
		}
		v, ok := hexVal(c)
		if !ok {
			if isWhite(c) {
				continue
			}
			return nil, errSyntax
		}
		if hi < 0 {
			hi = v
		} else {
			out = append(out, byte(hi<<4|v))
			hi = -1
		}
	}
	return nil, errSyntax
}

func hexVal(c byte) (int, bool) {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0'), true
	case c >= 'a' && c <= 'f':
		return int(c-'a') + 10, true
	case c >= 'A' && c <= 'F':
		return int(c-'A') + 10, true
	}
	return 0, false
}

// object reads one object (an array, dictionary, reference or simple value) at the
// lexer's position. Streams are not handled here (see readIndirect).
func (l *lexer) object(depth int) (any, error) {
	if depth > maxDepth {
		return nil, fmt.Errorf("%w: nesting deeper than %d", errBudget, maxDepth)
	}
	t, err := l.next()
	if err != nil {
		return nil, err
	}
	return l.objectFrom(t, depth)
}

func (l *lexer) objectFrom(t any, depth int) (any, error) {
	switch v := t.(type) {
	case keyword:
		switch v {
		case "[":
			var a array
			for {
				l.skipSpace()
				if l.pos < len(l.data) && l.data[l.pos] == ']' {
					l.pos++
					return a, nil
				}
				o, err := l.object(depth + 1)
				if err != nil {
					return nil, err
				}
				a = append(a, o)
			}
		case "<<":
			d := dict{}
			for {
				t, err := l.next()
				if err != nil {
					return nil, err
				}
				if t == keyword(">>") {
					return d, nil
				}
				k, ok := t.(name)
				if !ok {
					return nil, errSyntax
				}
				o, err := l.object(depth + 1)
				if err != nil {
					return nil, err
				}
				d[k] = o
			}
		case "true":
			return true, nil
		case "false":
			return false, nil
		case "null":
			return nil, nil
		}
		return nil, fmt.Errorf("%w: unexpected %q", errSyntax, string(v))
	case int64:
		// n g R?
		save := l.pos
		t2, err := l.next()
		if g, ok := t2.(int64); err == nil && ok {
			t3, err := l.next()
			if err == nil && t3 == keyword("R") && v >= 0 && v < 1<<31 && g >= 0 && g < 1<<16 {
				return ref{int(v), int(g)}, nil
			}
		}
		l.pos = save
		return v, nil
	}
	return t, nil
}

// openPDF reads the cross-reference information of data.
func openPDF(data []byte, lim Limits) *pdfFile {
	f := &pdfFile{data: data, xref: map[int]xrefEntry{}, cache: map[int]any{}, objstms: map[int][]any{}, budget: &budget{Limits: lim}}
	if err := f.readXref(); err != nil || f.trailer == nil || f.trailer["Root"] == nil {
		f.xref = map[int]xrefEntry{}
		f.trailer = nil
		f.reconstruct()
		f.repaired = true
	}
	return f
}

func (f *pdfFile) readXref() error {
	tail := f.data[max(0, len(f.data)-2048):]
	i := bytes.LastIndex(tail, []byte("startxref"))
	if i < 0 {
		return errSyntax
	}
	l := &lexer{data: tail, pos: i + len("startxref")}
	t, err := l.next()
	off, ok := t.(int64)
	if err != nil || !ok {
		return errSyntax
	}
	seen := map[int64]bool{}
	for n := 0; off > 0 || n == 0; n++ {
		if n > 100 || seen[off] || off < 0 || off >= int64(len(f.data)) {
			if n == 0 {
				return errSyntax
			}
			break
		}
		seen[off] = true
		tr, err := f.readXrefAt(int(off))
		if err != nil {
			return err
		}
		if f.trailer == nil {
			f.trailer = tr
		}
		if x, ok := tr["XRefStm"].(int64); ok && x > 0 && x < int64(len(f.data)) && !seen[x] {
			seen[x] = true
			if _, err := f.readXrefAt(int(x)); err != nil {
				return err
			}
		}
		p, ok := tr["Prev"].(int64)
		if !ok {
			break
		}
		off = p
	}
	return nil
}

// readXrefAt reads a classic table or an xref stream at off; entries already known
// (from a later section) win.
func (f *pdfFile) readXrefAt(off int) (dict, error) {
	l := &lexer{data: f.data, pos: off}
	l.skipSpace()
	if bytes.HasPrefix(f.data[l.pos:], []byte("xref")) {
		l.pos += 4
		for {
			t, err := l.next()
			if err != nil {
				return nil, err
			}
			if t == keyword("trailer") {
				o, err := l.object(0)
				d, ok := o.(dict)
				if err != nil || !ok {
					return nil, errSyntax
				}
				return d, nil
			}
			start, ok1 := t.(int64)
			t2, err := l.next()
			count, ok2 := t2.(int64)
			if err != nil || !ok1 || !ok2 || start < 0 || count < 0 || count > int64(len(f.data))/18+1 || start > 1<<31 {
				return nil, errSyntax
			}
			for k := int64(0); k < count; k++ {
				a, _ := l.next()
				b, _ := l.next()
				c, err := l.next()
				o, okA := a.(int64)
				if err != nil || !okA {
					return nil, errSyntax
				}
				_ = b
				num := int(start + k)
				if _, had := f.xref[num]; had {
					continue
				}
				f.xref[num] = xrefEntry{off: o, exists: c == keyword("n")}
			}
		}
	}
	num, o, err := f.readIndirect(off, -1)
	if err != nil {
		return nil, err
	}
	s, ok := o.(*stream)
	if !ok || s.dict["Type"] != name("XRef") {
		return nil, errSyntax
	}
	_ = num
	b, err := f.decode(s)
	if err != nil {
		return nil, err
	}
	w, ok := s.dict["W"].(array)
	if !ok || len(w) != 3 {
		return nil, errSyntax
	}
	var ws [3]int
	for i := range ws {
		v, ok := w[i].(int64)
		if !ok || v < 0 || v > 8 {
			return nil, errSyntax
		}
		ws[i] = int(v)
	}
	row := ws[0] + ws[1] + ws[2]
	if row == 0 {
		return nil, errSyntax
	}
	size, _ := s.dict["Size"].(int64)
	index := array{int64(0), size}
	if ix, ok := s.dict["Index"].(array); ok {
		index = ix
	}
	pos := 0
	for i := 0; i+1 < len(index); i += 2 {
		start, ok1 := index[i].(int64)
		count, ok2 := index[i+1].(int64)
		if !ok1 || !ok2 || start < 0 || count < 0 || start > 1<<31 {
			return nil, errSyntax
		}
		for k := int64(0); k < count; k++ {
			if pos+row > len(b) {
				return s.dict, nil
			}
			field := func(j, n int) int64 {
				var v int64
				for _, c := range b[j : j+n] {
					v = v<<8 | int64(c)
				}
				return v
			}
			typ := int64(1)
			if ws[0] > 0 {
				typ = field(pos, ws[0])
			}
			f2 := field(pos+ws[0], ws[1])
			f3 := field(pos+ws[0]+ws[1], ws[2])
			pos += row
			n := int(start + k)
			if _, had := f.xref[n]; had {
				continue
			}
			switch typ {
			case 1:
				f.xref[n] = xrefEntry{off: f2, exists: true}
			case 2:
				f.xref[n] = xrefEntry{off: f2, idx: int(f3), inStm: true, exists: true}
			default:
				f.xref[n] = xrefEntry{}
			}
		}
	}
	return s.dict, nil
}

// reconstruct scans the file for "n g obj" and trailers when the cross-reference
// data is broken, as readers do.
func (f *pdfFile) reconstruct() {
	d := f.data
	for i := 0; ; {
		j := bytes.Index(d[i:], []byte("obj"))
		if j < 0 {
			break
		}
		at := i + j
		i = at + 3
		// walk back over "n g " before "obj"
		k := at - 1
		for k >= 0 && isWhite(d[k]) {
			k--
		}
		ge := k
		for k >= 0 && d[k] >= '0' && d[k] <= '9' {
			k--
		}
		if k == ge {
			continue
		}
		gs := k + 1
		for k >= 0 && isWhite(d[k]) {
			k--
		}
		ne := k
		for k >= 0 && d[k] >= '0' && d[k] <= '9' {
			k--
		}
		if k == ne || ne-k > 10 {
			continue
		}
		num, err := strconv.Atoi(string(d[k+1 : ne+1]))
		if err != nil || gs > ge+1 {
			continue
		}
		f.xref[num] = xrefEntry{off: int64(k + 1), exists: true}
	}
	// The trailer: the last trailer dictionary with a Root, else an xref stream's.
	for i := len(d); i > 0; {
		j := bytes.LastIndex(d[:i], []byte("trailer"))
		if j < 0 {
			break
		}
		i = j
		l := &lexer{data: d, pos: j + len("trailer")}
		if o, err := l.object(0); err == nil {
			if t, ok := o.(dict); ok && t["Root"] != nil {
				f.trailer = t
				return
			}
		}
	}
	for num, e := range f.xref {
		if f.budget.objects > f.budget.MaxObjects {
			return
		}
		if _, o, err := f.readIndirect(int(e.off), num); err == nil {
			if s, ok := o.(*stream); ok && s.dict["Type"] == name("XRef") && s.dict["Root"] != nil {
				f.trailer = s.dict
				return
			}
		}
	}
	// No trailer: find a catalog.
	for num := range f.xref {
		if d, ok := f.get(ref{num, 0}).(dict); ok && d["Type"] == name("Catalog") {
			f.trailer = dict{"Root": ref{num, 0}}
			return
		}
	}
}

// readIndirect parses "n g obj ... endobj" at off; want >= 0 checks the number.
func (f *pdfFile) readIndirect(off, want int) (int, any, error) {
	f.budget.objects++
	if f.budget.objects > f.budget.MaxObjects {
		return 0, nil, fmt.Errorf("%w: more than %d objects", errBudget, f.budget.MaxObjects)
	}
	if off < 0 || off >= len(f.data) {
		return 0, nil, errSyntax
	}
	l := &lexer{data: f.data, pos: off}
	a, _ := l.next()
	b, _ := l.next()
	c, err := l.next()
	num, ok1 := a.(int64)
	_, ok2 := b.(int64)
	if err != nil || !ok1 || !ok2 || c != keyword("obj") {
		return 0, nil, errSyntax
	}
	if want >= 0 && int(num) != want {
		return 0, nil, errSyntax
	}
	o, err := l.object(0)
	if err != nil {
		return 0, nil, err
	}
	d, ok := o.(dict)
	if !ok {
		return int(num), o, nil
	}
	save := l.pos
	t, err := l.next()
	if err != nil || t != keyword("stream") {
		l.pos = save
		return int(num), d, nil
	}
	p := l.pos
	if p < len(f.data) && f.data[p] == '\r' {
		p++
	}
	if p < len(f.data) && f.data[p] == '\n' {
		p++
	}
	n := int64(-1)
	switch v := d["Length"].(type) {
	case int64:
		n = v
	case ref:
		if v.num != int(num) { // a Length pointing at its own stream would loop
			if x, ok := f.getDepth(v, 1).(int64); ok {
				n = x
			}
		}
	}
	if n < 0 || int64(p)+n > int64(len(f.data)) || !bytes.Contains(f.data[p+int(n):min(len(f.data), p+int(n)+32)], []byte("endstream")) {
		e := f.nextEndstream(p)
		if e < 0 {
			return 0, nil, errSyntax
		}
		n = int64(e - p)
		for n > 0 && (f.data[p+int(n)-1] == '\n' || f.data[p+int(n)-1] == '\r') {
			n--
		}
	}
	return int(num), &stream{dict: d, raw: f.data[p : p+int(n)]}, nil
}

// nextEndstream is the offset of the first "endstream" at or after p, or -1.
func (f *pdfFile) nextEndstream(p int) int {
	if !f.endIndexed {
		f.endIndexed = true
		for i := 0; ; {
			j := bytes.Index(f.data[i:], []byte("endstream"))
			if j < 0 {
				break
			}
			f.endstreams = append(f.endstreams, i+j)
			i += j + len("endstream")
		}
	}
	k, _ := slices.BinarySearch(f.endstreams, p)
	if k == len(f.endstreams) {
		return -1
	}
	return f.endstreams[k]
}

// get resolves o when it is a reference; other values are returned as they are.
func (f *pdfFile) get(o any) any { return f.getDepth(o, 0) }

func (f *pdfFile) getDepth(o any, depth int) any {
	r, ok := o.(ref)
	if !ok {
		return o
	}
	if depth > 8 {
		return nil
	}
	if v, ok := f.cache[r.num]; ok {
		return v
	}
	f.cache[r.num] = nil // a reference cycle resolves to null
	e, ok := f.xref[r.num]
	if !ok || !e.exists {
		return nil
	}
	var v any
	if e.inStm {
		v = f.fromObjStm(int(e.off), e.idx, depth)
	} else {
		_, o, err := f.readIndirect(int(e.off), r.num)
		if err != nil {
			if errors.Is(err, errBudget) && f.err == nil {
				f.err = err
			}
			return nil
		}
		v = o
	}
	if r2, ok := v.(ref); ok {
		v = f.getDepth(r2, depth+1)
	}
	f.cache[r.num] = v
	return v
}

func (f *pdfFile) fromObjStm(stmNum, idx, depth int) any {
	objs, ok := f.objstms[stmNum]
	if !ok {
		f.objstms[stmNum] = nil
		s, _ := f.getDepth(ref{stmNum, 0}, depth+1).(*stream)
		if s != nil && s.dict["Type"] == name("ObjStm") {
			objs = f.parseObjStm(s)
		}
		f.objstms[stmNum] = objs
	}
	if idx < 0 || idx >= len(objs) {
		return nil
	}
	return objs[idx]
}

func (f *pdfFile) parseObjStm(s *stream) []any {
	b, err := f.decode(s)
	if err != nil {
		return nil
	}
	n, _ := s.dict["N"].(int64)
	first, _ := s.dict["First"].(int64)
	if n <= 0 || first < 0 || first > int64(len(b)) || n > int64(len(b)) {
		return nil
	}
	l := &lexer{data: b[:first]}
	offs := make([]int64, 0, n)
	for i := int64(0); i < n; i++ {
		_, _ = l.next()
		t, err := l.next()
		o, ok := t.(int64)
		if err != nil || !ok {
			break
		}
		offs = append(offs, o)
	}
	objs := make([]any, len(offs))
	for i, o := range offs {
		f.budget.objects++
		if f.budget.objects > f.budget.MaxObjects {
			f.err = fmt.Errorf("%w: more than %d objects", errBudget, f.budget.MaxObjects)
			return objs[:i]
		}
		if first+o >= int64(len(b)) || o < 0 {
			continue
		}
		lo := &lexer{data: b, pos: int(first + o)}
		if v, err := lo.object(0); err == nil {
			objs[i] = v
		}
	}
	return objs
}

// errFilter: a stream's filter is one the checker does not decode.
var errFilter = errors.New("filter not decoded by the checker")

// filters returns the stream's filter names.
func (f *pdfFile) filters(s *stream) []name {
	switch v := f.get(s.dict["Filter"]).(type) {
	case name:
		return []name{v}
	case array:
		var out []name
		for _, x := range v {
			if n, ok := f.get(x).(name); ok {
				out = append(out, n)
			}
		}
		return out
	}
	return nil
}

// decode returns the stream's decoded bytes: Flate (with PNG predictors) or no
// filter; anything else is errFilter. Decoded bytes count against the budget.
func (f *pdfFile) decode(s *stream) ([]byte, error) {
	fs := f.filters(s)
	if len(fs) == 0 {
		return s.raw, nil
	}
	if len(fs) > 1 || (fs[0] != "FlateDecode" && fs[0] != "Fl") {
		return nil, errFilter
	}
	zr, err := zlib.NewReader(bytes.NewReader(s.raw))
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	n, err := io.Copy(&buf, io.LimitReader(zr, f.budget.MaxStream+1))
	if n > f.budget.MaxStream {
		return nil, fmt.Errorf("%w: a stream decodes to more than %d bytes", errBudget, f.budget.MaxStream)
	}
	if berr := f.budget.spendInflate(n); berr != nil {
		return nil, berr
	}
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) {
		return nil, err
	}
	out := buf.Bytes()
	parms, _ := f.get(s.dict["DecodeParms"]).(dict)
	if pred, _ := f.get(parms["Predictor"]).(int64); pred >= 10 {
		cols, _ := f.get(parms["Columns"]).(int64)
		colors, _ := f.get(parms["Colors"]).(int64)
		bpc, _ := f.get(parms["BitsPerComponent"]).(int64)
		if cols <= 0 {
			cols = 1
		}
		if colors <= 0 {
			colors = 1
		}
		if bpc <= 0 {
			bpc = 8
		}
		if cols > 1<<24 || colors > 32 || bpc > 16 {
			return nil, errSyntax
		}
		return unpredict(out, int(cols*colors*bpc+7)/8, int(max(1, colors*bpc/8)))
	}
	return out, nil
}

// unpredict undoes PNG row predictors: rows of rowLen bytes, each after a filter
// byte; bpp bytes per pixel.
func unpredict(b []byte, rowLen, bpp int) ([]byte, error) {
	if rowLen <= 0 {
		return nil, errSyntax
	}
	out := make([]byte, 0, len(b))
	prev := make([]byte, rowLen)
	for len(b) >= rowLen+1 {
		ft, row := b[0], b[1:rowLen+1]
		b = b[rowLen+1:]
		cur := make([]byte, rowLen)
		for i := range row {
			var a, c byte
			if i >= bpp {
				a, c = cur[i-bpp], prev[i-bpp]
			}
			up := prev[i]
			switch ft {
			case 0:
				cur[i] = row[i]
			case 1:
				cur[i] = row[i] + a
			case 2:
				cur[i] = row[i] + up
			case 3:
				cur[i] = row[i] + byte((int(a)+int(up))/2)
			case 4:
				cur[i] = row[i] + paeth(a, up, c)
			default:
				return nil, errSyntax
			}
		}
		out = append(out, cur...)
		prev = cur
	}
	return out, nil
}

func paeth(a, b, c byte) byte {
	p := int(a) + int(b) - int(c)
	pa, pb, pc := abs(p-int(a)), abs(p-int(b)), abs(p-int(c))
	if pa <= pb && pa <= pc {
		return a
	}
	if pb <= pc {
		return b
	}
	return c
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// Helpers reading typed values through references.

func (f *pdfFile) dictOf(o any) dict {
	switch v := f.get(o).(type) {
	case dict:
		return v
	case *stream:
		return v.dict
	}
	return nil
}

func (f *pdfFile) arrayOf(o any) array { a, _ := f.get(o).(array); return a }

func (f *pdfFile) num(o any) (float64, bool) {
	switch v := f.get(o).(type) {
	case int64:
		return float64(v), true
	case float64:
		return v, true
	}
	return 0, false
}

// rect reads a rectangle, normalised so x0 <= x1 and y0 <= y1.
func (f *pdfFile) rect(o any) (r rect, ok bool) {
	a := f.arrayOf(o)
	if len(a) != 4 {
		return r, false
	}
	var v [4]float64
	for i := range v {
		if v[i], ok = f.num(a[i]); !ok {
			return r, false
		}
	}
	return rect{min(v[0], v[2]), min(v[1], v[3]), max(v[0], v[2]), max(v[1], v[3])}, true
}

type rect struct{ x0, y0, x1, y1 float64 }

func (r rect) String() string {
	return fmt.Sprintf("[%.2f %.2f %.2f %.2f]", r.x0, r.y0, r.x1, r.y1)
}

// inside: r lies within o, with a tolerance of a hundredth of a point for the
// rounding of writers.
func (r rect) inside(o rect) bool {
	const eps = 0.01
	return r.x0 >= o.x0-eps && r.y0 >= o.y0-eps && r.x1 <= o.x1+eps && r.y1 <= o.y1+eps
}

// pages returns the page dictionaries with their inherited attributes resolved
// (Resources, MediaBox, CropBox, Rotate), at most max pages.
func (f *pdfFile) pages(maxPages int) []dict {
	root := f.dictOf(f.trailer["Root"])
	var out []dict
	seen := map[any]bool{}
	var walk func(o any, inh dict, depth int)
	walk = func(o any, inh dict, depth int) {
		if depth > maxDepth || len(out) >= maxPages {
			return
		}
		if r, ok := o.(ref); ok {
			if seen[r] {
				return
			}
			seen[r] = true
		}
		d := f.dictOf(o)
		if d == nil {
			return
		}
		next := dict{}
		for k, v := range inh {
			next[k] = v
		}
		for _, k := range []name{"Resources", "MediaBox", "CropBox", "Rotate"} {
			if v, ok := d[k]; ok {
				next[k] = v
			}
		}
		if kids, ok := f.get(d["Kids"]).(array); ok && d["Type"] != name("Page") {
			for _, k := range kids {
				walk(k, next, depth+1)
			}
			return
		}
		page := dict{}
		for k, v := range d {
			page[k] = v
		}
		for k, v := range next {
			page[k] = v
		}
		out = append(out, page)
	}
	walk(root["Pages"], dict{}, 0)
	return out
}
