package worker

import (
	"context"
	"errors"
	"io"
	"testing"

	"github.com/printworker/printworker/hub"
	"github.com/printworker/printworker/model"
)

// lazyBody is a media body of n bytes made as they are read, counting them.
type lazyBody struct {
	n, read int64
	closed  bool
}

func (b *lazyBody) Read(p []byte) (int, error) {
	if b.read >= b.n {
		return 0, io.EOF
	}
	k := min(int64(len(p)), b.n-b.read)
	clear(p[:k])
	b.read += k
	return int(k), nil
}

func (b *lazyBody) Close() error { b.closed = true; return nil }

// mediaHub serves lazy bodies by media id; Length is sent unless unknown.
type mediaHub struct {
	Hub
	sizes   map[string]int64
	unknown bool
	bodies  map[string]*lazyBody
}

func (h *mediaHub) OpenMedia(_ context.Context, m model.Media) (*hub.Download, error) {
	b := &lazyBody{n: h.sizes[m.ID]}
	h.bodies[m.ID] = b
	length := b.n
	if h.unknown {
		length = -1
	}
	return &hub.Download{Body: b, Length: length}, nil
}

// TestMediaAdmittedBeforeRead: a view's media are admitted against the memory budget
// one by one before their bytes are held. With the eight 150 MB files under a
// 1 GiB budget (here scaled down 1000 times: 150 KB under 1 MiB), the file that
// would take the hold past the budget is refused with a permanent error: unread when
// its Content-Length says so, a chunk past the budget at most when its length is
// unknown; and the whole hold is let go at the end.
func TestMediaAdmittedBeforeRead(t *testing.T) {
	t.Parallel()
	const size, total = 150_000, 1 << 20
	for _, tc := range []struct {
		name    string
		unknown bool
		// refused is the first file refused; maxRead the most bytes read of it.
		refused int
		maxRead int64
	}{
		{"Content-Length known", false, 6, 0},
		{"length unknown", true, 6, size},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b := NewBudget(total)
			h := &mediaHub{sizes: map[string]int64{}, unknown: tc.unknown, bodies: map[string]*lazyBody{}}
			ids := []string{"m0", "m1", "m2", "m3", "m4", "m5", "m6", "m7"}
			for _, id := range ids {
				h.sizes[id] = size
			}
			adm := &mediaAdmission{b: b}
			src := mediaSource{h: h, adm: adm}
			refused := -1
			for i, id := range ids {
				rc, err := src.OpenMedia(context.Background(), model.Media{ID: id})
				if err == nil {
					_, err = io.Copy(io.Discard, rc)
					rc.Close()
				}
				if err != nil {
					var pe *PermanentError
					if !errors.As(err, &pe) {
						t.Fatalf("media %s: err %v, want a PermanentError", id, err)
					}
					refused = i
					break
				}
				if b.InUse() > total {
					t.Fatalf("%d bytes admitted, over the budget", b.InUse())
				}
			}
			if refused != tc.refused {
				t.Fatalf("media %d refused, want %d", refused, tc.refused)
			}
			if got := h.bodies[ids[refused]]; got.read > tc.maxRead || !got.closed && !tc.unknown {
				t.Errorf("refused media: %d bytes read (want at most %d), closed %v", got.read, tc.maxRead, got.closed)
			}
			if b.InUse() < int64(refused)*size || b.InUse() > total {
				t.Errorf("%d bytes held for %d media of %d bytes", b.InUse(), refused, size)
			}
			adm.release()
			if b.InUse() != 0 {
				t.Errorf("%d bytes still held after release", b.InUse())
			}
		})
	}
}

