package impose

import (
	"bytes"
	"compress/zlib"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
)

// outputIntent is an item's PDF/X output intent: the profile a sheet of such items
// carries so that it stays PDF/X-4.
type outputIntent struct {
	info string
	icc  []byte
	sum  [32]byte
}

// maxICC bounds an embedded output profile (the largest press profiles are a few MB).
const maxICC = 16 << 20

var (
	reGTS      = regexp.MustCompile(`/S\s*/GTS_PDFX`)
	reDest     = regexp.MustCompile(`/DestOutputProfile\s+(\d{1,9})\s+0\s+R`)
	reInfo     = regexp.MustCompile(`/Info\s*\(([^()\\]{0,200})\)`)
	reOCI      = regexp.MustCompile(`/OutputConditionIdentifier\s*\(([^()\\]{0,200})\)`)
	reLength   = regexp.MustCompile(`/Length\s+(\d{1,9})[\s/>]`)
	errNoProfi = errors.New("declares a PDF/X output intent whose profile cannot be read (an output intent inside a compressed object stream is not supported)")
)

// findOutputIntent returns a PDF's GTS_PDFX output intent, or nil when it has none.
// It reads the intent the way print PDFs write it (printworker's PDF/X-4 exports
// among them): the intent dictionary in the file's plain objects, its profile a
// Flate stream with a direct /Length.
func findOutputIntent(data []byte) (*outputIntent, error) {
	loc := reGTS.FindIndex(data)
	if loc == nil {
		return nil, nil
	}
	// The intent dictionary around the match: from its "<<" to its ">>".
	start := bytes.LastIndex(data[:loc[0]], []byte("<<"))
	end := bytes.Index(data[loc[1]:], []byte(">>"))
	if start < 0 || end < 0 {
		return nil, errNoProfi
	}
	dict := data[start : loc[1]+end]
	m := reDest.FindSubmatch(dict)
	if m == nil {
		return nil, errNoProfi
	}
	oi := &outputIntent{}
	if i := reInfo.FindSubmatch(dict); i != nil {
		oi.info = string(i[1])
	} else if i := reOCI.FindSubmatch(dict); i != nil {
		oi.info = string(i[1])
	}
	obj := append(append([]byte("\n"), m[1]...), " 0 obj"...)
	at := bytes.Index(data, obj)
	if at < 0 {
		if !bytes.HasPrefix(data, obj[1:]) {
			return nil, errNoProfi
		}
		at = 0
	}
	rest := data[at:]
	s := bytes.Index(rest, []byte("stream"))
	if s < 0 {
		return nil, errNoProfi
	}
	l := reLength.FindSubmatch(rest[:s])
	if l == nil || !bytes.Contains(rest[:s], []byte("/FlateDecode")) {
		return nil, errNoProfi
	}
	n, _ := strconv.Atoi(string(l[1]))
	s += len("stream")
	if s < len(rest) && rest[s] == '\r' {
		s++
	}
	if s < len(rest) && rest[s] == '\n' {
		s++
	}
	if s+n > len(rest) {
		return nil, errNoProfi
	}
	zr, err := zlib.NewReader(bytes.NewReader(rest[s : s+n]))
	if err != nil {
		return nil, fmt.Errorf("output profile: %w", err)
	}
	icc, err := io.ReadAll(io.LimitReader(zr, maxICC+1))
	if err != nil {
		return nil, fmt.Errorf("output profile: %w", err)
	}
	if len(icc) > maxICC || len(icc) < 128 {
		return nil, fmt.Errorf("output profile of %d bytes is not an ICC profile", len(icc))
	}
	oi.icc, oi.sum = icc, sha256.Sum256(icc)
	return oi, nil
}
