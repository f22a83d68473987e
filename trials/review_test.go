//go:build trial

package trials

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/hibiken/asynq"

	"github.com/printworker/printworker/jobs"
	"github.com/printworker/printworker/model"
	"github.com/printworker/printworker/storage"
	"github.com/printworker/printworker/worker"
)

// TestReviewProcess: real `printworker work` and `printworker review` processes
// against a real redis-server, the hub simulator and S3. An order whose design
// names a missing font ends in review: files under review/, no files-ready event,
// no machine folder copy; `review list` shows it with its release command;
// `review release` puts the very files in place, copies the routed one to its
// machine folder and sends files-ready once.
func TestReviewProcess(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("process test: builds the binary")
	}
	bin := buildPrintworker(t)
	fx := newProcessFixture(t, "review", 0)
	b, err := os.ReadFile("../hubsim/testdata/designs/1003.json")
	if err != nil {
		t.Fatal(err)
	}
	var d model.DesignDetail
	if err := json.Unmarshal(bytes.ReplaceAll(b, []byte(`"DejaVu Serif"`), []byte(`"Imaginary Serif"`)), &d); err != nil {
		t.Fatal(err)
	}
	d.ConfigurationID = 1903
	if err := fx.sim.AddDesign(d); err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(fx.sim)
	defer hs.Close()
	var mu sync.Mutex
	var ready []string
	recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var ev struct {
			Type string `json:"type"`
		}
		body, _ := io.ReadAll(r.Body)
		_ = json.Unmarshal(body, &ev)
		if ev.Type == jobs.EventFilesReady {
			mu.Lock()
			ready = append(ready, r.Header.Get("webhook-id"))
			mu.Unlock()
		}
		w.WriteHeader(http.StatusNoContent)
	}))
	defer recv.Close()
	readyIDs := func() []string { mu.Lock(); defer mu.Unlock(); return append([]string(nil), ready...) }
	tmp := t.TempDir()
	rules := filepath.Join(tmp, "rules.json")
	if err := os.WriteFile(rules, []byte(`{"rules": [{"match": {"product": "card-a6"}, "prefix": "press"}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	logs, err := os.Create(filepath.Join(tmp, "worker.log"))
	if err != nil {
		t.Fatal(err)
	}
	defer logs.Close()
	work := exec.Command(bin, fx.workArgs(hs.URL, "--mode", "render", "--metrics-addr", "", "--routing-rules", rules,
		"--events-url", recv.URL+"/hooks", "--events-secret", "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "--log-level", "warn")...)
	work.Env = []string{"PATH=" + os.Getenv("PATH")}
	work.Stdout, work.Stderr = logs, logs
	if err := work.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		_ = work.Process.Signal(syscall.SIGTERM)
		_ = work.Wait()
		if t.Failed() {
			b, _ := os.ReadFile(logs.Name())
			t.Logf("worker logs:\n%s", b)
		}
	}()
	// The operator's commands share the worker's Redis and storage settings.
	args := fx.workArgs(hs.URL)
	shared := []string{"--redis-url", fx.redisURL}
	for i, a := range args {
		if strings.HasPrefix(a, "--s3-") || a == "--storage" {
			shared = append(shared, a)
			if a != "--s3-path-style" {
				shared = append(shared, args[i+1])
			}
		}
	}
	cli := func(sub ...string) string {
		t.Helper()
		flags := shared
		if sub[1] == "list" { // list reads storage only
			flags = shared[2:]
		}
		cmd := exec.Command(bin, append(sub, flags...)...)
		cmd.Env = []string{"PATH=" + os.Getenv("PATH")}
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("printworker %s: %v\n%s", strings.Join(sub, " "), err, out)
		}
		return string(out)
	}

	ctx := context.Background()
	o := &model.Order{OrderID: "RV-9", Domain: fx.domain, FirstName: "Kim", LastName: "Park", Status: "paid",
		Created: "2024-07-01T12:00:00.000Z", Updated: "2024-07-01T12:00:00.000Z",
		ShippingDetails: model.Address{City: "Busan", CountryCode: "KR"}, BillingDetails: model.Address{City: "Busan", CountryCode: "KR"},
		LineItems: []model.LineItem{{ID: 1903, Token: d.Token, Quantity: 2, Price: 3}}}
	if _, err := fx.enq.ExportOrder(ctx, fx.store, o); err != nil {
		t.Fatal(err)
	}
	folder := fx.store + "/2024-07-01/" + storage.OrderFolderValue("RV-9", fx.domain)
	rkey := worker.ReviewPrefix + folder + "/" + storage.ManifestName
	readManifest := func(key string) (*worker.Manifest, error) {
		rc, _, err := fx.st.Get(ctx, key)
		if err != nil {
			return nil, err
		}
		defer rc.Close()
		var m worker.Manifest
		return &m, json.NewDecoder(rc).Decode(&m)
	}
	insp := asynq.NewInspectorFromRedisClient(fx.rdb)
	idle := func() bool {
		for _, q := range withExportShards(jobs.QueueOrders, jobs.QueueComplete, jobs.QueueExports, jobs.QueueEvents) {
			if info, err := insp.GetQueueInfo(q); err == nil && info.Pending+info.Active+info.Retry+info.Scheduled > 0 {
				return false
			}
		}
		return true
	}
	waitLong := func(what string, cond func() bool) {
		t.Helper()
		deadline := time.Now().Add(3 * time.Minute) // ends a stuck test only
		for !cond() {
			if time.Now().After(deadline) {
				t.Fatalf("%s: not within 3 minutes", what)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	waitLong("the order held", func() bool { _, err := readManifest(rkey); return err == nil && idle() })
	hm, err := readManifest(rkey)
	if err != nil {
		t.Fatal(err)
	}
	keys := func(prefix string) []string {
		infos, err := fx.st.List(ctx, prefix)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, in := range infos {
			out = append(out, in.Key)
		}
		return out
	}
	if got := keys(folder + "/"); len(got) != 0 {
		t.Errorf("held order's folder holds %q", got)
	}
	if got := keys("press/"); len(got) != 0 {
		t.Errorf("machine folder holds %q before the release", got)
	}
	if n := len(readyIDs()); n != 0 {
		t.Errorf("%d files-ready events for a held order", n)
	}

	out := cli("review", "list")
	for _, want := range []string{"held  order RV-9", "missing-font", "printworker review release --store " + fx.store + " --domain " + fx.domain + " --order RV-9 --date 2024-07-01"} {
		if !strings.Contains(out, want) {
			t.Errorf("review list lacks %q:\n%s", want, out)
		}
	}
	out = cli("review", "release", "--store", fx.store, "--domain", fx.domain, "--order", "RV-9")
	if !strings.Contains(out, "order RV-9 revision 1 release") {
		t.Errorf("review release says:\n%s", out)
	}
	mkey := folder + "/" + storage.ManifestName
	waitLong("the release", func() bool { _, err := readManifest(mkey); return err == nil && len(readyIDs()) > 0 && idle() })
	m, err := readManifest(mkey)
	if err != nil {
		t.Fatal(err)
	}
	if m.Review == nil || m.Review.Status != worker.ReviewReleased || len(m.Files) != len(hm.Files) || len(m.Files) == 0 {
		t.Fatalf("released manifest: review %+v, %d files (held %d)", m.Review, len(m.Files), len(hm.Files))
	}
	object := func(key string) string {
		rc, _, err := fx.st.Get(ctx, key)
		if err != nil {
			t.Fatalf("%s: %v", key, err)
		}
		defer rc.Close()
		h := sha256.New()
		_, _ = io.Copy(h, rc)
		return hex.EncodeToString(h.Sum(nil))
	}
	for i, f := range m.Files {
		if object(f.Key) != hm.Files[i].SHA256 || "review/"+f.Key != hm.Files[i].Key {
			t.Errorf("%s is not the held file %s byte for byte", f.Key, hm.Files[i].Key)
		}
		if f.Machine == nil || !strings.HasPrefix(f.Machine.Key, "press/") || object(f.Machine.Key) != f.SHA256 {
			t.Errorf("%s: machine copy %+v", f.Key, f.Machine)
		}
	}
	if ids := readyIDs(); len(ids) != 1 {
		t.Errorf("files-ready delivered %d times (%q), want once", len(ids), ids)
	}
	if got := keys(worker.ReviewPrefix); len(got) != 0 {
		t.Errorf("review/ holds %q after the release", got)
	}
	if out := cli("review", "list"); !strings.Contains(out, "no order held for review") {
		t.Errorf("review list after the release:\n%s", out)
	}
}
