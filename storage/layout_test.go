package storage_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/printworker/printworker/storage"
)

func TestLayoutKey(t *testing.T) {
	v := storage.KeyVars{
		Store: "shop.example.com", Order: "#1001", Design: "123.4f2a", View: "Front side",
		Product: "TSHIRT-L", Filename: "123.4f2a-Summer.png", Type: "png",
		Date: time.Date(2024, 1, 2, 23, 30, 0, 0, time.FixedZone("EST", -5*3600)),
	}
	tests := []struct {
		name, pattern, key, manifest string
	}{
		{"default", "", "shop.example.com/2024-01-03/#1001/123.4f2a-Summer.png", "shop.example.com/2024-01-03/#1001/manifest.json"},
		{"by product", "{store}/{product}/{date}-{order}/{view}-{filename}",
			"shop.example.com/TSHIRT-L/2024-01-03-#1001/Front-side-123.4f2a-Summer.png",
			"shop.example.com/TSHIRT-L/2024-01-03-#1001/manifest.json"},
		{"literal folder", "prints/{order}/{type}-{filename}", "prints/#1001/png-123.4f2a-Summer.png", "prints/#1001/manifest.json"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := storage.Layout{Pattern: tt.pattern}
			if err := l.Validate(); err != nil {
				t.Fatal(err)
			}
			key, err := l.Key(v)
			if err != nil || key != tt.key {
				t.Errorf("Key = %q, %v; want %q", key, err, tt.key)
			}
			m, err := l.ManifestKey(v)
			if err != nil || m != tt.manifest {
				t.Errorf("ManifestKey = %q, %v; want %q", m, err, tt.manifest)
			}
			if err := storage.ValidateKey(key); err != nil {
				t.Error(err)
			}
		})
	}
}

func TestLayoutValuesCannotEscape(t *testing.T) {
	l := storage.Layout{}
	for _, v := range []storage.KeyVars{
		{Store: "../../etc", Order: "1", Filename: "a.png", Date: time.Unix(0, 0)},
		{Store: "s", Order: "a/b", Filename: "../x.png", Date: time.Unix(0, 0)},
		{Store: ".hidden", Order: "..", Filename: ".png", Date: time.Unix(0, 0)},
		{Store: "s\\t", Order: "1\x00", Filename: "a\nb.png", Date: time.Unix(0, 0)},
	} {
		key, err := l.Key(v)
		if err != nil {
			if !errors.Is(err, storage.ErrInvalidKey) {
				t.Errorf("Key(%+v) = %v, want ErrInvalidKey", v, err)
			}
			continue
		}
		if n := strings.Count(key, "/"); n != 3 {
			t.Errorf("Key(%+v) = %q has %d slashes, want 3", v, key, n)
		}
		if err := storage.ValidateKey(key); err != nil {
			t.Errorf("Key(%+v) = %q: %v", v, key, err)
		}
	}
}

func TestLayoutEmptyVariable(t *testing.T) {
	l := storage.Layout{}
	full := storage.KeyVars{Store: "s", Order: "1", Filename: "a.png", Date: time.Unix(0, 0)}
	for name, v := range map[string]storage.KeyVars{
		"store":    {Order: "1", Filename: "a.png", Date: time.Unix(0, 0)},
		"date":     {Store: "s", Order: "1", Filename: "a.png"},
		"order":    {Store: "s", Order: "///", Filename: "a.png", Date: time.Unix(0, 0)},
		"filename": {Store: "s", Order: "1", Date: time.Unix(0, 0)},
	} {
		if _, err := l.Key(v); !errors.Is(err, storage.ErrInvalidKey) || !strings.Contains(err.Error(), "{"+name+"}") {
			t.Errorf("empty %s: %v", name, err)
		}
	}
	// The manifest does not need the per-file variables.
	m := full
	m.Filename = ""
	if _, err := l.ManifestKey(m); err != nil {
		t.Errorf("ManifestKey without filename: %v", err)
	}
}

