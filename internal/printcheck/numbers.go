package printcheck

import (
	"bytes"
	"compress/zlib"
	"fmt"
	"io"
	"math"
	"regexp"
	"strconv"
)

// ReaderMaxReal is the largest real PDF readers take (ISO 32000-1 Annex C: about
// ±3.403e38, a 32-bit float); a bigger number, infinity or NaN makes a reader fail
// ("Unknown operator 'Inf'") or draw garbage.
const ReaderMaxReal = 3.403e38

// maxInflated bounds what Numbers inflates of one content stream, so a hostile file
// cannot make the checker itself run out of memory.
const maxInflated = 64 << 20

// Numbers checks every number of a PDF document the way a reader meets them: in the
// objects' dictionaries and arrays, and in the page and form content streams (inflated
// when FlateDecode). Each must be a well-formed PDF number (no exponent, no "Inf" or
// "NaN") whose magnitude is at most limit in content streams and ReaderMaxReal in
// objects; every content stream operator must be one PDF defines. Font, image, ICC and
// other binary streams are not read. It returns the first problem found.
func Numbers(b []byte, limit float64) error {
	objs := pdfObjects(b)
	if len(objs) == 0 {
		return fmt.Errorf("no objects found")
	}
	contents := map[string]bool{}
	for _, o := range objs {
		for _, m := range contentsRef.FindAllSubmatch(o.dict, -1) {
			contents[string(m[1])] = true
		}
		for _, m := range contentsArray.FindAllSubmatch(o.dict, -1) {
			for _, r := range ref.FindAllSubmatch(m[1], -1) {
				contents[string(r[1])] = true
			}
		}
	}
	for _, o := range objs {
		if err := lex(o.dict, false, ReaderMaxReal); err != nil {
			return fmt.Errorf("object %s: %w", o.num, err)
		}
		if o.stream == nil || !(contents[o.num] || formXObject.Match(o.dict)) {
			continue
		}
		data := o.stream
		if bytes.Contains(o.dict, []byte("/FlateDecode")) {
			zr, err := zlib.NewReader(bytes.NewReader(data))
			if err != nil {
				return fmt.Errorf("object %s: content stream: %w", o.num, err)
			}
			data, err = io.ReadAll(io.LimitReader(zr, maxInflated))
			if err != nil {
				return fmt.Errorf("object %s: content stream: %w", o.num, err)
			}
		}
		if err := lex(data, true, limit); err != nil {
			return fmt.Errorf("object %s: content stream: %w", o.num, err)
		}
	}
	return nil
}

var (
	objStart      = regexp.MustCompile(`(?m)(?:^|[\r\n ])(\d+) (\d+) obj\b`)
	contentsRef   = regexp.MustCompile(`/Contents\s+(\d+)\s+\d+\s+R`)
	contentsArray = regexp.MustCompile(`/Contents\s*\[([^\]]*)\]`)
	ref           = regexp.MustCompile(`(\d+)\s+\d+\s+R`)
	formXObject   = regexp.MustCompile(`/Subtype\s*/Form\b`)
	streamLength  = regexp.MustCompile(`/Length\s+(\d+)(?:\s|/|>)`)
)

type pdfObject struct {
	num    string
	dict   []byte // the object's text before "stream" (all of it without a stream)
	stream []byte // raw stream data, nil without a stream
}

// pdfObjects splits a PDF file into its indirect objects. Stream data is skipped by
// its direct /Length (else by the next "endstream"), so binary data never passes for
// an object's text.
func pdfObjects(b []byte) []pdfObject {
	var out []pdfObject
	for pos := 0; pos < len(b); {
		m := objStart.FindSubmatchIndex(b[pos:])
		if m == nil {
			break
		}
		o := pdfObject{num: string(b[pos+m[2] : pos+m[3]])}
		body := pos + m[1]
		end := bytes.Index(b[body:], []byte("endobj"))
		st := bytes.Index(b[body:], []byte("stream"))
		if st >= 0 && (end < 0 || st < end) && !bytes.HasSuffix(b[body:body+st], []byte("end")) {
			o.dict = b[body : body+st]
			data := body + st + len("stream")
			if data < len(b) && b[data] == '\r' {
				data++
			}
			if data < len(b) && b[data] == '\n' {
				data++
			}
			n := -1
			if l := streamLength.FindSubmatch(o.dict); l != nil {
				if v, err := strconv.Atoi(string(l[1])); err == nil && v >= 0 && data+v <= len(b) {
					n = v
				}
			}
			if n < 0 {
				e := bytes.Index(b[data:], []byte("endstream"))
				if e < 0 {
					e = len(b) - data
				}
				n = e
			}
			o.stream = b[data : data+n]
			pos = data + n
			if e := bytes.Index(b[pos:], []byte("endobj")); e >= 0 {
				pos += e + len("endobj")
			}
		} else {
			if end < 0 {
				end = len(b) - body
			}
			o.dict = b[body : body+end]
			pos = body + end
		}
		out = append(out, o)
	}
	return out
}

