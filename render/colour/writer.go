package colour

import (
	"encoding/binary"
	"math"
	"unicode/utf16"
)

// rawTag is one tag's data and the signatures that point at it (tags may share data).
type rawTag struct {
	sigs []string
	body []byte
}

// encodeProfile writes an ICC profile: header (D50 illuminant, a fixed creation date
// so the bytes and their hash are stable), tag table and 4-byte aligned tag data.
func encodeProfile(version uint32, class, space, pcs string, tags []rawTag) []byte {
	n := 0
	for _, t := range tags {
		n += len(t.sigs)
	}
	headLen := 128 + 4 + 12*n
	var table, body []byte
	for _, t := range tags {
		for len(body)%4 != 0 {
			body = append(body, 0)
		}
		off := uint32(headLen + len(body))
		body = append(body, t.body...)
		for _, sig := range t.sigs {
			table = append(table, sig...)
			table = binary.BigEndian.AppendUint32(table, off)
			table = binary.BigEndian.AppendUint32(table, uint32(len(t.body)))
		}
	}
	for len(body)%4 != 0 {
		body = append(body, 0)
	}
	out := make([]byte, 132, headLen+len(body))
	out = append(append(out, table...), body...)
	be := binary.BigEndian
	be.PutUint32(out[0:], uint32(len(out)))
	be.PutUint32(out[8:], version)
	copy(out[12:], class+space+pcs)
	for i, v := range []uint16{2024, 1, 1, 0, 0, 0} {
		be.PutUint16(out[24+2*i:], v)
	}
	copy(out[36:], "acsp")
	appendS15F16(out[68:68], d50.X)
	appendS15F16(out[72:72], d50.Y)
	appendS15F16(out[76:76], d50.Z)
	be.PutUint32(out[128:], uint32(n))
	return out
}

func appendS15F16(b []byte, v float64) []byte {
	return binary.BigEndian.AppendUint32(b, uint32(int32(math.Round(v*65536))))
}

func xyzTag(c xyz) []byte {
	b := append([]byte("XYZ "), 0, 0, 0, 0)
	return appendS15F16(appendS15F16(appendS15F16(b, c.X), c.Y), c.Z)
}

// mlucTag is a one-record (en-US) multiLocalizedUnicodeType.
func mlucTag(s string) []byte {
	u := utf16.Encode([]rune(s))
	b := append([]byte("mluc"), 0, 0, 0, 0)
	b = binary.BigEndian.AppendUint32(b, 1)
	b = binary.BigEndian.AppendUint32(b, 12)
	b = append(b, 'e', 'n', 'U', 'S')
	b = binary.BigEndian.AppendUint32(b, uint32(2*len(u)))
	b = binary.BigEndian.AppendUint32(b, 28)
	for _, c := range u {
		b = binary.BigEndian.AppendUint16(b, c)
	}
	return b
}
