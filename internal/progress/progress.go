// Package progress reports the progress of a batch: a bar redrawn in place on a
// terminal, plain lines otherwise (logs, CI, pipes), so long commands never look hung and
// never fill a log file with control characters.
package progress

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"golang.org/x/term"
)

// Bar reports done/total of one batch. It is safe for concurrent use.
type Bar struct {
	w     io.Writer
	label string
	tty   bool
	width int

	mu       sync.Mutex
	total    int
	done     int
	failed   int
	lastLine int    // done count of the last plain line written
	lastText string // the last plain line written
	lastDraw time.Time
	finished bool
	now      func() time.Time
}

// Option configures a Bar.
type Option func(*Bar)

// WithTerminal forces (or disables) bar mode regardless of what w is.
func WithTerminal(tty bool) Option { return func(b *Bar) { b.tty = tty } }

// WithWidth sets the bar's width in cells on a terminal (default 30).
func WithWidth(n int) Option {
	return func(b *Bar) {
		if n > 0 {
			b.width = n
		}
	}
}

// New starts reporting a batch of total items to w. A bar is drawn when w is a
// terminal; otherwise a plain line is written at each tenth of the batch (and for every
// item when the batch is small), so logs show movement without drowning in it.
func New(w io.Writer, label string, total int, opts ...Option) *Bar {
	b := &Bar{w: w, label: label, total: total, width: 30, tty: IsTerminal(w), now: time.Now}
	for _, o := range opts {
		o(b)
	}
	b.mu.Lock()
	b.render(true)
	b.mu.Unlock()
	return b
}

// IsTerminal reports whether w is a terminal.
func IsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// SetTotal changes the size of the batch (when it is learned late).
func (b *Bar) SetTotal(n int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.total = n
	b.render(false)
}

// Add marks n more items done.
func (b *Bar) Add(n int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.done += n
	b.render(false)
}

// Set sets the number of items done (it never goes down).
func (b *Bar) Set(done int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if done < b.done {
		return
	}
	b.done = done
	b.render(false)
}

// Fail marks one item failed; failures are shown next to the count.
func (b *Bar) Fail() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.failed++
	b.render(true)
}

// Done returns the number of items done so far.
func (b *Bar) Done() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.done
}

// Finish writes the final state and ends the bar's line.
func (b *Bar) Finish() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.finished {
		return
	}
	b.render(true)
	if b.tty {
		fmt.Fprintln(b.w)
	}
	b.finished = true
}

func (b *Bar) status() string {
	s := fmt.Sprintf("%s %d/%d", b.label, b.done, b.total)
	if b.failed > 0 {
		s += fmt.Sprintf(" (%d failed)", b.failed)
	}
	return s
}

// render draws the current state; callers hold mu. force skips the throttling.
func (b *Bar) render(force bool) {
	if b.finished {
		return
	}
	if b.tty {
		// Redrawing costs a write per call; a few per second is all a human reads.
		now := b.now()
		if !force && b.done < b.total && now.Sub(b.lastDraw) < 100*time.Millisecond {
			return
		}
		b.lastDraw = now
		fill := 0
		if b.total > 0 {
			fill = min(b.width, b.done*b.width/b.total)
		}
		bar := strings.Repeat("█", fill) + strings.Repeat("░", b.width-fill)
		pct := 0
		if b.total > 0 {
			pct = min(100, b.done*100/b.total)
		}
		fmt.Fprintf(b.w, "\r\033[K%s %3d%% %s", bar, pct, b.status())
		return
	}
	line := b.status()
	if line == b.lastText {
		return
	}
	step := max(1, b.total/10)
	if !force && b.done < b.total && b.done-b.lastLine < step {
		return
	}
	b.lastLine, b.lastText = b.done, line
	fmt.Fprintln(b.w, line)
}
