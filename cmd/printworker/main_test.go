package main

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hibiken/asynq"

	"github.com/printworker/printworker/demo"
	"github.com/printworker/printworker/hubsim"
	"github.com/printworker/printworker/internal/testnet"
	"github.com/printworker/printworker/internal/testredis"
	"github.com/printworker/printworker/jobs"
)

func TestHelpAndUsage(t *testing.T) {
	tests := []struct {
		args     []string
		wantExit int // 0 for success
		wantOut  string
	}{
		{[]string{"--help"}, 0, "Commands:"},
		{[]string{"serve", "--help"}, 0, "PRINTWORKER_SHOPIFY_SECRET"},
		{[]string{"demo", "--help"}, 0, "PRINTWORKER_REDIS_URL"},
		{[]string{"enqueue", "--help"}, 0, "reexport"},
		{[]string{"enqueue", "reprint", "--help"}, 0, "--copies"},
		{[]string{"enqueue", "order", "--help"}, 0, "--op"},
		{[]string{"templates", "--help"}, 0, "--prune"},
		{[]string{"templates", "sync", "--help"}, 0, "--dry-run"},
		{[]string{"enqueue"}, 2, "Actions:"},
		{[]string{"enqueue", "frobnicate"}, 2, ""},
		{[]string{"nope"}, 2, ""},
		{[]string{"serve", "--max-body", "lots"}, 2, ""},
		{[]string{"enqueue", "export", "--store", "s"}, 2, ""},
		{[]string{"templates", "pull"}, 2, ""},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			out, _, err := runCLI(t, nil, tt.args...)
			if got := exitOf(err); got != tt.wantExit {
				t.Fatalf("exit %d (%v), want %d", got, err, tt.wantExit)
			}
			if err != nil && strings.Contains(oneLine(err), "\n") {
				t.Errorf("error is not one line: %q", err)
			}
			if !strings.Contains(out, tt.wantOut) {
				t.Errorf("output lacks %q:\n%s", tt.wantOut, out)
			}
		})
	}
}

func exitOf(err error) int {
	if err == nil {
		return 0
	}
	return exitCode(err)
}

func TestFlagValues(t *testing.T) {
	var b byteSize
	for in, want := range map[string]int64{"2MiB": 2 << 20, "512KiB": 512 << 10, "1000": 1000, "3 MB": 3000000} {
		if err := b.Set(in); err != nil || int64(b) != want {
			t.Errorf("byteSize %q = %d, %v; want %d", in, b, err, want)
		}
	}
	if b.Set("-1") == nil || b.Set("2 parsecs") == nil {
		t.Error("bad sizes accepted")
	}
	var s secretList
	_ = s.Set("a, b\nc\r\n")
	if !slices.Equal(s, secretList{"a", "b", "c"}) || strings.Contains(s.String(), "a") {
		t.Errorf("secretList %q / %q", s, s.String())
	}
	var m mapFlag
	if err := m.Set("a.myshopify.com=store-1, b.myshopify.com = store-2"); err != nil || m["b.myshopify.com"] != "store-2" {
		t.Errorf("mapFlag %v %v", m, err)
	}
	if m.Set("novalue") == nil {
		t.Error("mapFlag accepted a pair without '='")
	}
}