func TestLayoutValidate(t *testing.T) {
	for _, tc := range []struct{ pattern, want string }{
		{"{store}/{order}/{design}/{filename}", "{design}"},
		{"{store}/{order}-{view}/{filename}", "{view}"},
		{"{store}/{order}/{type}/{filename}", "{type}"},
		{"{store}/{date}/{filename}", "{order} must be in a folder"},
		{"{store}/{order}/{view}", "{filename} must be in the last segment"},
		{"{store}/{order}/{nope}/{filename}", "unknown variable {nope}"},
		{"{store}/{order/{filename}", "unclosed"},
		{"{store}}/{order}/{filename}", "unmatched"},
		{"/{order}/{filename}", "empty"},
		{"../{order}/{filename}", "relative"},
		{".cache/{order}/{filename}", "starts with '.'"},
		{"{order}/.{filename}", "starts with '.'"},
	} {
		err := storage.Layout{Pattern: tc.pattern}.Validate()
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Validate(%q) = %v, want it to mention %q", tc.pattern, err, tc.want)
		}
		if _, kerr := (storage.Layout{Pattern: tc.pattern}).Key(storage.KeyVars{Store: "s", Order: "1", Filename: "f"}); kerr == nil {
			t.Errorf("Key accepted invalid pattern %q", tc.pattern)
		}
	}
}

// The folder rule of docs/storage.md: clean ids keep their name, changed ones get the
// fingerprint, and ids that clean alike get folders of their own.
func TestLayoutOrderFoldersAreInjective(t *testing.T) {
	l := storage.Layout{}
	want := map[string]string{"COL1": "COL1", "#1001": "#1001", "COL/1": "COL_1-d8958a", "COL 1": "COL-1-b1dd17"}
	seen := map[string]string{}
	for _, id := range []string{"COL1", "#1001", "COL/1", "COL 1", "COL:1", "COL_1", "COL-1", `COL\1`, "COL1 ", "COL\x001", "COL//1"} {
		key, err := l.ManifestKey(storage.KeyVars{Store: "s", Order: id, Date: time.Unix(0, 0)})
		if err != nil {
			t.Fatalf("%q: %v", id, err)
		}
		folder := strings.Split(key, "/")[2]
		if w, ok := want[id]; ok && folder != w {
			t.Errorf("order %q: folder %q, want %q", id, folder, w)
		}
		if other, ok := seen[key]; ok {
			t.Errorf("orders %q and %q share %s", other, id, key)
		}
		seen[key] = id
	}
}

// TestLayoutDayFolder: the day page's folder is the folders above the order's, when one
// of them is dated; a layout without such a folder groups no days.
func TestLayoutDayFolder(t *testing.T) {
	v := storage.KeyVars{Store: "shop.example.com", Order: "#1001", Date: time.Date(2024, 1, 2, 12, 0, 0, 0, time.UTC)}
	for _, tc := range []struct {
		pattern, folder string
		ok              bool
	}{
		{"", "shop.example.com/2024-01-02", true},
		{"{date}/{store}/{order}/{filename}", "2024-01-02/shop.example.com", true},
		{"prints/{date}/x/{order}/{filename}", "prints/2024-01-02/x", true},
		{"{store}/{product}/{date}-{order}/{filename}", "", false},
		{"{store}/{order}/{date}/{filename}", "", false},
		{"prints/{order}/{filename}", "", false},
		{"{order}/{filename}", "", false},
	} {
		got, ok, err := storage.Layout{Pattern: tc.pattern}.DayFolder(v)
		if err != nil || got != tc.folder || ok != tc.ok {
			t.Errorf("DayFolder(%q) = %q, %v, %v; want %q, %v", tc.pattern, got, ok, err, tc.folder, tc.ok)
		}
	}
	if _, _, err := (storage.Layout{}).DayFolder(storage.KeyVars{Order: "1"}); err == nil {
		t.Error("DayFolder without a date: no error")
	}
}

