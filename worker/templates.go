package worker

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"net/http"
	"time"

	"github.com/hibiken/asynq"

	"github.com/printworker/printworker/hub"
	"github.com/printworker/printworker/jobs"
	"github.com/printworker/printworker/model"
)

// TemplateHub is what a template sync needs of a hub client.
type TemplateHub interface {
	AllTemplates(ctx context.Context) iter.Seq2[model.TemplateSummary, error]
	GetTemplate(ctx context.Context, templateID string) (*model.Template, error)
	CreateTemplate(ctx context.Context, t *model.Template) error
	UpdateTemplate(ctx context.Context, productID string, t *model.Template) error
	DeleteTemplate(ctx context.Context, templateID string) error
}

// Template sync actions.
const (
	SyncCreate    = "create"
	SyncUpdate    = "update"
	SyncUnchanged = "unchanged"
	SyncDelete    = "delete"
)

// SyncAction is one step of a template sync.
type SyncAction struct {
	Action    string `json:"action"`
	ProductID string `json:"productId"`
	Name      string `json:"name,omitempty"`
	// TemplateID is the hub's id of an existing template.
	TemplateID string `json:"templateId,omitempty"`
}

// SyncReport is the plan (dry run) or the record of a template sync.
type SyncReport struct {
	Store   string       `json:"store"`
	DryRun  bool         `json:"dryRun"`
	Actions []SyncAction `json:"actions"`
}

// Count returns how many actions of a kind the report holds.
func (r SyncReport) Count(action string) int {
	n := 0
	for _, a := range r.Actions {
		if a.Action == action {
			n++
		}
	}
	return n
}

// SyncTemplates brings the store's hub templates in line with src (keyed by
// productId): templates missing on the hub are created, differing ones updated,
// equal ones left alone, and with prune the hub's templates absent from src are
// deleted. With dryRun nothing changes and the report is the plan. A sync stopped
// by an error can be run again: it recomputes the plan from the hub's state. Listed
// templates are addressed by TemplateKey (the productId when the list omits _id).
func SyncTemplates(ctx context.Context, h TemplateHub, store string, src []model.Template, prune, dryRun bool) (SyncReport, error) {
	return syncTemplates(ctx, h, store, src, prune, dryRun, nil, nil)
}

// syncTemplates is SyncTemplates resuming a sync: actions in done (by productId) were
// carried out by an earlier attempt and are reported, not repeated; record, when set,
// is told of each action carried out.
func syncTemplates(ctx context.Context, h TemplateHub, store string, src []model.Template, prune, dryRun bool,
	done map[string]SyncAction, record func(SyncAction) error) (SyncReport, error) {
	rep := SyncReport{Store: store, DryRun: dryRun, Actions: []SyncAction{}}
	finish := func(a SyncAction) error {
		rep.Actions = append(rep.Actions, a)
		if record == nil || dryRun {
			return nil
		}
		return record(a)
	}
	onHub := map[string]model.TemplateSummary{}
	var order []string
	for s, err := range h.AllTemplates(ctx) {
		if err != nil {
			return rep, fmt.Errorf("list templates: %w", err)
		}
		if _, dup := onHub[s.ProductID]; !dup {
			order = append(order, s.ProductID)
		}
		onHub[s.ProductID] = s
	}
	want := map[string]bool{}
	for i := range src {
		t := src[i]
		if t.Shop == "" {
			t.Shop = store
		}
		if t.Shop != store {
			return rep, &PermanentError{Reason: fmt.Sprintf("template %s is for shop %q, not store %q", t.ProductID, t.Shop, store)}
		}
		want[t.ProductID] = true
		if a, ok := done[t.ProductID]; ok {
			rep.Actions = append(rep.Actions, a)
			continue
		}
		a := SyncAction{ProductID: t.ProductID, Name: t.Name}
		cur, exists := onHub[t.ProductID]
		switch {
		case !exists:
			a.Action = SyncCreate
		default:
			a.TemplateID = cur.ID
			got, err := h.GetTemplate(ctx, TemplateKey(cur))
			if err != nil {
				return rep, fmt.Errorf("read template %s: %w", t.ProductID, err)
			}
			a.Action = SyncUpdate
			if same, err := sameTemplate(&t, got); err == nil && same {
				a.Action = SyncUnchanged
			}
		}
		if !dryRun {
			var err error
			switch a.Action {
			case SyncCreate:
				err = h.CreateTemplate(ctx, &t)
				if hub.IsStatus(err, http.StatusConflict) {
					// A retried create whose first attempt reached the hub: it exists now.
					a.Action, err = SyncUpdate, h.UpdateTemplate(ctx, t.ProductID, &t)
				}
			case SyncUpdate:
				err = h.UpdateTemplate(ctx, t.ProductID, &t)
			}
			if err != nil {
				return rep, fmt.Errorf("%s template %s: %w", a.Action, t.ProductID, err)
			}
		}
		if err := finish(a); err != nil {
			return rep, err
		}
	}
	if prune {
		for _, pid := range order {
			if want[pid] {
				continue
			}
			if a, ok := done[pid]; ok {
				rep.Actions = append(rep.Actions, a)
				continue
			}
			s := onHub[pid]
			if !dryRun {
				if err := h.DeleteTemplate(ctx, TemplateKey(s)); err != nil && !hub.IsStatus(err, 404) {
					return rep, fmt.Errorf("delete template %s: %w", pid, err)
				}
			}
			if err := finish(SyncAction{Action: SyncDelete, ProductID: pid, Name: s.Name, TemplateID: s.ID}); err != nil {
				return rep, err
			}
		}
	}
	return rep, nil
}

