package progress

import (
	"bytes"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestPlainLines(t *testing.T) {
	tests := []struct {
		name  string
		total int
		steps func(b *Bar)
		want  []string
	}{
		{
			name:  "small batch prints every item",
			total: 3,
			steps: func(b *Bar) { b.Add(1); b.Add(1); b.Add(1) },
			want:  []string{"orders 0/3", "orders 1/3", "orders 2/3", "orders 3/3"},
		},
		{
			name:  "large batch prints each tenth",
			total: 100,
			steps: func(b *Bar) {
				for range 100 {
					b.Add(1)
				}
			},
			want: []string{"orders 0/100", "orders 10/100", "orders 20/100", "orders 30/100", "orders 40/100",
				"orders 50/100", "orders 60/100", "orders 70/100", "orders 80/100", "orders 90/100", "orders 100/100"},
		},
		{
			name:  "failures are shown at once",
			total: 100,
			steps: func(b *Bar) { b.Add(1); b.Fail(); b.Add(1) },
			want:  []string{"orders 0/100", "orders 1/100 (1 failed)", "orders 2/100 (1 failed)"},
		},
		{
			name:  "finish writes the last state once",
			total: 100,
			steps: func(b *Bar) { b.Set(5); b.Finish(); b.Finish(); b.Add(1) },
			want:  []string{"orders 0/100", "orders 5/100"},
		},
		{
			name:  "never goes down",
			total: 2,
			steps: func(b *Bar) { b.Set(2); b.Set(1) },
			want:  []string{"orders 0/2", "orders 2/2"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			b := New(&buf, "orders", tt.total, WithTerminal(false))
			tt.steps(b)
			b.Finish()
			got := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
			if strings.Join(got, "|") != strings.Join(tt.want, "|") {
				t.Errorf("lines:\n got %q\nwant %q", got, tt.want)
			}
			if strings.Contains(buf.String(), "\r") || strings.Contains(buf.String(), "\033") {
				t.Errorf("plain output holds control characters: %q", buf.String())
			}
		})
	}
}

func TestTerminalBar(t *testing.T) {
	var buf bytes.Buffer
	clock := time.Unix(0, 0)
	b := New(&buf, "files", 4, WithTerminal(true), WithWidth(8), func(b *Bar) { b.now = func() time.Time { return clock } })
	b.Add(1) // throttled: same instant as the first draw
	clock = clock.Add(time.Second)
	b.Add(1)
	b.Set(4) // completion always draws
	b.Finish()
	out := buf.String()
	frames := strings.Split(out, "\r\033[K")
	// "", initial frame, 2/4, 4/4, final frame.
	want := []string{"", "░░░░░░░░   0% files 0/4", "████░░░░  50% files 2/4", "████████ 100% files 4/4", "████████ 100% files 4/4\n"}
	if strings.Join(frames, "|") != strings.Join(want, "|") {
		t.Errorf("frames:\n got %q\nwant %q", frames, want)
	}
}

func TestConcurrentAdds(t *testing.T) {
	var buf bytes.Buffer
	b := New(&buf, "x", 1000, WithTerminal(false))
	var wg sync.WaitGroup
	for range 10 {
		wg.Go(func() {
			for range 100 {
				b.Add(1)
			}
		})
	}
	wg.Wait()
	if b.Done() != 1000 {
		t.Fatalf("done = %d, want 1000", b.Done())
	}
}

func TestIsTerminalOnBuffer(t *testing.T) {
	if IsTerminal(&bytes.Buffer{}) {
		t.Fatal("a buffer is not a terminal")
	}
}
