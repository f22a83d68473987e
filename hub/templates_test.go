package hub_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"testing"

	"github.com/printworker/printworker/hub"
)

// pagingHub serves n templates in pages of size, honouring skip unless ignoreSkip.
// total is what it reports (-1: the true n).
func pagingHub(t *testing.T, n, size, total int, ignoreSkip bool) *fakeHub {
	t.Helper()
	if total < 0 {
		total = n
	}
	f := newFakeHub(t)
	f.setRespond(func(w http.ResponseWriter, r *http.Request, s seen) {
		skip, _ := strconv.Atoi(s.Query.Get("skip"))
		if ignoreSkip {
			skip = 0
		}
		var page []map[string]any
		for i := skip; i < n && i < skip+size; i++ {
			page = append(page, map[string]any{"_id": fmt.Sprintf("t%03d", i), "name": "T", "productId": fmt.Sprintf("p%d", i),
				"shopify": nil, "static": false, "_created": "2024-01-01T00:00:00.000Z", "_updated": "2024-01-01T00:00:00.000Z",
				"template": map[string]string{"_id": "m", "token": "k"}})
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"count": len(page), "total": total, "results": page})
	})
	return f
}

func ids(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("t%03d", i)
	}
	return out
}

func TestAllTemplatesPaging(t *testing.T) {
	cases := []struct {
		n, size, total int
		ignoreSkip     bool
		maxPages       int
		want           []string
		wantSkips      []string // skip query of each request ("" for none)
		wantErr        bool
	}{
		{n: 10, size: 3, total: -1, want: ids(10), wantSkips: []string{"", "3", "6", "9"}},
		{n: 10, size: 1, total: -1, want: ids(10), wantSkips: []string{"", "1", "2", "3", "4", "5", "6", "7", "8", "9"}},
		{n: 10, size: 7, total: -1, want: ids(10), wantSkips: []string{"", "7"}},
		{n: 10, size: 10, total: -1, want: ids(10), wantSkips: []string{""}},
		{n: 10, size: 100, total: -1, want: ids(10), wantSkips: []string{""}},
		{n: 0, size: 5, total: -1, want: nil, wantSkips: []string{""}},
		// total overstates: stop at the first empty page.
		{n: 5, size: 2, total: 50, want: ids(5), wantSkips: []string{"", "2", "4", "5"}},
		// total absent (0): page until an empty page.
		{n: 5, size: 2, total: 0, want: ids(5), wantSkips: []string{"", "2", "4", "5"}},
		// total understates: trust it and stop.
		{n: 9, size: 4, total: 4, want: ids(4), wantSkips: []string{""}},
		// A hub ignoring skip repeats page one: detected after yielding it once.
		{n: 10, size: 3, total: -1, ignoreSkip: true, want: ids(3), wantSkips: []string{"", "3"}, wantErr: true},
		// The hard cap on pages.
		{n: 10, size: 2, total: -1, maxPages: 3, want: ids(6), wantSkips: []string{"", "2", "4"}, wantErr: true},
	}
	for _, tc := range cases {
		name := fmt.Sprintf("n%d/size%d/total%d/ignore%v/cap%d", tc.n, tc.size, tc.total, tc.ignoreSkip, tc.maxPages)
		t.Run(name, func(t *testing.T) {
			f := pagingHub(t, tc.n, tc.size, tc.total, tc.ignoreSkip)
			c := f.client(t, hub.V2022, func(cfg *hub.Config) { cfg.MaxListPages = tc.maxPages })
			var got []string
			var gotErr error
			for s, err := range c.AllTemplates(context.Background()) {
				if err != nil {
					gotErr = err
					break
				}
				got = append(got, s.ID)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("got %v, want %v", got, tc.want)
			}
			var skips []string
			for _, r := range f.requests() {
				skips = append(skips, r.Query.Get("skip"))
			}
			if !slices.Equal(skips, tc.wantSkips) {
				t.Errorf("skips %q, want %q", skips, tc.wantSkips)
			}
			if (gotErr != nil) != tc.wantErr {
				t.Fatalf("err = %v, want error %v", gotErr, tc.wantErr)
			}
			if gotErr != nil {
				var he *hub.Error
				if !errors.Is(gotErr, hub.ErrPaging) || !errors.As(gotErr, &he) || he.Retryable() {
					t.Errorf("paging error %v: want permanent ErrPaging", gotErr)
				}
			}
		})
	}
}

func TestAllTemplatesStopsEarlyAndOnErrors(t *testing.T) {
	f := pagingHub(t, 10, 3, -1, false)
	c := f.client(t, hub.V2022)
	n := 0
	for _, err := range c.AllTemplates(context.Background()) {
		if err != nil {
			t.Fatal(err)
		}
		if n++; n == 2 {
			break
		}
	}
	if len(f.requests()) != 1 {
		t.Errorf("breaking after 2 made %d requests", len(f.requests()))
	}

	calls := 0
	f.setRespond(func(w http.ResponseWriter, r *http.Request, s seen) {
		if calls++; calls == 2 {
			w.Header().Set("Retry-After", "3")
			w.WriteHeader(http.StatusTooManyRequests)
			return
		}
		_, _ = w.Write([]byte(`{"count":1,"total":5,"results":[{"_id":"a"}]}`))
	})
	var got []string
	var gotErr error
	for s, err := range c.AllTemplates(context.Background()) {
		if err != nil {
			gotErr = err
			break
		}
		got = append(got, s.ID)
	}
	var he *hub.Error
	if !slices.Equal(got, []string{"a"}) || !errors.As(gotErr, &he) || he.Status != 429 || he.RetryAfter() != 3e9 {
		t.Errorf("got %v, %v", got, gotErr)
	}
	if _, err := c.ListTemplates(context.Background(), -1); err == nil {
		t.Error("negative skip accepted")
	}
}
