package preflight

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"strings"

	"golang.org/x/image/tiff/lzw"
)

// PNG and TIFF files are read chunk by chunk and strip by strip: the pixel data is
// inflated through a counter (PNG) or one strip at a time (TIFF), so a large or
// hostile file never costs more memory than a strip.

// checkPNG checks a PNG: its chunks and their checksums, that its pixel data
// inflates to the size the header says, its resolution and its alpha.
func checkPNG(rep *FileReport, b []byte, r Rules, lim Limits) {
	corrupt := func(msg string) { rep.add("png.corrupt", Error, 0, "the PNG is damaged: "+msg) }
	pos := 8
	var w, h uint32
	var depth, ctype, interlace byte
	dpi := 0.0
	alpha := false
	var idat []io.Reader
	seenIHDR, seenIEND := false, false
	for pos+12 <= len(b) && !seenIEND {
		n := binary.BigEndian.Uint32(b[pos:])
		typ := string(b[pos+4 : pos+8])
		if uint64(n) > uint64(len(b)-pos-12) {
			corrupt(fmt.Sprintf("chunk %q runs past the end of the file", typ))
			return
		}
		data := b[pos+8 : pos+8+int(n)]
		if crc32.ChecksumIEEE(b[pos+4:pos+8+int(n)]) != binary.BigEndian.Uint32(b[pos+8+int(n):]) {
			corrupt(fmt.Sprintf("chunk %q fails its checksum", typ))
			return
		}
		switch typ {
		case "IHDR":
			if n != 13 {
				corrupt("bad IHDR")
				return
			}
			w, h = binary.BigEndian.Uint32(data), binary.BigEndian.Uint32(data[4:])
			depth, ctype, interlace = data[8], data[9], data[12]
			alpha = ctype == 4 || ctype == 6
			seenIHDR = true
		case "pHYs":
			if n == 9 && data[8] == 1 {
				dpi = float64(binary.BigEndian.Uint32(data)) * 0.0254
			}
		case "tRNS":
			alpha = true
		case "IDAT":
			idat = append(idat, bytes.NewReader(data))
		case "IEND":
			seenIEND = true
		}
		pos += 12 + int(n)
	}
	if !seenIHDR || !seenIEND || len(idat) == 0 || w == 0 || h == 0 || w > 1<<31-1 || h > 1<<31-1 {
		corrupt("IHDR, IDAT or IEND missing")
		return
	}
	channels := map[byte]uint64{0: 1, 2: 3, 3: 1, 4: 2, 6: 4}[ctype]
	if channels == 0 || (depth != 1 && depth != 2 && depth != 4 && depth != 8 && depth != 16) {
		corrupt(fmt.Sprintf("colour type %d with depth %d", ctype, depth))
		return
	}
	want := uint64(h) * (1 + (uint64(w)*channels*uint64(depth)+7)/8)
	if interlace != 0 {
		want = 0 // Adam7 passes: only that the data inflates is checked
	}
	if want > uint64(lim.MaxInflate) {
		rep.add("pdf.limit", Error, 0, fmt.Sprintf("%dx%d pixels exceed the checker's limit", w, h))
		return
	}
	zr, err := zlib.NewReader(io.MultiReader(idat...))
	if err != nil {
		corrupt("the pixel data is not a zlib stream")
		return
	}
	got, err := io.Copy(io.Discard, io.LimitReader(zr, int64(want)+1))
	if err != nil || (want > 0 && uint64(got) != want) {
		corrupt(fmt.Sprintf("the pixel data inflates to %d bytes, the header says %d", got, want))
		return
	}
	if r.CMYK {
		rep.add("colour.rgb", Error, 0, fmt.Sprintf("a PNG is RGB, where profile %s promises CMYK", r.Profile))
	}
	rasterDPI(rep, r, dpi)
	if r.WhiteSpot != "" && !alpha {
		rep.add("image.alpha", Warning, 0, fmt.Sprintf("the PNG has no transparency: profile %s's white plate follows the art's alpha", r.Profile))
	}
}

