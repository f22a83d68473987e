package jobs

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hibiken/asynq"

	"github.com/printworker/printworker/model"
)

func TestDecode(t *testing.T) {
	cases := []struct {
		name    string
		payload string
		wantErr string
	}{
		{"current version", `{"v":1,"store":"s","domain":"d","orderId":"o","ref":"1.abc","gen":2}`, ""},
		{"unknown version", `{"v":2,"store":"s"}`, "version 2"},
		{"no version", `{"store":"s"}`, "no version"},
		{"not json", `{"v":1,`, "bad task payload"},
		{"wrong field type", `{"v":1,"gen":"two"}`, "bad task payload"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, err := Decode[DesignExport]([]byte(c.payload))
			if c.wantErr == "" {
				if err != nil {
					t.Fatal(err)
				}
				if p.Store != "s" || p.Ref != "1.abc" || p.Gen != 2 {
					t.Errorf("decoded %+v", p)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), c.wantErr) {
				t.Fatalf("error %v, want %q", err, c.wantErr)
			}
			// Retrying cannot fix a payload: asynq must archive it at once.
			if !errors.Is(err, asynq.SkipRetry) || !errors.Is(err, ErrPayload) {
				t.Errorf("error %v does not wrap SkipRetry and ErrPayload", err)
			}
		})
	}
}

func TestTaskIDsAreDistinctIdentities(t *testing.T) {
	k := OrderKey{Store: "s", Domain: "d.example", OrderID: "1001"}
	ids := map[string]string{
		"export g0":           ExportTaskID(k, "5.tok", 0),
		"export g1":           ExportTaskID(k, "5.tok", 1),
		"export other design": ExportTaskID(k, "6.tok", 0),
		"export other token":  ExportTaskID(k, "5.tok2", 0),
		"export other domain": ExportTaskID(OrderKey{Store: "s", Domain: "e.example", OrderID: "1001"}, "5.tok", 0),
		// Separators inside values cannot forge another identity.
		"export slash order": ExportTaskID(OrderKey{Store: "s", Domain: "d.example/1001", OrderID: ""}, "5.tok", 0),
		"complete r1":        CompleteTaskID(k, 1),
		"complete r2":        CompleteTaskID(k, 2),
		"push create":        PushTaskID(k, OpCreate, []byte(`{"a":1}`)),
		"push create body2":  PushTaskID(k, OpCreate, []byte(`{"a":2}`)),
		"push update":        PushTaskID(k, OpUpdate, []byte(`{"a":1}`)),
		"push delete":        PushTaskID(k, OpDelete, nil),
	}
	seen := map[string]string{}
	for name, id := range ids {
		if other, dup := seen[id]; dup {
			t.Errorf("%s and %s share the id %q", name, other, id)
		}
		seen[id] = name
	}
	if id := ExportTaskID(k, "5.secret-token", 0); strings.Contains(id, "secret-token") {
		t.Errorf("task id %q shows the design token", id)
	}
	same := OrderKey{Store: "s", Domain: "d.example", OrderID: "1001"}
	if ExportTaskID(same, "5.tok", 0) != ids["export g0"] {
		t.Error("the same export has two ids")
	}
}

func TestOptionsValidate(t *testing.T) {
	if err := DefaultOptions().Validate(); err != nil {
		t.Fatalf("defaults: %v", err)
	}
	o := DefaultOptions()
	o.Export.Timeout = 500 * time.Millisecond
	o.Push.MaxRetry = -1
	err := o.Validate()
	if err == nil || !strings.Contains(err.Error(), "export timeout") || !strings.Contains(err.Error(), "push max retry") {
		t.Fatalf("want both problems reported, got %v", err)
	}
}

func TestNewTasksCheckTheirPayload(t *testing.T) {
	o := DefaultOptions()
	k := OrderKey{Store: "s", Domain: "d", OrderID: "1"}
	if _, err := NewOrderPushTask(OrderPush{OrderKey: k, Op: OpCreate}, o.Push); err == nil {
		t.Error("create without an order accepted")
	}
	if _, err := NewOrderPushTask(OrderPush{OrderKey: k, Op: "upsert", Order: &model.Order{}}, o.Push); err == nil {
		t.Error("unknown op accepted")
	}
	if _, err := NewDesignExportTask(DesignExport{OrderKey: k, Ref: "not-a-ref"}, o.Export); err == nil {
		t.Error("bad design reference accepted")
	}
	if _, err := NewDesignExportTask(DesignExport{OrderKey: OrderKey{Domain: "d"}, Ref: "1.abc"}, o.Export); err == nil {
		t.Error("export without store and order accepted")
	}
	task, err := NewDesignExportTask(DesignExport{OrderKey: k, Ref: "1.abc", Gen: 3}, o.Export)
	if err != nil {
		t.Fatal(err)
	}
	p, err := Decode[DesignExport](task.Payload())
	if err != nil || p.V != PayloadVersion || p.Gen != 3 || task.Type() != TypeDesignExport {
		t.Errorf("round trip: %+v %v", p, err)
	}
}

func TestLoadTemplates(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("a.json", `{"name":"A","productId":"p-a","shop":"s","shopify":null,"static":false,"synchronization":[],"views":[],"futureField":7}`)
	write("b.json", `{"name":"B","productId":"p-b","views":[]}`)
	write("notes.txt", `ignored`)
	ts, err := LoadTemplates(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(ts) != 2 || ts[0].ProductID != "p-a" || ts[1].ProductID != "p-b" {
		t.Fatalf("loaded %+v", ts)
	}
	write("c.json", `{"name":"C","productId":"p-a"}`)
	write("d.json", `{"name":"D"}`)
	write("e.json", `{`)
	_, err = LoadTemplates(dir)
	for _, want := range []string{"also in", "productId is empty", "e.json"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v does not report %q", err, want)
		}
	}
	if _, err := LoadTemplates(filepath.Join(dir, "missing")); err == nil {
		t.Error("a missing folder loaded")
	}
}
