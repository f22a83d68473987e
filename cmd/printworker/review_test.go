package main

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/printworker/printworker/storage"
	"github.com/printworker/printworker/worker"
)

// TestReviewCommandFlags: the review command's usage errors and the list's output
// from review manifests in a hot folder, without Redis.
func TestReviewCommandFlags(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"no action", []string{"review"}, "no action given"},
		{"unknown action", []string{"review", "approve"}, `unknown action "approve"`},
		{"release without order", []string{"review", "release", "--store", "s", "--domain", "d"}, "--order required"},
		{"bad date", []string{"review", "reject", "--store", "s", "--domain", "d", "--order", "o", "--date", "1.7.2024"}, `--date "1.7.2024"`},
		{"reason on release", []string{"review", "release", "--store", "s", "--domain", "d", "--order", "o", "--reason", "x"}, "-reason"},
	} {
		_, _, err := runCLI(t, nil, c.args...)
		if err == nil || !strings.Contains(err.Error(), c.want) || exitCode(err) != 2 {
			t.Errorf("%s: error %v (exit %d), want a usage error naming %q", c.name, err, exitCode(err), c.want)
		}
	}

	out, _, err := runCLI(t, nil, "review", "list", "--storage-dir", dir)
	if err != nil || !strings.Contains(out, "no order held for review") {
		t.Errorf("empty list: %q, %v", out, err)
	}
	st, err := storage.NewDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	put := func(key, order, status string) {
		m := worker.Manifest{Version: 1, Store: "acme", Domain: "shop.example", OrderID: order, Revision: 2,
			Review: &worker.ReviewRecord{Status: status, Date: "2024-07-01", HeldAt: "2024-07-01T12:00:00Z", Reason: map[bool]string{true: "reprint the artwork"}[status == worker.ReviewRejected],
				Findings: []worker.ManifestWarning{{Key: "acme/2024-07-01/" + order + "/card.pdf"}}}}
		m.Review.Findings[0].Code, m.Review.Findings[0].Message = "missing-font", `font family "Imaginary Serif" is not installed`
		b, _ := json.Marshal(m)
		if _, err := st.Put(context.Background(), storage.Object{Key: key, Size: int64(len(b))}, bytes.NewReader(b)); err != nil {
			t.Fatal(err)
		}
	}
	put("review/acme/2024-07-01/R 1@shop.example/manifest.json", "R 1", worker.ReviewHeld)
	put("review/acme/2024-07-01/R-2@shop.example/manifest.json", "R-2", worker.ReviewRejected)
	out, _, err = runCLI(t, nil, "review", "list", "--storage-dir", dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"held  order R 1  store acme  domain shop.example  date 2024-07-01  revision 2",
		`card.pdf: missing-font: font family "Imaginary Serif" is not installed`,
		"printworker review release --store acme --domain shop.example --order 'R 1' --date 2024-07-01"} {
		if !strings.Contains(out, want) {
			t.Errorf("review list lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "R-2") {
		t.Errorf("review list shows the rejected order without --all:\n%s", out)
	}
	out, _, err = runCLI(t, nil, "review", "list", "--storage-dir", dir, "--all", "--store", "acme")
	if err != nil || !strings.Contains(out, "rejected  order R-2") || !strings.Contains(out, "reason: reprint the artwork") {
		t.Errorf("review list --all: %v\n%s", err, out)
	}
	out, _, err = runCLI(t, nil, "review", "list", "--storage-dir", dir, "--store", "other")
	if err != nil || !strings.Contains(out, "no order held for review") {
		t.Errorf("review list --store other: %v\n%s", err, out)
	}
}
