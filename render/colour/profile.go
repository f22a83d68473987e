package colour

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"os"
	"strings"
)

// Limits that keep hostile profiles in bounded memory and CPU. Real output profiles
// are far below them (the largest Debian ships is 187 KB); lcms uses the same tag
// count limit.
const (
	maxProfileSize = 64 << 20
	maxTags        = 100
	maxChannels    = 15
	maxCLUTEntries = 1 << 24
)

// Profile is a parsed ICC profile. It is immutable after parsing and safe for
// concurrent use.
type Profile struct {
	raw      []byte
	version  uint32 // encoded header version, 0x04200000 for 4.2
	class    string // "prtr", "mntr", "scnr", "link", "abst", "spac", "nmcl"
	space    string // data colour space signature, "CMYK", "RGB ", ...
	pcs      string // "XYZ " or "Lab "
	desc     string
	wtpt     *xyz
	luts     map[string]*lutTag // A2B0..2, B2A0..2
	rgbTRC   [3]curve
	rgbXYZ   [3]xyz
	grayTRC  curve
	hasMatrx bool
}

type xyz struct{ X, Y, Z float64 }

type tagEntry struct {
	off, size uint32
}

// LoadProfile reads and parses an ICC profile file.
func LoadProfile(path string) (*Profile, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("colour: %w", err)
	}
	if fi.Size() > maxProfileSize {
		return nil, classify(ErrInvalidProfile, fmt.Errorf("colour: %s: profile is %d bytes, more than the %d allowed", path, fi.Size(), maxProfileSize))
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("colour: %w", err)
	}
	p, err := ParseProfile(data)
	if err != nil {
		return nil, fmt.Errorf("%w (file %s)", err, path)
	}
	return p, nil
}

// ParseProfile validates and parses an ICC profile: header, tag table, tag sizes and
// every tag the engine uses (description, white point, colorants, TRCs, A2B/B2A
// tables). Errors say what is wrong and where.
func ParseProfile(data []byte) (*Profile, error) {
	p, err := parseProfile(data)
	return p, classify(ErrInvalidProfile, err)
}

func parseProfile(data []byte) (*Profile, error) {
	if len(data) < 132 {
		return nil, fmt.Errorf("colour: ICC profile truncated: %d bytes, a header and tag count need 132", len(data))
	}
	if len(data) > maxProfileSize {
		return nil, fmt.Errorf("colour: ICC profile is %d bytes, more than the %d allowed", len(data), maxProfileSize)
	}
	be := binary.BigEndian
	size := be.Uint32(data[0:4])
	if string(data[36:40]) != "acsp" {
		return nil, fmt.Errorf("colour: not an ICC profile (no 'acsp' signature at byte 36)")
	}
	if size < 132 || uint64(size) > uint64(len(data)) {
		return nil, fmt.Errorf("colour: ICC profile header says %d bytes but %d are present (truncated or corrupt)", size, len(data))
	}
	data = data[:size]
	p := &Profile{
		raw:     append([]byte(nil), data...),
		version: be.Uint32(data[8:12]),
		class:   string(data[12:16]),
		space:   string(data[16:20]),
		pcs:     string(data[20:24]),
		luts:    map[string]*lutTag{},
	}
	if major := p.version >> 24; major < 2 || major > 5 {
		return nil, fmt.Errorf("colour: unsupported ICC version %s", p.Version())
	}
	if spaceChannels(p.space) == 0 {
		return nil, fmt.Errorf("colour: unsupported data colour space %q", p.space)
	}
	if p.class != "link" && p.pcs != "XYZ " && p.pcs != "Lab " {
		return nil, fmt.Errorf("colour: profile connection space %q is neither XYZ nor Lab", p.pcs)
	}
	tags, err := readTagTable(p.raw)
	if err != nil {
		return nil, err
	}
	if err := p.readTags(tags); err != nil {
		return nil, err
	}
	return p, nil
}

func readTagTable(data []byte) (map[string]tagEntry, error) {
	be := binary.BigEndian
	n := be.Uint32(data[128:132])
	if n > maxTags {
		return nil, fmt.Errorf("colour: tag table claims %d tags (at most %d allowed)", n, maxTags)
	}
	if 132+12*uint64(n) > uint64(len(data)) {
		return nil, fmt.Errorf("colour: tag table of %d entries runs past the end of the profile", n)
	}
	tags := make(map[string]tagEntry, n)
	for i := uint32(0); i < n; i++ {
		e := data[132+12*i:]
		sig := string(e[0:4])
		t := tagEntry{off: be.Uint32(e[4:8]), size: be.Uint32(e[8:12])}
		if t.size < 8 || uint64(t.off)+uint64(t.size) > uint64(len(data)) || t.off < 128 {
			return nil, fmt.Errorf("colour: tag %q (offset %d, size %d) lies outside the %d-byte profile", sig, t.off, t.size, len(data))
		}
		tags[sig] = t
	}
	return tags, nil
}

