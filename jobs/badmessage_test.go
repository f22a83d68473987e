package jobs

import (
	"errors"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/hibiken/asynq"
)

func TestCheckTaskMessage(t *testing.T) {
	t.Parallel()
	good := encodeArchived("sync", "id-1", []byte("x"), "reason", time.Unix(1, 0))
	cases := []struct {
		name string
		msg  []byte
		want string // "" for a message asynq runs
	}{
		{"good", good, ""},
		{"empty", nil, "empty"},
		{"html", []byte("<html>"), "proto"},
		{"truncated length", []byte{0x0a, 0x20, 'a'}, "field 1"},
		{"field zero", []byte{0x00, 0x01}, "malformed"},
		{"bad utf8 type", []byte{0x0a, 0x01, 0xff}, "not UTF-8"},
		{"bad utf8 header", append(append([]byte{}, good...), 0x7a, 0x03, 0x0a, 0x01, 0xff), "headers"},
		{"no type", []byte{0x1a, 0x04, 'i', 'd', '-', '1', 0x22, 0x04, 's', 'y', 'n', 'c'}, "no task type"},
		{"other id", encodeArchived("sync", "id-2", nil, "", time.Unix(1, 0)), `task id "id-2"`},
		{"other queue", encodeArchived("orders", "id-1", nil, "", time.Unix(1, 0)), `queue "orders"`},
		// proto3 skips a known field of another wire type as unknown: asynq decodes it.
		{"wrong wire type", append(append([]byte{}, good...), 0x28, 0x01, 0x3d, 1, 2, 3, 4), ""},
	}
	for _, c := range cases {
		err := CheckTaskMessage(c.msg, "sync", "id-1")
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v, want none", c.name, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s: %v, want one naming %q", c.name, err, c.want)
		}
	}
}

// FuzzCheckTaskMessage: any bytes are judged without a panic, and the message that
// replaces a bad one always passes.
func FuzzCheckTaskMessage(f *testing.F) {
	f.Add([]byte("<html>"), "sync", "id")
	f.Add(encodeArchived("sync", "id", []byte{1}, "r", time.Unix(0, 0)), "sync", "id")
	f.Add([]byte{0x0a, 0x01, 0xff}, "q", "i")
	f.Add([]byte{0x7a, 0x80}, "q", "i")
	f.Fuzz(func(t *testing.T, b []byte, q, id string) {
		_ = CheckTaskMessage(b, q, id)
		if !utf8.ValidString(q) || !utf8.ValidString(id) || id == "" {
			return
		}
		if err := CheckTaskMessage(encodeArchived(q, id, b, "reason", time.Unix(0, 0)), q, id); err != nil {
			t.Fatalf("replacement message refused: %v", err)
		}
	})
}

// TestDecodeRefusesMissingFields: a payload that decodes but misses what its
// constructor requires ends its task (ErrPayload, so asynq.SkipRetry) naming the
// fields.
func TestDecodeRefusesMissingFields(t *testing.T) {
	t.Parallel()
	check := func(name string, err error, want string) {
		t.Helper()
		if !errors.Is(err, ErrPayload) || !errors.Is(err, asynq.SkipRetry) || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want a bad payload naming %q", name, err, want)
		}
	}
	_, err := Decode[DesignExport]([]byte(`{"v":1,"store":"s","orderId":"1","ref":"nope"}`))
	check("export", err, "ref")
	_, err = Decode[OrderPush]([]byte(`{"v":1,"store":"s","orderId":"1","op":"explode"}`))
	check("push", err, "explode")
	_, err = Decode[OrderComplete]([]byte(`{"v":1}`))
	check("complete", err, "store is empty; order id is empty")
	_, err = Decode[TemplatesSync]([]byte(`{"v":1}`))
	check("sync", err, "store")
	_, err = Decode[GangBuild]([]byte(`{"v":1,"store":"s"}`))
	check("gang", err, "group")
	_, err = Decode[DayPage]([]byte(`{"v":1}`))
	check("day page", err, "folder")
	_, err = Decode[EventPublish]([]byte(`{"v":1,"store":"s","orderId":"1"}`))
	check("event", err, "event id")
	_, err = Decode[EventDeliver]([]byte(`{"v":1,"id":"x"}`))
	check("delivery", err, "endpoint")
	_, err = Decode[Reprint]([]byte(`{"v":1,"store":"s","orderId":"1"}`))
	check("reprint", err, "copies")
	_, err = Decode[Review]([]byte(`{"v":1,"store":"s","orderId":"1"}`))
	check("review", err, "date")
	if _, err := Decode[OrderComplete]([]byte(`{"v":1,"store":"s","orderId":"1","rev":2}`)); err != nil {
		t.Errorf("a complete payload: %v", err)
	}
}
