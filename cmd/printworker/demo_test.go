package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"image/png"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/printworker/printworker/internal/printcheck"
	"github.com/printworker/printworker/internal/testredis"
	"github.com/printworker/printworker/internal/tests3"
	"github.com/printworker/printworker/model"
	"github.com/printworker/printworker/storage"
	"github.com/printworker/printworker/worker"
)

// runCLI runs the program in-process with the given environment.
func runCLI(t *testing.T, env map[string]string, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	var out, errb bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	err = run(ctx, args, func(k string) string { return env[k] }, &out, &errb)
	return out.String(), errb.String(), err
}

// TestDemo runs the newcomer's command end to end, in-process (short mode too), and
// checks what it produced the way print staff would: every manifest complete, every
// file present with the bytes and checksum the manifest states, PNGs decoding at the
// stated size with the dpi recorded, PDFs valid with the stated page size.
func TestDemo(t *testing.T) {
	// Every part the demo starts (Redis, simulator, intake, worker) must be stopped
	// when it returns. Registered first, so it runs after the test's other cleanups.
	before := goleak.IgnoreCurrent()
	t.Cleanup(func() { goleak.VerifyNone(t, before) })
	for _, tool := range []string{"qpdf", "pdfinfo"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("%s is needed to check the demo's PDFs (apt-get install qpdf poppler-utils; .ci/run installs them)", tool)
		}
	}
	out := filepath.Join(t.TempDir(), "printworker-demo")
	stdout, stderr, err := runCLI(t, nil, "demo", "--out", out, "--timeout", "2m")
	if err != nil {
		t.Fatalf("demo: %v\nstdout:\n%s\nstderr:\n%s", err, stdout, stderr)
	}
	manifests := checkDemoOutput(t, out, stdout)
	checkDemoDoc(t, stdout, out)
	checkDemoWarnings(t, manifests)
	// Named as the hub names them (the names of an existing layout), the worker's
	// files are those of an offline render (docs/storage.md#file-names).
	hubNamed := filepath.Join(t.TempDir(), "printworker-demo")
	stdout, stderr, err = runCLI(t, nil, "demo", "--out", hubNamed, "--timeout", "2m",
		"--filename-pattern", "hub", "--filename-date", "design")
	if err != nil {
		t.Fatalf("demo naming as the hub: %v\nstdout:\n%s\nstderr:\n%s", err, stdout, stderr)
	}
	checkNamesAgree(t, checkDemoOutput(t, hubNamed, stdout))

	checkDemoOrders(t, manifests)
	types := map[string]bool{}
	views := map[string]bool{}
	for _, m := range manifests {
		for _, f := range m.Files {
			types[f.Type] = true
			views[strconv.FormatInt(f.DesignID, 10)+"/"+f.ViewID] = true
		}
	}
	for _, ty := range []string{model.ExportPNG, model.ExportPDF, model.ExportPDFSimple} {
		if !types[ty] {
			t.Errorf("no %s file produced", ty)
		}
	}
	// 1001/front exports an area, 1001/sleeve a custom box, 1001/back the template.
	for _, v := range []string{"1001/front", "1001/sleeve", "1001/back", "1002/left", "1002/right", "1003/card", "1004/sticker"} {
		if !views[v] {
			t.Errorf("view %s not exported", v)
		}
	}
	if m := manifests["6100000000002"]; m != nil && (m.Customer.FirstName != "健二" || m.Shipping.City != "東京") {
		t.Errorf("unicode names lost: customer %+v, shipping city %q", m.Customer, m.Shipping.City)
	}
	if m := manifests["6100000000003"]; m != nil && m.Shipping.City != "" {
		t.Errorf("guest order without shipping address has shipping %+v", m.Shipping)
	}

	// Re-running replaces the previous run's files and finishes again, also on a
	// Redis that outlives the runs: the second run there finds the orders already
	// taken (duplicates) and re-exports them.
	rs := testredis.Start(t)
	for i, args := range [][]string{
		{"demo", "--out", out, "--timeout", "2m", "--redis-url", rs.URL()},
		{"demo", "--out", out, "--timeout", "2m", "--redis-url", rs.URL()},
	} {
		stdout, stderr, err := runCLI(t, nil, args...)
		if err != nil {
			t.Fatalf("re-run %d: %v\nstdout:\n%s\nstderr:\n%s", i+1, err, stdout, stderr)
		}
		checkDemoOutput(t, out, stdout)
		if i == 1 && strings.Count(stdout, "re-export enqueued") != 3 {
			t.Errorf("second run on the same Redis did not re-export the 3 orders:\n%s", stdout)
		}
	}
}