// TestMediaAdmissionGrowsToPeak: the hold taken for the media becomes part of the
// render's: growing to the render's peak adds only the difference, and a peak over
// the budget is the usual permanent error.
func TestMediaAdmissionGrowsToPeak(t *testing.T) {
	t.Parallel()
	b := NewBudget(100)
	adm := &mediaAdmission{b: b}
	if err := adm.grow(context.Background(), 30, "media"); err != nil {
		t.Fatal(err)
	}
	if err := adm.growTo(context.Background(), 80); err != nil {
		t.Fatal(err)
	}
	if b.InUse() != 80 {
		t.Errorf("%d in use, want the peak of 80 (media counted once)", b.InUse())
	}
	var pe *PermanentError
	if err := adm.growTo(context.Background(), 101); !errors.As(err, &pe) {
		t.Errorf("peak over the budget: err %v, want a PermanentError", err)
	}
	adm.release()
	if b.InUse() != 0 {
		t.Errorf("%d in use after release", b.InUse())
	}
}

// TestMediaAdmissionNoDeadlock: two renders each holding part of the budget and each
// needing more do not wait on each other forever: one lets go of its hold and waits
// for the whole, the other gets what it needs, and once it ends the first gets its
// whole. (Waiting while holding, both would wait for ever.)
func TestMediaAdmissionNoDeadlock(t *testing.T) {
	t.Parallel()
	b := NewBudget(10)
	a1, a2 := &mediaAdmission{b: b}, &mediaAdmission{b: b}
	if err := a1.grow(context.Background(), 6, "media"); err != nil {
		t.Fatal(err)
	}
	if err := a2.grow(context.Background(), 4, "media"); err != nil {
		t.Fatal(err)
	}
	done := make(chan *mediaAdmission, 2)
	for _, a := range []*mediaAdmission{a1, a2} {
		go func() {
			if err := a.grow(context.Background(), 3, "media"); err != nil {
				t.Error(err)
			}
			done <- a
		}()
	}
	first := <-done
	first.release()
	second := <-done
	if second == first {
		t.Fatal("the same admission finished twice")
	}
	if b.InUse() != second.held || second.held < 7 {
		t.Errorf("%d in use, the second holds %d", b.InUse(), second.held)
	}
	second.release()
}

// FuzzMediaAdmission: whatever the budget, the files' sizes and whether their length
// is known, the budget is never exceeded, no byte is read before it is admitted, a
// refusal is permanent, and releasing the hold gives everything back.
func FuzzMediaAdmission(f *testing.F) {
	f.Add(uint32(1<<20), uint32(150_000), uint8(8), false)
	f.Add(uint32(1<<20), uint32(150_000), uint8(8), true)
	f.Add(uint32(100), uint32(0), uint8(3), true)
	f.Add(uint32(64), uint32(65), uint8(1), false)
	f.Add(uint32(1), uint32(1), uint8(2), true)
	f.Fuzz(func(t *testing.T, total, size uint32, files uint8, unknown bool) {
		if total == 0 || size > 1<<24 || files > 32 {
			return
		}
		b := NewBudget(int64(total))
		h := &mediaHub{sizes: map[string]int64{}, unknown: unknown, bodies: map[string]*lazyBody{}}
		adm := &mediaAdmission{b: b}
		src := mediaSource{h: h, adm: adm}
		for i := range int(files) {
			id := string(rune('a' + i))
			h.sizes[id] = int64(size)
			rc, err := src.OpenMedia(context.Background(), model.Media{ID: id})
			if err == nil {
				_, err = io.Copy(io.Discard, rc)
				rc.Close()
			}
			if b.InUse() > int64(total) {
				t.Fatalf("%d in use over the budget of %d", b.InUse(), total)
			}
			var read int64
			for _, body := range h.bodies {
				read += body.read
			}
			if read > adm.held {
				t.Fatalf("%d bytes read, %d admitted", read, adm.held)
			}
			if err != nil {
				var pe *PermanentError
				if !errors.As(err, &pe) {
					t.Fatalf("err %v, want a PermanentError", err)
				}
				break
			}
		}
		adm.release()
		if b.InUse() != 0 {
			t.Fatalf("%d in use after release", b.InUse())
		}
	})
}
