//go:build trial

package trials

import (
	"bufio"
	"bytes"
	"compress/zlib"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hibiken/asynq"

	"github.com/printworker/printworker/jobs"
	"github.com/printworker/printworker/model"
)

// TestWorkMemoryBudgetUsesTrueImageSize is issue 10 item 2 in a real process: designs
// whose picture declares 200 x 200 px in its media object but whose PNG file is far
// larger are fed, four at once, to a `printworker work --memory-budget 512MiB
// --concurrency 4`. The worker must admit each render at the size the PNG header
// gives: a 15000 x 15000 picture (900 MB decoded, a 0.9 MB file) can never fit and is
// refused before decoding; an 8000 x 8000 one (256 MB) fits twice at most. The
// worker's peak RSS (VmHWM) stays near the budget; before the fix all four decoded
// at once (3.6 GB for the large ones).
func TestWorkMemoryBudgetUsesTrueImageSize(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("process test: builds the binary, decodes gigapixel-class PNGs (about 60 s)")
	}
	bin := buildPrintworker(t)
	f := newProcessFixture(t, "budget", 0)
	hs := httptest.NewServer(f.sim)
	defer hs.Close()
	tests := []struct {
		name     string
		side     int
		archived bool // refused: over the whole budget
		// goMemLimit is the Go runtime's soft limit, set above the budget as the
		// deploy manifests do, so that the garbage of finished renders is collected
		// before the next ones allocate ("off": none; the figure is logged).
		goMemLimit string
		maxRSS     int64
	}{
		// Refused before a pixel is decoded: RSS is the process's own plus the files.
		{"15000x15000 declared 200x200: refused", 15000, true, "off", 256 << 20},
		// Two at most run at once (2 x 256 MB of the 512 MiB).
		{"8000x8000 declared 200x200: admitted at its true size", 8000, false, "640MiB", 704 << 20},
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			file := blankPNG(t, tc.side, tc.side)
			t.Logf("%dx%d PNG: %d bytes", tc.side, tc.side, len(file))
			var ids []string
			for k := range 4 {
				ref := addPictureDesign(t, f, int64(7000+10*i+k), file, 200, 200, nil)
				id := fmt.Sprintf("B%d-%d", i, k)
				enqueueTestOrder(t, f, id, ref)
				ids = append(ids, id)
			}
			before := f.manifests(t)
			w := startFleetWorker(t, bin, "budget worker", f.workArgs(hs.URL,
				"--mode", "render", "--concurrency", "4", "--memory-budget", "512MiB", "--hub-rate-per-minute", "0",
				"--retry-base", "200ms", "--retry-max", "1s", "--metrics-addr", "", "--log-format", "json"), "GOMEMLIMIT="+tc.goMemLimit)
			insp := asynq.NewInspectorFromRedisClient(f.rdb)
			settled := func() bool {
				archived := archivedExports(insp)
				n := 0
				for _, a := range archived {
					if strings.Contains(a.LastErr, "memory budget") {
						n++
					}
				}
				if tc.archived {
					return n >= 4
				}
				return f.manifests(t) >= before+len(ids)
			}
			waitUntil(t, 5*time.Minute, "the four renders settle", func() { w.dumpLog(t) }, settled)
			hwm := vmHWM(t, w.cmd.Process.Pid)
			if err := w.stop(t, 30*time.Second, func() { w.dumpLog(t) }); err != nil {
				t.Errorf("worker exit: %v", err)
			}
			maxrss := w.cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss << 10
			t.Logf("peak RSS: VmHWM %d MiB, getrusage maxrss %d MiB (budget 512 MiB, GOMEMLIMIT %s)", hwm>>20, maxrss>>20, tc.goMemLimit)
			if hwm > tc.maxRSS {
				t.Errorf("peak RSS %d MiB, want at most %d MiB", hwm>>20, tc.maxRSS>>20)
			}
			archived := archivedExports(insp)
			for _, a := range archived {
				if !tc.archived {
					t.Errorf("archived: %s", a.LastErr)
				} else if !strings.Contains(a.LastErr, "memory budget") {
					t.Errorf("archived for another reason: %s", a.LastErr)
				}
			}
			for _, a := range archived {
				_ = insp.DeleteTask(a.Queue, a.ID)
			}
		})
	}
}