func TestDemoRefusesForeignRedis(t *testing.T) {
	rs := testredis.Start(t)
	if err := rs.Client(t).Set(context.Background(), "asynq:{exports}:pending", "x", 0).Err(); err != nil {
		t.Fatal(err)
	}
	_, _, err := runCLI(t, nil, "demo", "--out", filepath.Join(t.TempDir(), "o"), "--redis-url", rs.URL())
	if err == nil || !strings.Contains(err.Error(), "database of its own") || exitCode(err) != 2 {
		t.Fatalf("demo on a used Redis: %v", err)
	}
}

// checkDemoOutput checks the output folder against its manifests and the printed table.
func checkDemoOutput(t *testing.T, out, stdout string) map[string]*worker.Manifest {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(out, "demo-store", "*", "*", "manifest.json"))
	if err != nil || len(paths) != 3 {
		t.Fatalf("manifests %v (%v), want 3\n%s", paths, err, stdout)
	}
	manifests := map[string]*worker.Manifest{}
	for _, p := range paths {
		var m worker.Manifest
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		manifests[m.OrderID] = &m
		if m.Store != "demo-store" || m.Domain != "shop.example.com" {
			t.Errorf("%s: store %q domain %q", p, m.Store, m.Domain)
		}
		for _, f := range m.Files {
			file := filepath.Join(out, filepath.FromSlash(f.Key))
			data, err := os.ReadFile(file)
			if err != nil {
				t.Errorf("manifest lists %s: %v", f.Key, err)
				continue
			}
			sum := sha256.Sum256(data)
			if int64(len(data)) != f.Bytes || hex.EncodeToString(sum[:]) != f.SHA256 {
				t.Errorf("%s: %d bytes sha256 %x, manifest says %d %s", f.Key, len(data), sum, f.Bytes, f.SHA256)
			}
			if !strings.Contains(stdout, filepath.Base(f.Key)) {
				t.Errorf("the demo's table does not show %s", f.Key)
			}
			switch f.Type {
			case model.ExportPNG:
				checkPNG(t, f, data)
			case model.ExportPDF, model.ExportPDFSimple:
				checkPDF(t, f, file)
			default:
				t.Errorf("%s: unexpected type %q", f.Key, f.Type)
			}
		}
	}
	if !strings.Contains(stdout, "3 orders, 9 files") {
		t.Errorf("summary line missing:\n%s", stdout)
	}
	checkDemoShopFloor(t, out, stdout, manifests)
	return manifests
}

