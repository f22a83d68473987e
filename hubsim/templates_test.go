package hubsim

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/printworker/printworker/hub"
	"github.com/printworker/printworker/model"
)

func tplReq(v hub.Version, method, id string, body any) req {
	q := req{v: v, method: method, path: hub.TemplatePath(v, id)}
	if id != "" {
		q.parts = []string{id}
	}
	if body != nil {
		q.body = body
	}
	return q
}

func TestTemplateLifecycle(t *testing.T) {
	for _, v := range versions {
		t.Run(string(v), func(t *testing.T) {
			s, ts := start(t, nil)
			body := loadTemplate(t, "tshirt-classic")
			r := do(t, ts, tplReq(v, "POST", "", body))
			wantStatus(t, r, http.StatusCreated)
			var created map[string]any
			r.json(t, &created)
			id, _ := created["_id"].(string)
			if id == "" || created["productId"] != "tshirt-classic" || created["_created"] == nil {
				t.Fatalf("create answer %v", created)
			}
			if e := do(t, ts, tplReq(v, "POST", "", body)).apiErr(t); e.Field != "productId" {
				t.Fatalf("duplicate productId: %+v", e)
			}

			// Get by _id and by productId; unknown fields survive the round trip.
			for _, ref := range []string{id, "tshirt-classic"} {
				var got model.Template
				r := do(t, ts, tplReq(v, "GET", ref, nil))
				wantStatus(t, r, http.StatusOK)
				r.json(t, &got)
				if got.Name != "Team Shirt" || len(got.Views) != 3 || got.Views[0].Elements[1].CharSpacing() != 50 {
					t.Fatalf("get %s: %+v", ref, got)
				}
			}
			wantStatus(t, do(t, ts, tplReq(v, "GET", "nope", nil)), http.StatusNotFound)

			// Update by productId.
			body["name"] = "Team Shirt 2025"
			wantStatus(t, do(t, ts, tplReq(v, "POST", "tshirt-classic", body)), http.StatusOK)
			if got := s.Templates(store); len(got) != 1 || got[0].Template.Name != "Team Shirt 2025" || got[0].ID != id {
				t.Fatalf("after update: %+v", got)
			}
			wantStatus(t, do(t, ts, tplReq(v, "POST", "missing-product", body)), http.StatusNotFound)

			// A second template cannot take the first one's productId on update.
			mug := loadTemplate(t, "mug-11oz")
			wantStatus(t, do(t, ts, tplReq(v, "POST", "", mug)), http.StatusCreated)
			mug["productId"] = "tshirt-classic"
			wantStatus(t, do(t, ts, tplReq(v, "POST", "mug-11oz", mug)), http.StatusConflict)

			// Delete removes the template and the media it references.
			front := "6561f0a0c0ffee000000a001"
			if !s.HasMedia(front) {
				t.Fatal("fixture media missing before delete")
			}
			wantStatus(t, do(t, ts, tplReq(v, "DELETE", id, nil)), http.StatusOK)
			wantStatus(t, do(t, ts, tplReq(v, "GET", id, nil)), http.StatusNotFound)
			wantStatus(t, do(t, ts, tplReq(v, "DELETE", id, nil)), http.StatusNotFound)
			for _, m := range []string{front, "6561f0a0c0ffee000000b001", "6561f0a0c0ffee000000c001"} {
				if s.HasMedia(m) {
					t.Errorf("media %s survived the template's deletion", m)
				}
			}
			r = do(t, ts, req{noSign: true, method: "GET", path: "/media/" + front + "/3f1c2b7e-8d4a-4f60-9c1e-5a7b2d9e0f11"})
			wantStatus(t, r, http.StatusNotFound)
			if !s.HasMedia("6561f0a0c0ffee000000a004") {
				t.Error("media of another template was deleted")
			}
		})
	}
}

func TestTemplateStoresAreSeparate(t *testing.T) {
	_, ts := start(t, nil)
	wantStatus(t, do(t, ts, tplReq(hub.V2022, "POST", "", loadTemplate(t, "card-a6"))), http.StatusCreated)
	other := func(q req) req {
		q.store, q.key, q.secret = "other-store", "other-key", "other-secret"
		return q
	}
	wantStatus(t, do(t, ts, other(tplReq(hub.V2022, "GET", "card-a6", nil))), http.StatusNotFound)
	var l model.TemplateList
	do(t, ts, other(tplReq(hub.V2022, "GET", "", nil))).json(t, &l)
	if l.Total != 0 {
		t.Fatalf("other store sees %d templates", l.Total)
	}
	// The template's shop must be the calling store.
	if e := do(t, ts, other(tplReq(hub.V2022, "POST", "", loadTemplate(t, "mug-11oz")))).apiErr(t); e.Field != "shop" {
		t.Fatalf("%+v", e)
	}
}

