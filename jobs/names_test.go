package jobs

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/printworker/printworker/internal/testredis"
)

// choices offers base.png, base-2.png, ... base-n.png, each also claiming its thumbnail.
func choices(base string, from, n int) []NameChoice {
	var out []NameChoice
	for i := from; i < from+n; i++ {
		name := base + ".png"
		if i > 1 {
			name = fmt.Sprintf("%s-%d.png", base, i)
		}
		out = append(out, NameChoice{Name: name, Claims: []string{name, strings.TrimSuffix(name, ".png") + ".thumb.jpg"}})
	}
	return out
}

func TestReserveName(t *testing.T) {
	t.Parallel()
	rs := testredis.Start(t)
	s := NewState(rs.Client(t), "t", 0)
	ctx := context.Background()
	k := OrderKey{Store: "s", Domain: "d.example", OrderID: "o-1"}
	next := 0
	reserve := func(owner, request string, c []NameChoice) string {
		t.Helper()
		first := 1
		if len(c) > 0 && strings.Contains(c[0].Name, "-") {
			fmt.Sscanf(c[0].Name[strings.LastIndexByte(c[0].Name, '-')+1:], "%d", &first)
		}
		name, n, err := s.ReserveName(ctx, k, owner, "png", request, first, c)
		if err != nil {
			t.Fatal(err)
		}
		next = n
		return name
	}
	if got := reserve("1.a|front", "Mug.png", choices("Mug", 1, 4)); got != "Mug.png" {
		t.Errorf("first owner: %q, want the name unchanged", got)
	}
	// Case-insensitively taken: the second owner gets the next choice.
	if got := reserve("2.b|front", "MUG.png", choices("MUG", 1, 4)); got != "MUG-2.png" {
		t.Errorf("second owner: %q, want MUG-2.png", got)
	}
	// A retry gets its own name back, whatever it is offered.
	if got := reserve("2.b|front", "MUG.png", choices("MUG", 1, 1)); got != "MUG-2.png" {
		t.Errorf("retry of the second owner: %q, want MUG-2.png", got)
	}
	if got := reserve("1.a|front", "Mug.png", choices("Mug", 1, 4)); got != "Mug.png" {
		t.Errorf("retry of the first owner: %q", got)
	}
	// Every offered choice taken: "", and nothing is reserved.
	if got := reserve("3.c|front", "Mug.png", choices("Mug", 1, 1)); got != "" || next != 3 {
		t.Errorf("all choices taken: %q, next %d; want \"\" and 3 (Mug-2.png was taken for MUG.png)", got, next)
	}
	if got := reserve("3.c|front", "Mug.png", choices("Mug", 3, 2)); got != "Mug-3.png" {
		t.Errorf("next batch: %q, want Mug-3.png", got)
	}
	// A file whose thumbnail would be another's (Mug.thumb.jpg) is kept apart too.
	jpg := []NameChoice{{Name: "Mug.thumb.jpg", Claims: []string{"Mug.thumb.jpg", "Mug.thumb.thumb.jpg"}}}
	if got := reserve("4.d|front", "Mug.thumb.jpg", jpg); got != "" {
		t.Errorf("a name equal to another file's thumbnail was given: %q", got)
	}
	// A renamed design keeps its old name from others (its file from before is still
	// in the folder) and may take it back.
	if got := reserve("1.a|front", "Cup.png", choices("Cup", 1, 1)); got != "Cup.png" {
		t.Errorf("renamed: %q", got)
	}
	if got := reserve("5.e|front", "Mug.png", choices("Mug", 1, 1)); got != "" {
		t.Errorf("the renamed design's old name was given away: %q", got)
	}
	if got := reserve("1.a|front", "Mug.png", choices("Mug", 1, 1)); got != "Mug.png" {
		t.Errorf("renamed back: %q", got)
	}
	// The same view's file of another type (a hub that sent a PNG for a pdf view) may
	// share its own thumbnail name.
	if got, _, err := s.ReserveName(ctx, k, "1.a|front", "jpeg", "Mug.jpg", 1, []NameChoice{{Name: "Mug.jpg", Claims: []string{"Mug.jpg", "Mug.thumb.jpg"}}}); err != nil || got != "Mug.jpg" {
		t.Errorf("another type of the same view: %q, %v", got, err)
	}
	// Another order has names of its own.
	k2 := k
	k2.Domain = "other.example"
	if got, _, err := s.ReserveName(ctx, k2, "2.b|front", "png", "Mug.png", 1, choices("Mug", 1, 1)); err != nil || got != "Mug.png" {
		t.Errorf("another order: %q, %v", got, err)
	}
}