// checkDemoShopFloor: the demo shows issue 15's shop floor whole: the day page lists
// every order, each order has its page, ticket and thumbnails where the output says,
// and the demo's own receiver got one signed files_ready event per order.
func checkDemoShopFloor(t *testing.T, out, stdout string, manifests map[string]*worker.Manifest) {
	t.Helper()
	days, _ := filepath.Glob(filepath.Join(out, "demo-store", "*", "index.html"))
	if len(days) != 1 {
		t.Fatalf("day pages %v, want 1", days)
	}
	day, err := os.ReadFile(days[0])
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stdout, "day page     file://"+days[0]+"  (3 orders)") {
		t.Errorf("the demo does not say where the day page is:\n%s", stdout)
	}
	for id, m := range manifests {
		if !strings.Contains(string(day), `href="`+storage.OrderFolderValue(id, m.Domain)+`/index.html"`) {
			t.Errorf("day page lacks order %s", id)
		}
		for _, k := range []string{m.Ticket, m.StaffPage} {
			if _, err := os.Stat(filepath.Join(out, filepath.FromSlash(k))); err != nil || !strings.Contains(stdout, k) {
				t.Errorf("%s: %v, or not in the demo's output", k, err)
			}
		}
		for _, f := range m.Files {
			if _, err := os.Stat(filepath.Join(out, filepath.FromSlash(f.Thumbnail))); f.Thumbnail == "" || err != nil {
				t.Errorf("%s: thumbnail %q: %v", f.Key, f.Thumbnail, err)
			}
		}
		if !regexp.MustCompile(`order\.files_ready  webhook-id msg_[0-9a-f]{32}  order ` + id + `  (1 file|\d+ files), `).MatchString(stdout) {
			t.Errorf("the demo's receiver printed no files_ready event of order %s:\n%s", id, stdout)
		}
	}
	if !strings.Contains(stdout, "(signatures verified: 3, rejected: 0)") {
		t.Errorf("the demo's receiver did not verify 3 events:\n%s", stdout)
	}
	// Every file link the demo prints opens: a newcomer copies them into a browser.
	links := regexp.MustCompile(`file://(\S+)`).FindAllStringSubmatch(stdout, -1)
	if len(links) == 0 {
		t.Errorf("the demo printed no file links:\n%s", stdout)
	}
	for _, l := range links {
		if _, err := os.Stat(l[1]); err != nil {
			t.Errorf("the demo printed a link to a file that is not there: %v", err)
		}
	}
}

func checkPNG(t *testing.T, f worker.FileRecord, data []byte) {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		t.Errorf("%s: %v", f.Key, err)
		return
	}
	if b := img.Bounds(); b.Dx() != f.WidthPx || b.Dy() != f.HeightPx {
		t.Errorf("%s: %dx%d px, manifest says %dx%d", f.Key, b.Dx(), b.Dy(), f.WidthPx, f.HeightPx)
	}
	dpi, ok := pngDPI(data)
	if !ok {
		t.Errorf("%s: no pHYs chunk (dpi not recorded)", f.Key)
	} else if math.Abs(dpi-f.DPI) > 0.5 {
		t.Errorf("%s: pHYs says %.1f dpi, manifest %g", f.Key, dpi, f.DPI)
	}
}

// pngDPI reads the pHYs chunk (pixels per metre) as dots per inch.
func pngDPI(b []byte) (float64, bool) {
	b = b[8:]
	for len(b) >= 12 {
		n := binary.BigEndian.Uint32(b)
		typ := string(b[4:8])
		if int(n)+12 > len(b) {
			return 0, false
		}
		if typ == "pHYs" && n == 9 && b[16] == 1 {
			return float64(binary.BigEndian.Uint32(b[8:])) * 0.0254, true
		}
		if typ == "IDAT" {
			return 0, false
		}
		b = b[12+n:]
	}
	return 0, false
}

var pageSize = regexp.MustCompile(`Page size:\s+([\d.]+) x ([\d.]+) pts`)

func checkPDF(t *testing.T, f worker.FileRecord, file string) {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	printcheck.PDF(t, f.Key, b)
	out, err := exec.Command("pdfinfo", file).CombinedOutput()
	if err != nil {
		t.Errorf("%s: pdfinfo: %v\n%s", f.Key, err, out)
		return
	}
	m := pageSize.FindStringSubmatch(string(out))
	if m == nil {
		t.Errorf("%s: pdfinfo shows no page size:\n%s", f.Key, out)
		return
	}
	w, _ := strconv.ParseFloat(m[1], 64)
	h, _ := strconv.ParseFloat(m[2], 64)
	if math.Abs(w-f.PageWidthPt) > 0.5 || math.Abs(h-f.PageHeightPt) > 0.5 {
		t.Errorf("%s: page %gx%g pt, manifest says %gx%g", f.Key, w, h, f.PageWidthPt, f.PageHeightPt)
	}
}

