package worker_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/hibiken/asynq"
	"github.com/printworker/printworker/model"
	"github.com/printworker/printworker/worker"
)

// dupViewHub answers designs with their first view twice: two views, one id.
type dupViewHub struct{ worker.Hub }

func (h dupViewHub) GetDesign(ctx context.Context, ref model.DesignRef) (*model.DesignDetail, error) {
	d, err := h.Hub.GetDesign(ctx, ref)
	if err != nil {
		return nil, err
	}
	second := d.Views[0]
	second.Weight, second.Active = len(d.Views), false
	d.Views = append(d.Views, second)
	return d, nil
}

// A design whose views share an id fails its export permanently, naming the id, in
// both modes, before any view is fetched or rendered (before, the second view's file
// was the first view printed again).
func TestDuplicateViewIDsArePermanent(t *testing.T) {
	t.Parallel()
	for _, mode := range []string{worker.ModeDownload, worker.ModeRender} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, withMode(mode), func(_ *worker.Config, d *worker.Deps) {
				inner := d.Hubs
				d.Hubs = func(s string) (worker.Hub, error) {
					h, err := inner(s)
					if err != nil {
						return nil, err
					}
					return dupViewHub{h}, nil
				}
			})
			ctx := context.Background()
			err := e.exportFirstLine(ctx, "DV-1", 1003)
			if err == nil || !errors.Is(err, asynq.SkipRetry) || !strings.Contains(err.Error(), "two views with id") {
				t.Fatalf("export returned %v, want a permanent error naming the duplicate view id", err)
			}
			if n := e.hubRequests("GET", "/2023-10/export/"); n != 0 {
				t.Errorf("%d view exports downloaded", n)
			}
		})
	}
}
