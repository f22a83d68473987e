package worker_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/printworker/printworker/model"
	"github.com/printworker/printworker/render"
	"github.com/printworker/printworker/worker"
)

// TestCompletionBoundedManyPictures: a design of 60,000 enlarged pictures (a design
// JSON under the hub client's 16 MiB cap) renders, and its order completes with a
// bounded amount of output: the file carries one low-resolution warning counting the
// pictures, the manifest as many, the ticket has one page and the staff page lists
// that one warning. Before the bound the file carried 60,000 warnings and the ticket
// drew about 860 pages, which took two minutes, past the completion's bound.
func TestCompletionBoundedManyPictures(t *testing.T) {
	t.Parallel()
	if raceEnabled {
		// 60,000 pictures drawn under the race detector take minutes; what this test
		// checks is amounts of output, which the plain tier (the README's command)
		// checks, and the export and completion's concurrency is raced by the others.
		t.Skip("the bound on work is checked without -race (README's test command)")
	}
	const n = 60000
	e := newEnv(t, withMode(worker.ModeRender))
	b, err := os.ReadFile("../hubsim/testdata/designs/1002.json")
	if err != nil {
		t.Fatal(err)
	}
	var d model.DesignDetail
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatal(err)
	}
	d.ConfigurationID, d.Views = 1905, d.Views[:1]
	// A 2 x 2 px picture drawn 6 template units wide: enlarged, so each one warns.
	img := image.NewNRGBA(image.Rect(0, 0, 2, 2))
	for i := range img.Pix {
		img.Pix[i] = 0xc0
	}
	img.Set(0, 0, color.NRGBA{200, 20, 20, 255})
	var pb bytes.Buffer
	if err := png.Encode(&pb, img); err != nil {
		t.Fatal(err)
	}
	media := model.Media{ID: "6561f0a0c0ffee00000tiny", Token: "3c4d5e6f-7a8b-4c9d-8e0f-1a2b3c4d5e6f", MimeType: "image/png"}
	if err := e.sim.AddMedia(media, pb.Bytes()); err != nil {
		t.Fatal(err)
	}
	var value model.Value
	raw := fmt.Sprintf(`{"_id":%q,"token":%q,"mimetype":"image/png","meta":{"width":2,"height":2}}`, media.ID, media.Token)
	if err := json.Unmarshal([]byte(raw), &value); err != nil {
		t.Fatal(err)
	}
	v := &d.Views[0]
	var keep []model.Element
	for _, el := range v.Elements {
		if el.Type == "background" {
			keep = append(keep, el)
		}
	}
	scale := 3.0
	for i := range n {
		x, y := float64(30+(i*7)%540), float64(25+(i*13)%200)
		keep = append(keep, model.Element{ID: "p" + strconv.Itoa(i), Type: "picture", Weight: 1, PositionX: &x, PositionY: &y, Scale: &scale, Value: &value})
	}
	v.Elements = keep
	if js, _ := json.Marshal(d); len(js) >= 16<<20 {
		t.Fatalf("design JSON of %d bytes, over the hub client's cap", len(js))
	}
	if err := e.sim.AddDesign(d); err != nil {
		t.Fatal(err)
	}
	e.refs[d.ConfigurationID] = model.DesignRef{ID: d.ConfigurationID, Token: d.Token}
	e.start()
	if _, err := e.enq.ExportOrder(context.Background(), store, e.order("BIG-1", d.ConfigurationID)); err != nil {
		t.Fatal(err)
	}
	m := e.manifest("BIG-1", 1)
	if len(m.Files) != 1 {
		t.Fatalf("%d files", len(m.Files))
	}
	f := m.Files[0]
	low := 0
	for _, w := range f.Warnings {
		if w.Code == render.WarnLowResolution {
			low++
			if !strings.Contains(w.Message, "60,000 pictures print below the export 150 dpi") {
				t.Errorf("low-resolution warning %q does not count the pictures", w.Message)
			}
		}
	}
	if low != 1 || len(f.Warnings) > 3 || len(m.Warnings) != len(f.Warnings) {
		t.Errorf("file warnings %d (low-resolution %d), manifest warnings %d: want one low-resolution summary", len(f.Warnings), low, len(m.Warnings))
	}
	pdf := e.object(m.Ticket)
	count := regexp.MustCompile(`/Type /Pages\s*/Kids \[[^\]]*\]\s*/Count (\d+)`).FindSubmatch(pdf)
	if count == nil || string(count[1]) != "1" {
		t.Errorf("ticket pages %q, want 1", count)
	}
	page := string(e.object(m.StaffPage))
	if got := strings.Count(page, "<li>"+render.WarnLowResolution); got != 1 {
		t.Errorf("staff page lists %d low-resolution warnings, want 1", got)
	}
}