// rasterDPI checks a PNG's or TIFF's own resolution against the profile's.
func rasterDPI(rep *FileReport, r Rules, dpi float64) {
	if dpi <= 0 {
		if r.DPI > 0 || r.MinDPI > 0 {
			rep.add("image.dpi.unknown", Info, 0, "the file does not say its resolution")
		}
		return
	}
	if r.DPI > 0 && math.Abs(dpi-r.DPI) > 1 {
		rep.add("image.dpi", Warning, 0, fmt.Sprintf("the file is %.0f dpi; profile %s writes %.0f dpi", dpi, r.Profile, r.DPI))
	}
	checkDPI(rep, r, 0, dpi)
}

// TIFF tags read.
const (
	tWidth       = 256
	tHeight      = 257
	tBPS         = 258
	tCompression = 259
	tPhotometric = 262
	tStripOffs   = 273
	tSamples     = 277
	tRowsPerStr  = 278
	tStripCounts = 279
	tXRes        = 282
	tResUnit     = 296
	tPredictor   = 317
	tTileWidth   = 322
	tInkNames    = 333
)

type tiffIFD struct {
	bo   binary.ByteOrder
	b    []byte
	tags map[uint16][]uint64
	raw  map[uint16][]byte
}

func (t *tiffIFD) one(tag uint16, def uint64) uint64 {
	if v := t.tags[tag]; len(v) > 0 {
		return v[0]
	}
	return def
}

// checkTIFF checks a TIFF's first image: its structure, colour (CMYK when
// promised), ink names (spot plates), resolution and total ink.
func checkTIFF(rep *FileReport, b []byte, r Rules, lim Limits) {
	corrupt := func(msg string) { rep.add("tiff.corrupt", Error, 0, "the TIFF is damaged: "+msg) }
	var bo binary.ByteOrder = binary.LittleEndian
	if b[0] == 'M' {
		bo = binary.BigEndian
	}
	if len(b) < 8 {
		corrupt("too short")
		return
	}
	off := uint64(bo.Uint32(b[4:]))
	if off+2 > uint64(len(b)) {
		corrupt("the first directory lies outside the file")
		return
	}
	n := uint64(bo.Uint16(b[off:]))
	if off+2+n*12 > uint64(len(b)) {
		corrupt("the first directory runs past the end of the file")
		return
	}
	t := &tiffIFD{bo: bo, b: b, tags: map[uint16][]uint64{}, raw: map[uint16][]byte{}}
	size := map[uint16]uint64{1: 1, 2: 1, 3: 2, 4: 4, 5: 8, 7: 1, 16: 8}
	for i := uint64(0); i < n; i++ {
		e := b[off+2+i*12:]
		tag, typ, cnt := bo.Uint16(e), bo.Uint16(e[2:]), uint64(bo.Uint32(e[4:]))
		sz := size[typ]
		if sz == 0 || cnt > uint64(len(b)) {
			continue
		}
		var data []byte
		if sz*cnt <= 4 {
			data = e[8 : 8+sz*cnt]
		} else {
			p := uint64(bo.Uint32(e[8:]))
			if p+sz*cnt > uint64(len(b)) {
				corrupt(fmt.Sprintf("tag %d points outside the file", tag))
				return
			}
			data = b[p : p+sz*cnt]
		}
		t.raw[tag] = data
		if cnt > 1<<20 {
			continue
		}
		vals := make([]uint64, 0, cnt)
		for j := uint64(0); j < cnt; j++ {
			switch typ {
			case 1, 2, 7:
				vals = append(vals, uint64(data[j]))
			case 3:
				vals = append(vals, uint64(bo.Uint16(data[2*j:])))
			case 4:
				vals = append(vals, uint64(bo.Uint32(data[4*j:])))
			case 5:
				num, den := uint64(bo.Uint32(data[8*j:])), uint64(bo.Uint32(data[8*j+4:]))
				if den != 0 {
					vals = append(vals, num*1000/den) // thousandths
				}
			}
		}
		t.tags[tag] = vals
	}
	w, h := t.one(tWidth, 0), t.one(tHeight, 0)
	spp, photo := t.one(tSamples, 1), t.one(tPhotometric, 99)
	if w == 0 || h == 0 || w > 1<<20 || h > 1<<20 || spp == 0 || spp > 16 {
		corrupt(fmt.Sprintf("%dx%d pixels of %d samples", w, h, spp))
		return
	}
	dpi := float64(t.one(tXRes, 0)) / 1000
	switch t.one(tResUnit, 2) {
	case 3:
		dpi *= 2.54
	case 1:
		dpi = 0
	}
	rasterDPI(rep, r, dpi)
	if photo == 2 && r.CMYK {
		rep.add("colour.rgb", Error, 0, fmt.Sprintf("the TIFF is RGB, where profile %s promises CMYK", r.Profile))
	}
	if photo != 5 {
		return
	}
	spots := map[string]bool{}
	if names := strings.Split(strings.TrimRight(string(t.raw[tInkNames]), "\x00"), "\x00"); len(names) > 4 {
		for _, s := range names[4:] {
			spots[s] = true
		}
	}
	checkSpots(rep, r, spots, "ink channel")
	tac, ok := tiffTAC(t, w, h, spp, lim)
	if !ok {
		rep.add("ink.tac.partial", Info, 0, "the TIFF's pixels are stored in a way the checker does not decode (tiles, or not 8-bit, uncompressed, LZW or Deflate): its total ink was not measured")
		return
	}
	rep.setTAC(tac)
	checkTAC(rep, r, 0, tac)
}