// The hub identifies an order by store, order id and domain (issue 32 item 2): one
// order id from two domains gets two folders, with {domain} in the pattern or without
// it (then {order} in a folder carries the domain), and an ambiguous '@' is
// fingerprinted rather than trusted.
func TestLayoutOrderFolderHasTheDomain(t *testing.T) {
	t.Parallel()
	day := time.Date(2024, 1, 2, 0, 0, 0, 0, time.UTC)
	v := func(order, domain string) storage.KeyVars {
		return storage.KeyVars{Store: "s", Domain: domain, Order: order, Filename: "a.png", Date: day}
	}
	tests := []struct {
		pattern string
		vars    storage.KeyVars
		want    string
	}{
		{"", v("DOM-1001", "shop.example.com"), "s/2024-01-02/DOM-1001@shop.example.com/manifest.json"},
		{"", v("DOM-1001", "other.example.com"), "s/2024-01-02/DOM-1001@other.example.com/manifest.json"},
		{"", v("DOM-1001", ""), "s/2024-01-02/DOM-1001/manifest.json"},
		{"{date}-{order}/{filename}", v("7", "shop.example.com"), "2024-01-02-7@shop.example.com/manifest.json"},
		{"{store}/{domain}/{date}/{order}/{filename}", v("DOM-1001", "shop.example.com"), "s/shop.example.com/2024-01-02/DOM-1001/manifest.json"},
		{"{store}/{order}-{domain}/{filename}", v("DOM 1", "shop.example.com"), "s/DOM-1-" + storage.KeyValue("DOM 1")[len("DOM-1-"):] + "-shop.example.com/manifest.json"},
	}
	for _, tt := range tests {
		got, err := storage.Layout{Pattern: tt.pattern}.ManifestKey(tt.vars)
		if err != nil || got != tt.want {
			t.Errorf("%q %+v: ManifestKey = %q, %v; want %q", tt.pattern, tt.vars, got, err, tt.want)
		}
	}
	// '@' inside a part could make two orders look alike: both get a fingerprint.
	seen := map[string]string{}
	for _, o := range [][2]string{{"A@b", "c"}, {"A", "b@c"}, {"A@b@c", ""}, {"A", "b"}, {"A@b", ""}} {
		key, err := storage.Layout{}.ManifestKey(v(o[0], o[1]))
		if err != nil {
			t.Fatal(err)
		}
		if other, ok := seen[key]; ok {
			t.Errorf("orders %q and %q share %s", o, other, key)
		}
		seen[key] = o[0] + "|" + o[1]
	}
	if got := storage.OrderFolderValue("A", "b"); got != "A@b" {
		t.Errorf("OrderFolderValue(A, b) = %q: a clean pair stays readable", got)
	}
}

// A segment longer than a filesystem holds is refused up front, permanently, before
// any storage sees it (issue 32 item 7: a 300-byte order id was retried for hours).
func TestLayoutRefusesOverlongSegments(t *testing.T) {
	t.Parallel()
	day := time.Date(2024, 1, 2, 0, 0, 0, 0, time.UTC)
	long := strings.Repeat("9", 300)
	for name, v := range map[string]storage.KeyVars{
		"order":    {Store: "s", Domain: "d", Order: long, Filename: "a.png", Date: day},
		"store":    {Store: long, Domain: "d", Order: "1", Filename: "a.png", Date: day},
		"domain":   {Store: "s", Domain: long, Order: "1", Filename: "a.png", Date: day},
		"filename": {Store: "s", Domain: "d", Order: "1", Filename: long + ".png", Date: day},
	} {
		_, err := storage.Layout{}.Key(v)
		if !errors.Is(err, storage.ErrInvalidKey) || !strings.Contains(err.Error(), "longer than the 255") {
			t.Errorf("%s of 300 bytes: Key = %v, want ErrInvalidKey naming the limit", name, err)
		}
	}
	ok := storage.KeyVars{Store: "s", Domain: "d", Order: strings.Repeat("9", 200), Filename: "a.png", Date: day}
	if _, err := (storage.Layout{}).Key(ok); err != nil {
		t.Errorf("a 200-byte order id: %v", err)
	}
}