func TestDemoRefusesForeignFolder(t *testing.T) {
	out := t.TempDir()
	if err := os.WriteFile(filepath.Join(out, "thesis.docx"), []byte("precious"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, _, err := runCLI(t, nil, "demo", "--out", out)
	if err == nil || !strings.Contains(err.Error(), "not made by the demo") || exitCode(err) != 2 {
		t.Fatalf("demo into a foreign folder: %v (exit %d)", err, exitCode(err))
	}
	if _, err := os.Stat(filepath.Join(out, "thesis.docx")); err != nil {
		t.Fatalf("the demo touched a foreign file: %v", err)
	}
}

// TestDemoS3 runs the demo against an S3 server over HTTP (settings from the
// environment, as a container would pass them), twice: the second run must not take
// the first run's manifests for its own.
func TestDemoS3(t *testing.T) {
	t.Parallel()
	s3srv := tests3.Start(t)
	env := map[string]string{
		"PRINTWORKER_STORAGE":       "s3",
		"PRINTWORKER_S3_BUCKET":     s3srv.Bucket,
		"PRINTWORKER_S3_ENDPOINT":   s3srv.Endpoint,
		"PRINTWORKER_S3_REGION":     s3srv.Region,
		"PRINTWORKER_S3_ACCESS_KEY": s3srv.AccessKey,
		"PRINTWORKER_S3_SECRET_KEY": s3srv.SecretKey,
		"PRINTWORKER_S3_PATH_STYLE": "true",
	}
	st, err := storage.NewS3(context.Background(), s3srv.Config)
	if err != nil {
		t.Fatal(err)
	}
	for run := 1; run <= 2; run++ {
		stdout, stderr, err := runCLI(t, env, "demo", "--timeout", "2m")
		if err != nil {
			t.Fatalf("run %d: %v\nstdout:\n%s\nstderr:\n%s", run, err, stdout, stderr)
		}
		if !strings.Contains(stdout, "3 orders, 9 files") || !strings.Contains(stdout, "s3") {
			t.Errorf("run %d output:\n%s", run, stdout)
		}
		objs, err := st.List(context.Background(), "demo-store/")
		if err != nil {
			t.Fatal(err)
		}
		var manifests, files, thumbs, shop, reports int
		for _, o := range objs {
			switch {
			case strings.HasSuffix(o.Key, "/manifest.json"):
				manifests++
				checkS3Manifest(t, st, o.Key)
			case strings.HasSuffix(o.Key, ".thumb.jpg"):
				thumbs++
			case strings.HasSuffix(o.Key, ".preflight.json"):
				reports++
			case strings.HasSuffix(o.Key, "/ticket.pdf"), strings.HasSuffix(o.Key, "/index.html"), strings.HasSuffix(o.Key, "/index.json"):
				shop++
			default:
				files++
			}
		}
		// docs/shop-floor.md: one ticket and one page per order, one day page and its
		// index.json; the nine print files and the T-shirt front's white plate
		// (dtf-white); a preflight report beside each of the nine print files.
		if manifests != 3 || files != 10 || thumbs != 9 || shop != 8 || reports != 9 {
			t.Errorf("run %d: bucket holds %d manifests, %d files, %d thumbnails, %d tickets and pages, %d preflight reports, want 3, 10, 9, 8, 9",
				run, manifests, files, thumbs, shop, reports)
		}
	}
}

// checkS3Manifest checks every file a manifest lists is in the bucket with its bytes.
func checkS3Manifest(t *testing.T, st *storage.S3, key string) {
	t.Helper()
	rc, _, err := st.Get(context.Background(), key)
	if err != nil {
		t.Fatal(err)
	}
	var m worker.Manifest
	err = json.NewDecoder(rc).Decode(&m)
	rc.Close()
	if err != nil {
		t.Fatalf("%s: %v", key, err)
	}
	for _, f := range m.Files {
		rc, _, err := st.Get(context.Background(), f.Key)
		if err != nil {
			t.Errorf("%s lists %s: %v", key, f.Key, err)
			continue
		}
		h := sha256.New()
		n, _ := io.Copy(h, rc)
		rc.Close()
		if n != f.Bytes || hex.EncodeToString(h.Sum(nil)) != f.SHA256 {
			t.Errorf("%s: %d bytes in the bucket, manifest says %d (sha256 %s)", f.Key, n, f.Bytes, f.SHA256)
		}
	}
}