// Designs exporting at once on several workers never win one name.
func TestReserveNameConcurrent(t *testing.T) {
	t.Parallel()
	rs := testredis.Start(t)
	s := NewState(rs.Client(t), "t", 0)
	ctx := context.Background()
	k := OrderKey{Store: "s", Domain: "d.example", OrderID: "o-1"}
	const n = 16
	got := make([]string, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			name, _, err := s.ReserveName(ctx, k, fmt.Sprintf("%d.x|front", i), "png", "Mug.png", 1, choices("Mug", 1, n))
			if err != nil {
				t.Error(err)
			}
			got[i] = name
		}()
	}
	wg.Wait()
	seen := map[string]bool{}
	for _, name := range got {
		if name == "" || seen[name] {
			t.Fatalf("names %q: want %d distinct", got, n)
		}
		seen[name] = true
	}
}

func TestClaimFolder(t *testing.T) {
	t.Parallel()
	rs := testredis.Start(t)
	s := NewState(rs.Client(t), "t", 0)
	ctx := context.Background()
	a := OrderKey{Store: "s", Domain: "shop.example.com", OrderID: "DOM-1001"}
	b := OrderKey{Store: "s", Domain: "other.example.com", OrderID: "DOM-1001"}
	for _, tt := range []struct {
		k, want OrderKey
	}{{a, a}, {b, a}, {a, a}} {
		got, err := s.ClaimFolder(ctx, "s/2024-01-02/DOM-1001/manifest.json", tt.k)
		if err != nil || got != tt.want {
			t.Errorf("ClaimFolder by %v = %v, %v; want %v", tt.k, got, err, tt.want)
		}
	}
	if got, err := s.ClaimFolder(ctx, "s/2024-01-02/DOM-1001@other.example.com/manifest.json", b); err != nil || got != b {
		t.Errorf("own folder: %v, %v", got, err)
	}
}