// sameTemplate reports whether every property of want has the same JSON value in
// got. Properties only the hub adds (ids, timestamps) do not count.
func sameTemplate(want, got *model.Template) (bool, error) {
	var a, b map[string]json.RawMessage
	wb, err := json.Marshal(want)
	if err != nil {
		return false, err
	}
	gb, err := json.Marshal(got)
	if err != nil {
		return false, err
	}
	if err := json.Unmarshal(wb, &a); err != nil {
		return false, err
	}
	if err := json.Unmarshal(gb, &b); err != nil {
		return false, err
	}
	for k, v := range a {
		if !sameJSON(v, b[k]) {
			return false, nil
		}
	}
	return true, nil
}

// sameJSON compares two JSON values ignoring object key order and whitespace.
func sameJSON(x, y json.RawMessage) bool {
	var a, b any
	if json.Unmarshal(x, &a) != nil || json.Unmarshal(y, &b) != nil {
		return bytes.Equal(x, y)
	}
	ca, _ := json.Marshal(a) // encoding/json sorts map keys
	cb, _ := json.Marshal(b)
	return bytes.Equal(ca, cb)
}

// handleSync runs a template sync task; the report is the task's result.
func (w *Worker) handleSync(ctx context.Context, t *asynq.Task) error {
	p, err := jobs.Decode[jobs.TemplatesSync](t.Payload())
	if err != nil {
		return err
	}
	h, err := w.hubFor(p.Store)
	if err != nil {
		return err
	}
	// Each hub call is retried inside the task first (a 503 costs seconds, not a task
	// retry); what the task did is kept under its id, so a task retry resumes.
	rh := RetryingTemplates{Hub: h, Backoff: Backoff{Base: w.cfg.Backoff.Base, Max: min(w.cfg.Backoff.Max, 30*time.Second)},
		Attempts: 4, Log: w.logger(ctx)}
	var done map[string]SyncAction
	var record func(SyncAction) error
	if id, ok := asynq.GetTaskID(ctx); ok && !p.DryRun {
		prog := syncProgress{rdb: w.deps.Redis, key: w.cfg.KeyPrefix + ":templates-sync:" + id}
		if done, err = prog.load(ctx); err != nil {
			return err
		}
		record = func(a SyncAction) error { return prog.record(ctx, a) }
	}
	rep, err := syncTemplates(ctx, rh, p.Store, p.Templates, p.Prune, p.DryRun, done, record)
	if err != nil {
		return err
	}
	b, _ := json.Marshal(rep)
	writeResult(ctx, w.logger(ctx), t, b)
	w.logger(ctx).InfoContext(ctx, "templates synced", "source", p.Source, "dry_run", p.DryRun,
		"create", rep.Count(SyncCreate), "update", rep.Count(SyncUpdate),
		"unchanged", rep.Count(SyncUnchanged), "delete", rep.Count(SyncDelete))
	return nil
}
