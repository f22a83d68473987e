package render

import (
	"bytes"
	"encoding/binary"

	"github.com/printworker/printworker/render/svg"
)

// jpegOrientation returns the EXIF orientation (1..8) of a JPEG, 1 when absent or
// unreadable. Browsers apply it when they show a photo (CSS image-orientation
// from-image is the default), so the customer designed with the turned picture and the
// print must turn it the same way.
func jpegOrientation(data []byte) int {
	if !bytes.HasPrefix(data, []byte{0xff, 0xd8}) {
		return 1
	}
	for i := 2; i+4 <= len(data); {
		if data[i] != 0xff {
			return 1
		}
		marker := data[i+1]
		if marker == 0xd8 || (marker >= 0xd0 && marker <= 0xd7) || marker == 0x01 {
			i += 2
			continue
		}
		if marker == 0xda || marker == 0xd9 { // image data or end: no EXIF before it
			return 1
		}
		n := int(binary.BigEndian.Uint16(data[i+2:]))
		if n < 2 || i+2+n > len(data) {
			return 1
		}
		seg := data[i+4 : i+2+n]
		if marker == 0xe1 && bytes.HasPrefix(seg, []byte("Exif\x00\x00")) {
			return tiffOrientation(seg[6:])
		}
		i += 2 + n
	}
	return 1
}

func tiffOrientation(t []byte) int {
	if len(t) < 8 {
		return 1
	}
	var bo binary.ByteOrder
	switch string(t[:2]) {
	case "II":
		bo = binary.LittleEndian
	case "MM":
		bo = binary.BigEndian
	default:
		return 1
	}
	ifd := int(bo.Uint32(t[4:]))
	if ifd < 8 || ifd+2 > len(t) {
		return 1
	}
	count := int(bo.Uint16(t[ifd:]))
	for k := 0; k < count; k++ {
		e := ifd + 2 + 12*k
		if e+12 > len(t) {
			return 1
		}
		if bo.Uint16(t[e:]) == 0x0112 && bo.Uint16(t[e+2:]) == 3 { // Orientation, SHORT
			if o := int(bo.Uint16(t[e+8:])); o >= 1 && o <= 8 {
				return o
			}
			return 1
		}
	}
	return 1
}

// orientation returns the matrix from stored pixels (w x h) to the displayed picture
// for an EXIF orientation, and the displayed size. It goes into the layer transform, so
// no pixel is moved and a JPEG still passes through a PDF untouched.
func orientation(o int, w, h float64) (svg.Matrix, float64, float64) {
	switch o {
	case 2:
		return svg.Matrix{-1, 0, 0, 1, w, 0}, w, h
	case 3:
		return svg.Matrix{-1, 0, 0, -1, w, h}, w, h
	case 4:
		return svg.Matrix{1, 0, 0, -1, 0, h}, w, h
	case 5:
		return svg.Matrix{0, 1, 1, 0, 0, 0}, h, w
	case 6:
		return svg.Matrix{0, 1, -1, 0, h, 0}, h, w
	case 7:
		return svg.Matrix{0, -1, -1, 0, h, w}, h, w
	case 8:
		return svg.Matrix{0, -1, 1, 0, 0, w}, h, w
	}
	return svg.Identity, w, h
}