func TestTemplateRules(t *testing.T) {
	_, ts := start(t, nil)
	cases := []struct {
		name  string
		path  string
		value any
		field string
	}{
		{"two active views", "views[1].active", true, "views[1].active"},
		{"two active elements", "views[0].elements[0].active", true, "views[0].elements[1].active"},
		{"two default colours", "views[0].elements[1].colors[0].default", true, "views[0].elements[1].colors[1].default"},
		{"rotation above 360", "views[0].elements[2].rotation", 361, "views[0].elements[2].rotation"},
		{"negative rotation", "views[1].elements[0].rotation", -1, "views[1].elements[0].rotation"},
		{"rotation 360 allowed", "views[0].elements[2].rotation", 360, ""},
		{"unknown element area", "views[0].elements[0].area", "sleeve", "views[0].elements[0].area"},
		{"unknown scale area", "views[0].elements[0].scaleArea", "nowhere", "views[0].elements[0].scaleArea"},
		{"unknown element type", "views[0].elements[0].type", "video", "views[0].elements[0].type"},
		{"missing element type", "views[0].elements[0].type", deleteKey, "views[0].elements[0].type"},
		{"duplicate element id", "views[0].elements[1].id", "photo", "views[0].elements[1].id"},
		{"duplicate view id", "views[2].id", "front", "views[2].id"},
		{"export area unknown", "views[0].export.area", "back", "views[0].export.area"},
		{"export area null", "views[0].export.area", nil, "views[0].export.area"},
		{"export area ignored for template type", "views[2].export.area", "whatever", ""},
		{"areaType unknown", "views[0].export.areaType", "page", "views[0].export.areaType"},
		{"export type unknown", "views[0].export.type", "jpg", "views[0].export.type"},
		{"custom box without size", "views[1].export.width", 0, "views[1].export.width"},
		{"dpi zero", "views[2].export.dpi", 0, "views[2].export.dpi"},
		{"rotation not a number", "views[0].elements[2].rotation", "15", "views.elements.rotation"},
		{"views missing", "views", deleteKey, "views"},
		{"no views", "views", []any{}, "views"},
		{"productId missing", "productId", deleteKey, "productId"},
		{"productId empty", "productId", "", "productId"},
		{"name missing", "name", deleteKey, "name"},
		{"addText default colours", "views[0].addText.colors[0].default", true, ""},
		{"addText rotation", "views[0].addText.rotation", 720, "views[0].addText.rotation"},
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			body := loadTemplate(t, "tshirt-classic")
			body["productId"] = fmt.Sprintf("rule-%d", i)
			set(t, body, c.path, c.value)
			r := do(t, ts, tplReq(hub.V2022, "POST", "", body))
			if c.field == "" {
				wantStatus(t, r, http.StatusCreated)
				return
			}
			wantStatus(t, r, http.StatusBadRequest)
			if e := r.apiErr(t); e.Field != c.field {
				t.Fatalf("field %q, want %q (%s)", e.Field, c.field, e.Error)
			}
		})
	}
}

func TestTemplatePaging(t *testing.T) {
	_, ts := start(t, func(c *Config) { c.PageSize = 3 })
	for i := 0; i < 7; i++ {
		body := loadTemplate(t, "card-a6")
		body["productId"] = fmt.Sprintf("card-%d", i)
		wantStatus(t, do(t, ts, tplReq(hub.V2023, "POST", "", body)), http.StatusCreated)
	}
	for _, c := range []struct {
		skip      string
		count     int
		firstProd string
	}{{"", 3, "card-0"}, {"0", 3, "card-0"}, {"3", 3, "card-3"}, {"6", 1, "card-6"}, {"7", 0, ""}, {"100", 0, ""}} {
		q := tplReq(hub.V2023, "GET", "", nil)
		if c.skip != "" {
			q.path += "?skip=" + c.skip
		}
		var l model.TemplateList
		r := do(t, ts, q)
		wantStatus(t, r, http.StatusOK)
		r.json(t, &l)
		if l.Count != c.count || l.Total != 7 || len(l.Results) != c.count {
			t.Fatalf("skip %q: count %d total %d results %d", c.skip, l.Count, l.Total, len(l.Results))
		}
		if c.count > 0 {
			s := l.Results[0]
			if s.ProductID != c.firstProd || s.ID == "" || s.Name != "Greeting Card" || s.Created == "" || s.Updated == "" ||
				string(s.Shopify) != "null" || s.Template.ID != "6561f0a0c0ffee000000a006" ||
				s.Template.Token != "9a8b7c6d-5e4f-4a3b-9c2d-1e0f9a8b7c6d" {
				t.Fatalf("skip %q: first summary %+v", c.skip, s)
			}
		}
	}
	for _, bad := range []string{"-1", "x", "1.5"} {
		q := tplReq(hub.V2023, "GET", "", nil)
		q.path += "?skip=" + bad
		if e := do(t, ts, q).apiErr(t); e.Field != "skip" {
			t.Fatalf("skip %q: %+v", bad, e)
		}
	}
}