// tiffTAC is the highest C+M+Y+K of an 8-bit separated TIFF's pixels, strip by strip.
func tiffTAC(t *tiffIFD, w, h, spp uint64, lim Limits) (float64, bool) {
	for _, v := range t.tags[tBPS] {
		if v != 8 {
			return 0, false
		}
	}
	comp, pred := t.one(tCompression, 1), t.one(tPredictor, 1)
	offs, counts := t.tags[tStripOffs], t.tags[tStripCounts]
	if t.tags[tTileWidth] != nil || len(offs) == 0 || len(offs) != len(counts) || spp < 4 || (pred != 1 && pred != 2) {
		return 0, false
	}
	rowLen := w * spp
	rps := min(t.one(tRowsPerStr, h), h)
	if rps == 0 || rowLen*rps > uint64(lim.MaxStream) {
		return 0, false
	}
	best := 0
	row := uint64(0)
	spent := uint64(0)
	for i := range offs {
		if row >= h {
			break
		}
		o, c := offs[i], counts[i]
		if o+c > uint64(len(t.b)) {
			return 0, false
		}
		src := t.b[o : o+c]
		rows := min(rps, h-row)
		want := rows * rowLen
		spent += want
		if spent > uint64(lim.MaxInflate) {
			return 0, false
		}
		var data []byte
		switch comp {
		case 1:
			data = src
		case 5:
			data, _ = io.ReadAll(io.LimitReader(lzw.NewReader(bytes.NewReader(src), lzw.MSB, 8), int64(want)))
		case 8, 32946:
			zr, err := zlib.NewReader(bytes.NewReader(src))
			if err != nil {
				return 0, false
			}
			data, _ = io.ReadAll(io.LimitReader(zr, int64(want)))
		default:
			return 0, false
		}
		if uint64(len(data)) < want {
			return 0, false
		}
		if pred == 2 {
			data = bytes.Clone(data[:want])
			for y := uint64(0); y < rows; y++ {
				line := data[y*rowLen : (y+1)*rowLen]
				for x := spp; x < rowLen; x++ {
					line[x] += line[x-spp]
				}
			}
		}
		for p := uint64(0); p+spp <= want; p += spp {
			best = max(best, int(data[p])+int(data[p+1])+int(data[p+2])+int(data[p+3]))
		}
		row += rows
	}
	return float64(best) * 100 / 255, true
}