// blankPNG streams a w x h transparent 8-bit RGBA PNG without holding its pixels:
// a 15000 x 15000 picture compresses to under a megabyte.
func blankPNG(t *testing.T, w, h int) []byte {
	t.Helper()
	var idat bytes.Buffer
	zw, _ := zlib.NewWriterLevel(&idat, zlib.BestCompression)
	row := make([]byte, 1+4*w) // filter byte 0, then zero pixels
	bw := bufio.NewWriterSize(zw, 1<<20)
	for range h {
		if _, err := bw.Write(row); err != nil {
			t.Fatal(err)
		}
	}
	if err := bw.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	out.WriteString("\x89PNG\r\n\x1a\n")
	chunk := func(typ string, data []byte) {
		_ = binary.Write(&out, binary.BigEndian, uint32(len(data)))
		crc := crc32.NewIEEE()
		crc.Write([]byte(typ))
		crc.Write(data)
		out.WriteString(typ)
		out.Write(data)
		_ = binary.Write(&out, binary.BigEndian, crc.Sum32())
	}
	ihdr := make([]byte, 13)
	binary.BigEndian.PutUint32(ihdr, uint32(w))
	binary.BigEndian.PutUint32(ihdr[4:], uint32(h))
	ihdr[8], ihdr[9] = 8, 6 // 8-bit RGBA
	chunk("IHDR", ihdr)
	chunk("IDAT", idat.Bytes())
	chunk("IEND", nil)
	return out.Bytes()
}

// addPictureDesign adds a copy of sample design 1003 whose picture is file while its
// media object declares w x h px; edit, when set, changes the copy's view and picture.
func addPictureDesign(t *testing.T, f *processFixture, id int64, file []byte, w, h int, edit func(view, picture map[string]any)) model.DesignRef {
	t.Helper()
	d, ok := f.sim.Design(1003)
	if !ok {
		t.Fatal("sample design 1003 missing")
	}
	raw, err := json.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	mediaID := fmt.Sprintf("6561f0a0c0ffee00000%05d", id)
	token := fmt.Sprintf("00000000-0000-4000-8000-%012d", id)
	m["configurationId"], m["token"], m["_id"] = id, token, fmt.Sprintf("6561f1b2c3d4e5f60100%04d", id)
	for _, v := range m["views"].([]any) {
		for _, e := range v.(map[string]any)["elements"].([]any) {
			el := e.(map[string]any)
			if el["type"] == "picture" {
				el["value"] = map[string]any{"_id": mediaID, "originalname": "photo.png", "token": token,
					"mimetype": "image/png", "size": len(file), "meta": map[string]any{"hasAlpha": true, "width": w, "height": h}}
				if edit != nil {
					edit(v.(map[string]any), el)
				}
			}
		}
	}
	raw, _ = json.Marshal(m)
	var nd model.DesignDetail
	if err := json.Unmarshal(raw, &nd); err != nil {
		t.Fatal(err)
	}
	if err := f.sim.AddMedia(model.Media{ID: mediaID, Token: token, MimeType: "image/png"}, file); err != nil {
		t.Fatal(err)
	}
	if err := f.sim.AddDesign(nd); err != nil {
		t.Fatal(err)
	}
	return model.DesignRef{ID: id, Token: token}
}

// enqueueTestOrder pushes and exports one order of the given designs, as intake would.
func enqueueTestOrder(t *testing.T, f *processFixture, id string, refs ...model.DesignRef) *model.Order {
	t.Helper()
	o := &model.Order{OrderID: id, Domain: f.domain, Email: "kim@example.com", FirstName: "Kim", LastName: "Park",
		Created: "2024-07-01T12:00:00.000Z", Updated: "2024-07-01T12:00:00.000Z", Status: "paid",
		ShippingDetails: model.Address{City: "Busan", CountryCode: "KR"}, BillingDetails: model.Address{City: "Busan", CountryCode: "KR"}}
	for _, r := range refs {
		o.LineItems = append(o.LineItems, model.LineItem{ID: r.ID, Token: r.Token, Quantity: 1, Price: 12})
	}
	ctx := context.Background()
	if _, err := f.enq.PushOrder(ctx, f.store, jobs.OpCreate, o); err != nil {
		t.Fatal(err)
	}
	if _, err := f.enq.ExportOrder(ctx, f.store, o); err != nil {
		t.Fatal(err)
	}
	return o
}

// vmHWM reads a process's peak resident set size from /proc.
func vmHWM(t *testing.T, pid int) int64 {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return kb << 10
		}
	}
	t.Fatal("no VmHWM in /proc status")
	return 0
}