// BenchmarkReserveName: the cost a view's export pays for its name: a free name (one
// script call), and a name 50 or more files of the order already have (two calls, the
// second starting at the hint, however many there are).
func BenchmarkReserveName(b *testing.B) {
	rs := testredis.Start(b)
	s := NewState(rs.Client(b), "t", 0)
	ctx := context.Background()
	b.Run("free", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			k := OrderKey{Store: "s", Domain: "d", OrderID: fmt.Sprint(i)}
			if _, _, err := s.ReserveName(ctx, k, "1.a|front", "png", "Mug.png", 1, choices("Mug", 1, 1)); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("taken", func(b *testing.B) {
		k := OrderKey{Store: "s", Domain: "d", OrderID: "many"}
		for i := range 49 {
			if _, _, err := s.ReserveName(ctx, k, fmt.Sprint(i), "png", "Mug.png", 1, choices("Mug", 1, 64)); err != nil {
				b.Fatal(err)
			}
		}
		for i := 0; b.Loop(); i++ {
			// What reserveKey does: the name as made, then from the hint on.
			owner := fmt.Sprint("new-", i)
			name, next, err := s.ReserveName(ctx, k, owner, "png", "Mug.png", 1, choices("Mug", 1, 1))
			if err == nil && name == "" {
				name, _, err = s.ReserveName(ctx, k, owner, "png", "Mug.png", next, choices("Mug", next, 16))
			}
			if err != nil || name == "" {
				b.Fatal(name, err)
			}
		}
	})
}

// TestReserveNamePreviousVersion: names the previous version reserved (claims,
// slot records and next numbers in full) are honoured as they are, and after the
// order is settled (converted to the compact form, names.go) just the same.
func TestReserveNamePreviousVersion(t *testing.T) {
	t.Parallel()
	rs := testredis.Start(t)
	rdb := rs.Client(t)
	s := NewState(rdb, "t", 0)
	ctx := context.Background()
	k := OrderKey{Store: "s", Domain: "d.example", OrderID: "o-1"}
	if _, err := s.Begin(ctx, k, testOrder("1.a", "2.b"), []string{"1.a", "2.b"}); err != nil {
		t.Fatal(err)
	}
	// What the previous version wrote for "1.a|front" taking Mug.png and "2.b|front"
	// then taking MUG-2.png for the request MUG.png.
	if err := rdb.HSet(ctx, s.keys(k).names,
		"n|mug.png", "1.a|front", "n|mug.thumb.jpg", "1.a|front", "slot|png|1.a|front", "Mug.png\nMug.png", "next|mug.png", "3",
		"n|mug-2.png", "2.b|front", "n|mug-2.thumb.jpg", "2.b|front", "slot|png|2.b|front", "MUG.png\nMUG-2.png",
	).Err(); err != nil {
		t.Fatal(err)
	}
	check := func(when string) {
		t.Helper()
		for _, tt := range []struct {
			owner, request string
			first          int
			c              []NameChoice
			want           string
			next           int
		}{
			{"2.b|front", "MUG.png", 1, choices("MUG", 1, 1), "MUG-2.png", 0},
			{"1.a|front", "Mug.png", 1, choices("Mug", 1, 1), "Mug.png", 0},
			{"3.c|front", "Mug.png", 1, choices("Mug", 1, 1), "", 3},
			{"3.c|front", "mug-2.png", 1, choices("mug-2", 1, 1), "", 2},
		} {
			got, next, err := s.ReserveName(ctx, k, tt.owner, "png", tt.request, tt.first, tt.c)
			if err != nil || got != tt.want || next != tt.next {
				t.Errorf("%s: %s asking for %s: %q, next %d, %v; want %q, next %d", when, tt.owner, tt.request, got, next, err, tt.want, tt.next)
			}
		}
	}
	check("previous version")
	for _, ref := range []string{"1.a", "2.b"} {
		if _, _, err := s.MarkDone(ctx, k, ref, 0, []byte(`{}`)); err != nil {
			t.Fatal(err)
		}
	}
	if ok, err := s.Settle(ctx, k, 1, "m.json"); err != nil || !ok {
		t.Fatalf("settle: %v, %v", ok, err)
	}
	if n, _ := rdb.Exists(ctx, s.keys(k).names).Result(); n != 0 {
		t.Errorf("names kept beside the settled meta: %q", rdb.HGetAll(ctx, s.keys(k).names).Val())
	}
	for f := range rdb.HGetAll(ctx, s.keys(k).meta).Val() {
		if strings.Contains(f, "|front") || strings.HasPrefix(f, "n|") || strings.HasPrefix(f, "next|") {
			t.Errorf("settled meta keeps %q in full", f)
		}
	}
	check("settled")
	// A new reservation after the settle: a re-export's file.
	if got, _, err := s.ReserveName(ctx, k, "3.c|front", "png", "Mug.png", 3, choices("Mug", 3, 1)); err != nil || got != "Mug-3.png" {
		t.Errorf("after the settle: %q, %v", got, err)
	}
	if got, _, err := s.ReserveName(ctx, k, "4.d|front", "png", "Mug.png", 3, choices("Mug", 3, 2)); err != nil || got != "Mug-4.png" {
		t.Errorf("after the settle, another owner: %q, %v", got, err)
	}
}
