package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/printworker/printworker/hub"
	"github.com/printworker/printworker/model"
)

func TestHubsimHelp(t *testing.T) {
	var out strings.Builder
	if err := run(t.Context(), []string{"hubsim", "--help"}, func(string) string { return "" }, &out, io.Discard); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"--addr", "PRINTWORKER_ADDR", "--designs", "--store", "--key", "--secret-file",
		"--stores-file", "--encoding", "--word-2023-10", "PRINTWORKER_WORD_2023_10", "--page-size", "--media-path",
		"--latency", "--error-rate", "--fail-first", "--rate-limit", "--drop-rate", "--drop-after", "--truncate-rate", "--seed"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("help lacks %s", want)
		}
	}
}

func TestHubsimBadSettings(t *testing.T) {
	// A cancelled context: should a bad setting slip through, the command fails to
	// listen instead of serving forever.
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	env := map[string]string{"PRINTWORKER_ERROR_RATE": "2"}
	err := run(ctx, []string{"hubsim", "--addr", "127.0.0.1:0"}, func(k string) string { return env[k] }, io.Discard, io.Discard)
	if exitCode(err) != 2 {
		t.Fatalf("error %v, want a usage error", err)
	}
	for _, args := range [][]string{{"--encoding", "rot13"}, {"--exporter", "magic"}} {
		err = run(ctx, append([]string{"hubsim", "--addr", "127.0.0.1:0"}, args...), func(string) string { return "" }, io.Discard, io.Discard)
		if exitCode(err) != 2 {
			t.Fatalf("%v: error %v, want a usage error", args, err)
		}
	}
}

// TestHubsimServes runs the command in-process on a free port with settings from
// flags, the environment and a secret file, and makes signed calls to it.
func TestHubsimServes(t *testing.T) {
	dir := t.TempDir()
	secretFile := filepath.Join(dir, "secret")
	if err := os.WriteFile(secretFile, []byte("s3cret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	stores := filepath.Join(dir, "stores.json")
	if err := os.WriteFile(stores, []byte(`[{"id":"second","domains":["b.example"],"keys":[{"key":"k2","secret":"x2"}]},`+
		`{"store":"third","apiKey":"k3","secret":"x3","domains":["c.example"]}]`), 0o600); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"PRINTWORKER_STORE": "shop-1", "PRINTWORKER_WORD_2023_10": "Acme"}
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"hubsim", "--addr", "127.0.0.1:0", "--key", "k1", "--secret-file", secretFile,
			"--stores-file", stores, "--log-level", "warn"}, func(k string) string { return env[k] }, pw, io.Discard)
		pw.Close()
	}()
	line, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		t.Fatalf("no listening line: %v", err)
	}
	go func() { _, _ = io.Copy(io.Discard, pr) }()
	base := strings.TrimSpace(strings.TrimPrefix(line, "hubsim listening on "))

	ref := model.DesignRef{ID: 1001, Token: "7d9f2c4e-1b3a-4c5d-8e6f-0a1b2c3d4e5f"}
	get := func(storeID, key, secret string) int {
		req, _ := http.NewRequestWithContext(ctx, "GET", base+hub.DesignPath(hub.V2023, ref), nil)
		h := hub.HeadersFor(hub.V2023, "Acme")
		req.Header.Set(h.Store, storeID)
		req.Header.Set(h.APIKey, key)
		req.Header.Set(h.Signature, hub.Sign(secret, hub.EncodingHex, hub.DesignParts(storeID, ref)...))
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		if res.StatusCode == http.StatusOK {
			var d model.DesignDetail
			if err := json.NewDecoder(res.Body).Decode(&d); err != nil || d.Shop != storeID {
				t.Fatalf("design %+v: %v", d, err)
			}
		}
		return res.StatusCode
	}
	if got := get("shop-1", "k1", "s3cret"); got != http.StatusOK {
		t.Fatalf("primary store: %d", got)
	}
	// The second store authenticates, but the embedded designs belong to the primary.
	if got := get("second", "k2", "x2"); got != http.StatusNotFound {
		t.Fatalf("second store: %d", got)
	}
	if got := get("third", "k3", "x3"); got != http.StatusNotFound {
		t.Fatalf("third store (worker's file shape): %d", got)
	}
	if got := get("shop-1", "k1", "demo-secret"); got != http.StatusUnauthorized {
		t.Fatalf("wrong secret: %d", got)
	}

	// The default exporter is the renderer: the card's export is a fresh PDF, not the
	// stored stand-in of the fixture folder.
	card := model.DesignRef{ID: 1003, Token: "e4b7c1d9-3a2f-4b8e-a6d5-7c9e0f1a2b3c"}
	req, _ := http.NewRequestWithContext(ctx, "GET", base+hub.ExportPath(hub.V2023, card, "card"), nil)
	h := hub.HeadersFor(hub.V2023, "Acme")
	req.Header.Set(h.Store, "shop-1")
	req.Header.Set(h.APIKey, "k1")
	req.Header.Set(h.Signature, hub.Sign("s3cret", hub.EncodingHex, hub.ViewParts("shop-1", card, "card")...))
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	pdf, err := io.ReadAll(res.Body)
	res.Body.Close()
	if err != nil || res.StatusCode != http.StatusOK || res.Header.Get("Content-Type") != "application/pdf" || !bytes.HasPrefix(pdf, []byte("%PDF-")) {
		t.Fatalf("rendered export: %d %v %v", res.StatusCode, res.Header, err)
	}
	stored, err := os.ReadFile("../../hubsim/testdata/designs/exports/1003/card.pdf")
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Equal(pdf, stored) {
		t.Fatal("the export is the stored file, not a rendering")
	}
	cancel()
	select {
	case err := <-done:
		if err != nil && !errors.Is(err, context.Canceled) {
			t.Fatalf("hubsim returned %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("hubsim did not stop after cancel")
	}
}
