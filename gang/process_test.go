//go:build trial

package gang

import (
	"bufio"
	"bytes"
	"compress/zlib"
	"context"
	"encoding/binary"
	"fmt"
	"image"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"syscall"
	"testing"
	"time"

	"github.com/printworker/printworker/render"
)

// bigSheet is the memory test's layout: the mixed-500 set on fixed 22 x 200 in sheets
// at 300 dpi (6600 x 60000 px, 1.6 GB as RGBA), of which the first is rendered.
func bigSheet(t testing.TB) ([]Design, *Layout) {
	ds := synthSets[2].build(300)
	c := rollConfig()
	c.MaxLength, c.Sheets, c.Label, c.CutMarks = 60000, true, 36, true
	l, err := Plan(ds, c)
	if err != nil {
		t.Fatal(err)
	}
	return ds, l
}

// TestBigSheetChild is the rendering process of TestBigSheetMemory; it does nothing
// unless that test started it.
func TestBigSheetChild(t *testing.T) {
	out := os.Getenv("GANG_BIG_SHEET_OUT")
	if out == "" {
		t.Skip("run by TestBigSheetMemory")
	}
	// What printworker gang does by default (--memory-limit): the collector works
	// harder as the heap nears the limit, so freed design buffers are reused instead
	// of the heap growing to twice its live size.
	debug.SetMemoryLimit(DefaultMemoryLimit)
	ds, l := bigSheet(t)
	f, err := os.Create(out)
	if err != nil {
		t.Fatal(err)
	}
	bw := bufio.NewWriterSize(f, 1<<20)
	if err := Render(context.Background(), bw, l, 0, newSynthLoader(ds), render.PNGOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := bw.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestBigSheetMemory (a process trial: go test -tags trial -run TestBigSheet ./gang)
// renders a 6600 x 60000 px sheet in a child process, holds its
// peak RSS under 400 MB, then streams the PNG back and compares the pixels of sampled
// copies with their designs.
func TestBigSheetMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("renders a 6600 x 60000 px sheet (tens of seconds); skipped with -short")
	}
	out := filepath.Join(t.TempDir(), "sheet.png")
	cmd := exec.Command(childBinary(t), "-test.run=^TestBigSheetChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), "GANG_BIG_SHEET_OUT="+out)
	start := time.Now()
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("child: %v\n%s", err, b)
	}
	took := time.Since(start)
	ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	rssMB := float64(ru.Maxrss) / 1024 // Linux reports KiB
	st, _ := os.Stat(out)
	ds, l := bigSheet(t)
	s := l.Sheets[0]
	fmt.Printf("big sheet: %dx%d px, %d copies, PNG %.1f MB, peak RSS %.0f MB, wall %v, CPU %v\n",
		s.Width, s.Length, len(s.Placements), float64(st.Size())/1e6, rssMB, took.Round(time.Millisecond),
		(time.Duration(ru.Utime.Nano()) + time.Duration(ru.Stime.Nano())).Round(time.Millisecond))
	if rssMB >= 400 {
		t.Errorf("peak RSS %.0f MB, want < 400 MB", rssMB)
	}
	if s.Width != 6600 || s.Length != 60000 {
		t.Fatalf("sheet %dx%d", s.Width, s.Length)
	}
	// Sampled copies: every fifth, three rows each (top, middle, bottom).
	checks := map[int][]Placement{}
	for k, p := range s.Placements {
		if k%5 != 0 {
			continue
		}
		for _, y := range []int{p.Y, p.Y + p.H/2, p.Y + p.H - 1} {
			checks[y] = append(checks[y], p)
		}
	}
	f, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	images := map[int]*imageCache{}
	checked := 0
	err = streamRows(f, s.Width, func(y int, row []byte) error {
		for _, p := range checks[y] {
			ic := images[p.Design]
			if ic == nil {
				ic = &imageCache{img: synthImage(ds[p.Design])}
				images[p.Design] = ic
			}
			for x := p.X; x < p.X+p.W; x++ {
				sp := srcPixel(p, x, y)
				want := ic.img.Pix[ic.img.PixOffset(sp.X, sp.Y):][:4]
				if !bytes.Equal(row[4*x:4*x+4], want) {
					return fmt.Errorf("%s copy %d at (%d,%d): %v, design %v", ds[p.Design].Key, p.Copy, x, y, row[4*x:4*x+4], want)
				}
			}
			checked++
		}
		// Designs of copies fully above are not needed again.
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked == 0 {
		t.Fatal("no copy checked")
	}
	t.Logf("checked %d sampled rows of copies", checked)
}

type imageCache struct{ img *image.NRGBA }

// streamRows decodes an 8-bit RGBA, non-interlaced PNG row by row (image/png would
// need the whole 1.6 GB canvas), calling fn with each unfiltered row.
func streamRows(r io.Reader, width int, fn func(y int, row []byte) error) error {
	br := bufio.NewReaderSize(r, 1<<20)
	sig := make([]byte, 8)
	if _, err := io.ReadFull(br, sig); err != nil {
		return err
	}
	pr, pw := io.Pipe()
	go func() {
		var hdr [8]byte
		for {
			if _, err := io.ReadFull(br, hdr[:]); err != nil {
				pw.CloseWithError(err)
				return
			}
			n := int64(binary.BigEndian.Uint32(hdr[:4]))
			typ := string(hdr[4:])
			if typ == "IHDR" {
				ih := make([]byte, n)
				io.ReadFull(br, ih)
				if w := int(binary.BigEndian.Uint32(ih)); w != width || ih[8] != 8 || ih[9] != 6 || ih[12] != 0 {
					pw.CloseWithError(fmt.Errorf("IHDR width %d depth %d type %d interlace %d", w, ih[8], ih[9], ih[12]))
					return
				}
			} else if typ == "IDAT" {
				if _, err := io.CopyN(pw, br, n); err != nil {
					pw.CloseWithError(err)
					return
				}
			} else if _, err := br.Discard(int(n)); err != nil {
				pw.CloseWithError(err)
				return
			}
			br.Discard(4) // CRC
			if typ == "IEND" {
				pw.Close()
				return
			}
		}
	}()
	zr, err := zlib.NewReader(pr)
	if err != nil {
		return err
	}
	zb := bufio.NewReaderSize(zr, 1<<20)
	n := 4 * width
	prev, cur := make([]byte, n), make([]byte, n+1)
	for y := 0; ; y++ {
		if _, err := io.ReadFull(zb, cur); err == io.EOF {
			return nil
		} else if err != nil {
			return fmt.Errorf("row %d: %w", y, err)
		}
		unfilter(cur[0], cur[1:], prev)
		if err := fn(y, cur[1:]); err != nil {
			return err
		}
		copy(prev, cur[1:])
	}
}

// unfilter reverses PNG filter ft on row (4 bytes per pixel) given the previous row.
func unfilter(ft byte, row, prev []byte) {
	for i := range row {
		var a, c byte
		if i >= 4 {
			a, c = row[i-4], prev[i-4]
		}
		b := prev[i]
		switch ft {
		case 1:
			row[i] += a
		case 2:
			row[i] += b
		case 3:
			row[i] += byte((int(a) + int(b)) / 2)
		case 4:
			p := int(a) + int(b) - int(c)
			pa, pb, pc := abs(p-int(a)), abs(p-int(b)), abs(p-int(c))
			switch {
			case pa <= pb && pa <= pc:
				row[i] += a
			case pb <= pc:
				row[i] += b
			default:
				row[i] += c
			}
		}
	}
}

func abs(v int) int {
	if v < 0 {
		return -v
	}
	return v
}

// childBinary is the test binary the memory test runs as its child: this one, or,
// under the race detector (whose shadow memory would be measured instead of ours and
// which runs the render many times slower), the same tests built without it.
func childBinary(t *testing.T) string {
	if !raceEnabled {
		return os.Args[0]
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("race build and no go command to build an uninstrumented child")
	}
	bin := filepath.Join(t.TempDir(), "gang-child.test")
	if b, err := exec.Command(goBin, "test", "-c", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("building the uninstrumented child: %v\n%s", err, b)
	}
	return bin
}