// operators are the content stream operators of ISO 32000-1 (Annex A).
var operators = map[string]bool{}

func init() {
	for _, op := range []string{
		"b", "B", "b*", "B*", "BDC", "BI", "BMC", "BT", "BX", "c", "cm", "CS", "cs", "d", "d0", "d1",
		"Do", "DP", "EI", "EMC", "ET", "EX", "f", "F", "f*", "G", "g", "gs", "h", "i", "ID", "j", "J",
		"K", "k", "l", "m", "M", "MP", "n", "q", "Q", "re", "RG", "rg", "ri", "s", "S", "SC", "sc",
		"SCN", "scn", "sh", "T*", "Tc", "Td", "TD", "Tf", "Tj", "TJ", "TL", "Tm", "Tr", "Ts", "Tw",
		"Tz", "v", "w", "W", "W*", "y", "'", `"`,
	} {
		operators[op] = true
	}
}

// objectKeywords are the bare words an object's text may hold.
var objectKeywords = map[string]bool{"obj": true, "endobj": true, "R": true, "true": true, "false": true, "null": true}

// lex reads PDF tokens from b and checks its numbers (magnitude at most limit) and
// bare words (content operators when content, else object keywords).
func lex(b []byte, content bool, limit float64) error {
	for i := 0; i < len(b); {
		c := b[i]
		switch {
		case isSpace(c):
			i++
		case c == '%':
			for i < len(b) && b[i] != '\n' && b[i] != '\r' {
				i++
			}
		case c == '(':
			depth := 0
			for ; i < len(b); i++ {
				if b[i] == '\\' {
					i++
					continue
				}
				if b[i] == '(' {
					depth++
				} else if b[i] == ')' {
					depth--
					if depth == 0 {
						i++
						break
					}
				}
			}
		case c == '<' && i+1 < len(b) && b[i+1] == '<', c == '>' && i+1 < len(b) && b[i+1] == '>':
			i += 2
		case c == '<':
			e := bytes.IndexByte(b[i:], '>')
			if e < 0 {
				return fmt.Errorf("unterminated hex string")
			}
			i += e + 1
		case c == '[' || c == ']' || c == '{' || c == '}':
			i++
		case c == '/':
			i++
			for i < len(b) && !isSpace(b[i]) && !isDelim(b[i]) {
				i++
			}
		default:
			j := i
			for j < len(b) && !isSpace(b[j]) && !isDelim(b[j]) {
				j++
			}
			if j == i {
				return fmt.Errorf("unexpected byte %q", c)
			}
			tok := string(b[i:j])
			i = j
			if c == '+' || c == '-' || c == '.' || c >= '0' && c <= '9' {
				if err := checkNumber(tok, limit); err != nil {
					return err
				}
				continue
			}
			if !content {
				if !objectKeywords[tok] {
					return fmt.Errorf("unknown keyword %.40q", tok)
				}
				continue
			}
			if !operators[tok] {
				return fmt.Errorf("unknown operator %.40q", tok)
			}
			if tok == "ID" {
				// Inline image data runs to the next "EI" after white space.
				e := bytes.Index(b[i:], []byte("EI"))
				if e < 0 {
					return fmt.Errorf("inline image without EI")
				}
				i += e + 2
			}
		}
	}
	return nil
}

// checkNumber checks a token that starts like a number.
func checkNumber(tok string, limit float64) error {
	digits, dots := 0, 0
	for k := 0; k < len(tok); k++ {
		switch c := tok[k]; {
		case c >= '0' && c <= '9':
			digits++
		case c == '.':
			dots++
		case (c == '+' || c == '-') && k == 0:
		default:
			return fmt.Errorf("malformed number %.40q", tok)
		}
	}
	if digits == 0 || dots > 1 {
		return fmt.Errorf("malformed number %.40q", tok)
	}
	v, err := strconv.ParseFloat(tok, 64)
	if err != nil || math.IsInf(v, 0) || math.IsNaN(v) || math.Abs(v) > limit {
		return fmt.Errorf("number %.40q out of range ±%g", tok, limit)
	}
	return nil
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\n' || c == '\r' || c == '\t' || c == '\f' || c == 0
}

func isDelim(c byte) bool {
	switch c {
	case '(', ')', '<', '>', '[', ']', '{', '}', '/', '%':
		return true
	}
	return false
}