func (p *Profile) readTags(tags map[string]tagEntry) error {
	body := func(sig string) ([]byte, bool) {
		t, ok := tags[sig]
		if !ok {
			return nil, false
		}
		return p.raw[t.off : t.off+t.size], true
	}
	if b, ok := body("desc"); ok {
		d, err := readText(b)
		if err != nil {
			return fmt.Errorf("colour: tag desc: %w", err)
		}
		p.desc = d
	}
	if b, ok := body("wtpt"); ok {
		w, err := readXYZ(b)
		if err != nil {
			return fmt.Errorf("colour: tag wtpt: %w", err)
		}
		p.wtpt = &w
	}
	for _, sig := range []string{"A2B0", "A2B1", "A2B2", "B2A0", "B2A1", "B2A2"} {
		b, ok := body(sig)
		if !ok {
			continue
		}
		l, err := readLut(b)
		if err != nil {
			return fmt.Errorf("colour: tag %s: %w", sig, err)
		}
		in, out := spaceChannels(p.space), 3
		if sig[0] == 'B' {
			in, out = out, in
		}
		if p.class != "link" && p.class != "abst" && (l.in != in || l.out != out) {
			return fmt.Errorf("colour: tag %s maps %d to %d channels, the %s profile needs %d to %d", sig, l.in, l.out, strings.TrimSpace(p.space), in, out)
		}
		p.luts[sig] = l
	}
	if err := p.readMatrixShaper(body); err != nil {
		return err
	}
	return nil
}

func (p *Profile) readMatrixShaper(body func(string) ([]byte, bool)) error {
	switch p.space {
	case "RGB ":
		var err error
		n := 0
		for i, c := range []string{"r", "g", "b"} {
			if b, ok := body(c + "XYZ"); ok {
				if p.rgbXYZ[i], err = readXYZ(b); err != nil {
					return fmt.Errorf("colour: tag %sXYZ: %w", c, err)
				}
				n++
			}
			if b, ok := body(c + "TRC"); ok {
				if p.rgbTRC[i], err = readCurve(b); err != nil {
					return fmt.Errorf("colour: tag %sTRC: %w", c, err)
				}
				n++
			}
		}
		p.hasMatrx = n == 6
	case "GRAY":
		if b, ok := body("kTRC"); ok {
			c, err := readCurve(b)
			if err != nil {
				return fmt.Errorf("colour: tag kTRC: %w", err)
			}
			p.grayTRC = c
			p.hasMatrx = true
		}
	}
	return nil
}

// spaceChannels is the channel count of an ICC colour space signature, 0 when unknown.
func spaceChannels(sig string) int {
	switch sig {
	case "GRAY":
		return 1
	case "XYZ ", "Lab ", "Luv ", "YCbr", "Yxy ", "RGB ", "HSV ", "HLS ", "CMY ":
		return 3
	case "CMYK":
		return 4
	}
	// nCLR: 2CLR..FCLR
	if len(sig) == 4 && sig[1:] == "CLR" {
		c := sig[0]
		switch {
		case c >= '2' && c <= '9':
			return int(c - '0')
		case c >= 'A' && c <= 'F':
			return int(c-'A') + 10
		}
	}
	return 0
}

// ColorSpace is the profile's device colour space: "CMYK", "RGB", "GRAY", "Lab"...
func (p *Profile) ColorSpace() string { return strings.TrimSpace(p.space) }

// PCS is the profile connection space, "XYZ" or "Lab".
func (p *Profile) PCS() string { return strings.TrimSpace(p.pcs) }

// Class is the profile/device class signature: "prtr" (output), "mntr", "scnr", ...
func (p *Profile) Class() string { return p.class }

// Channels is the number of device channels (4 for CMYK).
func (p *Profile) Channels() int { return spaceChannels(p.space) }

// Description is the profile's description (v2 'desc' or v4 'mluc', English preferred).
func (p *Profile) Description() string { return p.desc }

// Version is the ICC version from the header, for example "2.1.0" or "4.2.0".
func (p *Profile) Version() string {
	return fmt.Sprintf("%d.%d.%d", p.version>>24, (p.version>>20)&0xf, (p.version>>16)&0xf)
}

// Bytes returns the original profile bytes, for embedding (PDF OutputIntent, TIFF tag
// 34675). The caller must not modify them.
func (p *Profile) Bytes() []byte { return p.raw }

// SHA256 is the hex SHA-256 of Bytes, to name a profile in manifests and logs.
func (p *Profile) SHA256() string {
	s := sha256.Sum256(p.raw)
	return hex.EncodeToString(s[:])
}

// IsMatrixShaper reports whether the profile has the tags of an RGB matrix/TRC or a
// gray TRC profile (lcms cmsIsMatrixShaper).
func (p *Profile) IsMatrixShaper() bool { return p.hasMatrx }

func (p *Profile) isV4() bool { return p.version >= 0x04000000 }

// Tag tables per intent, as lcms (absolute uses the colorimetric tables).
var (
	device2PCS = [4]string{"A2B0", "A2B1", "A2B2", "A2B1"}
	pcs2Device = [4]string{"B2A0", "B2A1", "B2A2", "B2A1"}
)

// isCLUT reports whether the profile has the table for this intent and direction
// (lcms cmsIsCLUT: no fallback to the perceptual table here).
func (p *Profile) isCLUT(intent Intent, output bool) bool {
	if intent < 0 || intent > AbsoluteColorimetric {
		return false
	}
	if output {
		return p.luts[pcs2Device[intent]] != nil
	}
	return p.luts[device2PCS[intent]] != nil
}

func (p *Profile) isIntentSupported(intent Intent, output bool) bool {
	return p.isCLUT(intent, output) || p.hasMatrx
}

// mediaWhite is lcms _cmsReadMediaWhitePoint: D50 when absent, and D50 for v2
// display profiles (whose wtpt is often the un-adapted display white).
func (p *Profile) mediaWhite() xyz {
	if p.wtpt == nil {
		return d50
	}
	if !p.isV4() && p.class == "mntr" {
		return d50
	}
	return *p.wtpt
}