// TestServe runs `printworker serve` in-process with its settings from the
// environment and a secret file, sends it a signed Shopify webhook, reads what was
// enqueued from Redis, and stops it as a signal would.
func TestServe(t *testing.T) {
	rs := testredis.Start(t)
	secretFile := filepath.Join(t.TempDir(), "shopify-secret")
	if err := os.WriteFile(secretFile, []byte("old-secret\nnew-secret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	addr := testnet.FreeAddr(t)
	env := map[string]string{
		"PRINTWORKER_ADDR":                addr,
		"PRINTWORKER_REDIS_URL":           rs.URL(),
		"PRINTWORKER_SHOPIFY_SECRET_FILE": secretFile,
		"PRINTWORKER_SHOPIFY_STORE":       "printworker-demo.myshopify.com=store-7",
		"PRINTWORKER_SHOPIFY_DOMAIN":      "printworker-demo.myshopify.com=shop.example.com",
		"PRINTWORKER_LOG_LEVEL":           "error",
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	var stderr bytes.Buffer
	go func() {
		done <- run(ctx, []string{"serve"}, func(k string) string { return env[k] }, io.Discard, &stderr)
	}()
	base := "http://" + addr
	testnet.WaitHTTP(t, base+"/healthz", done)

	body, err := demo.Orders.ReadFile("demodata/shopify-order-1.json")
	if err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequest(http.MethodPost, base+"/webhooks/shopify", bytes.NewReader(body))
	m := hmac.New(sha256.New, []byte("new-secret"))
	m.Write(body)
	req.Header.Set("X-Shopify-Hmac-Sha256", base64.StdEncoding.EncodeToString(m.Sum(nil)))
	req.Header.Set("X-Shopify-Topic", "orders/paid")
	req.Header.Set("X-Shopify-Shop-Domain", "printworker-demo.myshopify.com")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(raw), `"enqueued"`) {
		t.Fatalf("webhook: %d %s", resp.StatusCode, raw)
	}
	got := pendingTasks(t, rs)
	want := []string{
		"design:export " + jobs.ExportTaskID(jobs.OrderKey{Store: "store-7", Domain: "shop.example.com", OrderID: "6100000000001"}, "1001.7d9f2c4e-1b3a-4c5d-8e6f-0a1b2c3d4e5f", 0),
		"design:export " + jobs.ExportTaskID(jobs.OrderKey{Store: "store-7", Domain: "shop.example.com", OrderID: "6100000000001"}, "1002.2c5e8a1f-6b4d-4e3a-9f7c-8d2e1a0b9c3d", 0),
		"order:push push:store-7/shop.example.com/6100000000001:update",
	}
	if !slices.Equal(got, want) {
		t.Errorf("enqueued:\n got %q\nwant %q", got, want)
	}
	if r, err := http.Get(base + "/readyz"); err != nil || r.StatusCode != 200 {
		t.Errorf("readyz: %v %v", r, err)
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("serve returned %v after shutdown; log:\n%s", err, stderr.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatal("serve did not stop")
	}
}

// pendingTasks lists "type id" of pending tasks, the push's body hash cut off.
func pendingTasks(t *testing.T, rs *testredis.Server) []string {
	t.Helper()
	insp := asynq.NewInspectorFromRedisClient(rs.Client(t))
	var out []string
	for _, q := range jobs.WithExportShards(defaultExportShards, jobs.QueueOrders, jobs.QueueComplete, jobs.QueueExports, jobs.QueueSync) {
		ts, err := insp.ListPendingTasks(q)
		if errors.Is(err, asynq.ErrQueueNotFound) {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		for _, ti := range ts {
			id := ti.ID
			if ti.Type == jobs.TypeOrderPush {
				id = id[:strings.LastIndex(id, ":")]
			}
			out = append(out, ti.Type+" "+id)
		}
	}
	slices.Sort(out)
	return out
}

func TestEnqueueCommands(t *testing.T) {
	rs := testredis.Start(t)
	env := map[string]string{"PRINTWORKER_REDIS_URL": rs.URL()}
	order := `{"orderId": "A-1", "domain": "shop.example.com", "status": "paid",
	  "created": "2024-03-14T13:26:53.000Z", "updated": "2024-03-14T13:27:10.000Z",
	  "email": "a@example.com", "firstName": "A", "lastName": "B",
	  "billingDetails": {"address1": "", "address2": "", "city": "", "companyName": "", "country": "", "countryCode": "", "firstName": "", "lastName": "", "phone": "", "province": "", "zip": ""},
	  "shippingDetails": {"address1": "", "address2": "", "city": "", "companyName": "", "country": "", "countryCode": "", "firstName": "", "lastName": "", "phone": "", "province": "", "zip": ""},
	  "lineItems": [{"id": 1002, "token": "2c5e8a1f-6b4d-4e3a-9f7c-8d2e1a0b9c3d", "quantity": 2, "price": 9.5}]}`
	dir := t.TempDir()
	good := filepath.Join(dir, "order.json")
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(good, []byte(order), 0o644)
	os.WriteFile(bad, []byte(strings.Replace(order, `"a@example.com"`, `"nope"`, 1)), 0o644)

	out, _, err := runCLI(t, env, "enqueue", "order", "--store", "s1", "--file", good, "--export")
	if err != nil {
		t.Fatalf("enqueue order: %v", err)
	}
	if !strings.Contains(out, "order:push") || !strings.Contains(out, "design:export") {
		t.Errorf("enqueue order printed:\n%s", out)
	}
	want := []string{
		"design:export " + jobs.ExportTaskID(jobs.OrderKey{Store: "s1", Domain: "shop.example.com", OrderID: "A-1"}, "1002.2c5e8a1f-6b4d-4e3a-9f7c-8d2e1a0b9c3d", 0),
		"order:push push:s1/shop.example.com/A-1:update",
	}
	if got := pendingTasks(t, rs); !slices.Equal(got, want) {
		t.Errorf("after enqueue order:\n got %q\nwant %q", got, want)
	}
	// The same again is recognised, not enqueued twice.
	out, _, _ = runCLI(t, env, "enqueue", "order", "--store", "s1", "--file", good, "--export")
	if !strings.Contains(out, "already queued or done") {
		t.Errorf("repeat enqueue printed:\n%s", out)
	}
	// An invalid file enqueues nothing, and says which field.
	_, _, err = runCLI(t, env, "enqueue", "order", "--store", "s1", "--file", good, "--file", bad)
	if err == nil || !strings.Contains(err.Error(), "email") {
		t.Errorf("invalid order file: %v", err)
	}
	if got := pendingTasks(t, rs); len(got) != 2 {
		t.Errorf("an invalid batch enqueued: %q", got)
	}
	// Re-export starts generation 1; cancel removes the waiting exports.
	out, _, err = runCLI(t, env, "enqueue", "reexport", "--store", "s1", "--domain", "shop.example.com", "--order", "A-1")
	if err != nil || !strings.Contains(out, "generation 1") {
		t.Errorf("reexport: %v\n%s", err, out)
	}
	out, _, err = runCLI(t, env, "enqueue", "cancel", "--store", "s1", "--domain", "shop.example.com", "--order", "A-1")
	if err != nil || !strings.Contains(out, "cancelled") {
		t.Errorf("cancel: %v\n%s", err, out)
	}
	for _, task := range pendingTasks(t, rs) {
		if strings.HasPrefix(task, jobs.TypeDesignExport) {
			t.Errorf("export still pending after cancel: %s", task)
		}
	}
	// export of a design reference for a new order.
	out, _, err = runCLI(t, env, "enqueue", "export", "--store", "s1", "--domain", "shop.example.com", "--order", "B-2",
		"--ref", "1003.e4b7c1d9-3a2f-4b8e-a6d5-7c9e0f1a2b3c", "--quantity", "4")
	if err != nil || !strings.Contains(out, "export:s1/shop.example.com/B-2:1003-") {
		t.Errorf("enqueue export: %v\n%s", err, out)
	}
	if _, _, err := runCLI(t, env, "enqueue", "export", "--store", "s1", "--domain", "d", "--order", "o", "--ref", "12"); exitOf(err) != 2 {
		t.Errorf("bad ref: %v", err)
	}
	// A reprint gets the order's next number and its own task; bad counts are usage
	// errors that enqueue nothing.
	for i, want := range []string{"reprint 1", "reprint 2"} {
		out, _, err = runCLI(t, env, "enqueue", "reprint", "--store", "s1", "--domain", "shop.example.com", "--order", "A-1",
			"--line", "1", "--view", "front", "--copies", "2")
		if err != nil || !strings.Contains(out, want) || !strings.Contains(out, jobs.ReprintTaskID(jobs.OrderKey{Store: "s1", Domain: "shop.example.com", OrderID: "A-1"}, int64(i+1))) {
			t.Errorf("enqueue reprint: %v\n%s", err, out)
		}
	}
	for _, bad := range [][]string{{"--copies", "0"}, {"--copies", "101"}, {"--line", "-1"}, {"--date", "14.3.2024"}} {
		args := append([]string{"enqueue", "reprint", "--store", "s1", "--domain", "shop.example.com", "--order", "A-1"}, bad...)
		if _, _, err := runCLI(t, env, args...); err == nil {
			t.Errorf("reprint %v accepted", bad)
		}
	}
	// An unreachable Redis is one line, exit 1.
	_, _, err = runCLI(t, map[string]string{"PRINTWORKER_REDIS_URL": "redis://" + testnet.FreeAddr(t)}, "enqueue", "cancel", "--store", "s", "--domain", "d", "--order", "o")
	if err == nil || exitOf(err) != 1 {
		t.Errorf("unreachable redis: %v", err)
	}
}

func TestTemplatesCommands(t *testing.T) {
	sim, err := hubsim.New(hubsim.Config{Stores: []hubsim.Store{{ID: "demo-store", Domains: []string{"shop.example.com"},
		Keys: []hubsim.Key{{Key: "k", Secret: "s3cret"}}}}, PageSize: 2})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(sim)
	t.Cleanup(hs.Close)
	env := map[string]string{"PRINTWORKER_HUB_URL": hs.URL, "PRINTWORKER_HUB_STORE": "demo-store", "PRINTWORKER_HUB_API_KEY": "k"}
	secret := filepath.Join(t.TempDir(), "secret")
	os.WriteFile(secret, []byte("s3cret\n"), 0o600)
	env["PRINTWORKER_HUB_SECRET_FILE"] = secret

	src := t.TempDir()
	fixtures, _ := hubsimFixtureTemplates(t)
	for name, b := range fixtures {
		os.WriteFile(filepath.Join(src, name), b, 0o644)
	}

	out, _, err := runCLI(t, env, "templates", "sync", "--dir", src, "--dry-run")
	if err != nil || !strings.Contains(out, "3 create, 0 update, 0 delete, 0 unchanged: planned") {
		t.Fatalf("dry run: %v\n%s", err, out)
	}
	if n := len(sim.Templates("demo-store")); n != 0 {
		t.Fatalf("dry run created %d templates", n)
	}
	out, _, err = runCLI(t, env, "templates", "sync", "--dir", src)
	if err != nil || !strings.Contains(out, "3 create") {
		t.Fatalf("sync: %v\n%s", err, out)
	}
	out, _, err = runCLI(t, env, "templates", "list")
	if err != nil || !strings.Contains(out, "3 templates") || !strings.Contains(out, "mug-11oz") {
		t.Fatalf("list: %v\n%s", err, out)
	}
	pulled := t.TempDir()
	out, _, err = runCLI(t, env, "templates", "pull", "--dir", pulled)
	if err != nil || !strings.Contains(out, "3 templates written") {
		t.Fatalf("pull: %v\n%s", err, out)
	}
	// What was pulled syncs back as unchanged: the round trip keeps every field.
	out, _, err = runCLI(t, env, "templates", "sync", "--dir", pulled, "--dry-run")
	if err != nil || !strings.Contains(out, "0 create, 0 update, 0 delete, 3 unchanged") {
		t.Fatalf("sync of pulled templates: %v\n%s", err, out)
	}
	// Prune: a folder with one template deletes the other two.
	one := t.TempDir()
	b, _ := os.ReadFile(filepath.Join(pulled, "mug-11oz.json"))
	os.WriteFile(filepath.Join(one, "mug-11oz.json"), b, 0o644)
	out, _, err = runCLI(t, env, "templates", "sync", "--dir", one, "--prune")
	if err != nil || !strings.Contains(out, "2 delete, 1 unchanged: done") {
		t.Fatalf("prune: %v\n%s", err, out)
	}
	if n := len(sim.Templates("demo-store")); n != 1 {
		t.Errorf("after prune the hub has %d templates, want 1", n)
	}
	if _, _, err := runCLI(t, env, "templates", "sync", "--dir", t.TempDir(), "--prune"); exitOf(err) != 2 {
		t.Errorf("prune from an empty folder: %v, want a refusal", err)
	}
	env["PRINTWORKER_HUB_SECRET_FILE"] = ""
	env["PRINTWORKER_HUB_SECRET"] = "wrong"
	if _, _, err := runCLI(t, env, "templates", "list"); err == nil || !strings.Contains(err.Error(), "401") {
		t.Errorf("wrong secret: %v", err)
	}
}

func hubsimFixtureTemplates(t *testing.T) (map[string][]byte, error) {
	t.Helper()
	out := map[string][]byte{}
	fsys := hubsim.SampleFixtures()
	for _, name := range []string{"card-a6.json", "mug-11oz.json", "tshirt-classic.json"} {
		f, err := fsys.Open("templates/" + name)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(f)
		f.Close()
		var probe map[string]json.RawMessage
		if err := json.Unmarshal(b, &probe); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		out[name] = b
	}
	return out, nil
}
