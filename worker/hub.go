package worker

import (
	"context"
	"fmt"
	"io"
	"iter"

	"github.com/printworker/printworker/hub"
	"github.com/printworker/printworker/model"
)

// Hub is what the worker needs of one store's hub client (*hub.Client).
type Hub interface {
	// The order pushes converge over one-request calls, made through calls
	// (hub.OrderCalls) so that each request, the converging second one included,
	// takes its own rate limit token: the worker passes its limited hub.
	hub.OrderCalls
	PushOrderThrough(ctx context.Context, calls hub.OrderCalls, o *model.Order) (hub.PushResult, error)
	PushOrderUpdateThrough(ctx context.Context, calls hub.OrderCalls, o *model.Order) (hub.PushResult, error)
	PushOrderDeleteThrough(ctx context.Context, calls hub.OrderCalls, orderID, domain string) (hub.PushResult, error)
	GetDesign(ctx context.Context, ref model.DesignRef) (*model.DesignDetail, error)
	ExportView(ctx context.Context, ref model.DesignRef, viewID string) (*hub.Download, error)
	OpenMedia(ctx context.Context, m model.Media) (*hub.Download, error)
	AllTemplates(ctx context.Context) iter.Seq2[model.TemplateSummary, error]
	GetTemplate(ctx context.Context, templateID string) (*model.Template, error)
	CreateTemplate(ctx context.Context, t *model.Template) error
	UpdateTemplate(ctx context.Context, productID string, t *model.Template) error
	DeleteTemplate(ctx context.Context, templateID string) error
}

// HubFor returns the hub client of a store; an unknown store is a permanent error.
type HubFor func(store string) (Hub, error)

// limitedHub draws a token from the fleet-wide bucket of its store before every
// signed hub call, and counts calls by status class. Media downloads are not limited:
// they are unsigned, token-addressed file fetches, not API calls the hub bills.
type limitedHub struct {
	h     Hub
	store string
	lim   *Limiter
	m     *metrics
}

func (l *limitedHub) call(ctx context.Context, op string, f func() error) error {
	if err := l.lim.Wait(ctx, l.store); err != nil {
		return err
	}
	err := f()
	l.m.hubCalls.WithLabelValues(op, statusClass(err)).Inc()
	return err
}

// The pushes take no token themselves: each request they make goes through calls,
// whose CreateOrder, UpdateOrder and DeleteOrder (these below, when calls is this
// hub or wraps it) take one each.
func (l *limitedHub) PushOrderThrough(ctx context.Context, calls hub.OrderCalls, o *model.Order) (hub.PushResult, error) {
	return l.h.PushOrderThrough(ctx, calls, o)
}

func (l *limitedHub) PushOrderUpdateThrough(ctx context.Context, calls hub.OrderCalls, o *model.Order) (hub.PushResult, error) {
	return l.h.PushOrderUpdateThrough(ctx, calls, o)
}

func (l *limitedHub) PushOrderDeleteThrough(ctx context.Context, calls hub.OrderCalls, id, domain string) (hub.PushResult, error) {
	return l.h.PushOrderDeleteThrough(ctx, calls, id, domain)
}

func (l *limitedHub) CreateOrder(ctx context.Context, o *model.Order) error {
	return l.call(ctx, hub.OpCreateOrder, func() error { return l.h.CreateOrder(ctx, o) })
}

func (l *limitedHub) UpdateOrder(ctx context.Context, o *model.Order) error {
	return l.call(ctx, hub.OpUpdateOrder, func() error { return l.h.UpdateOrder(ctx, o) })
}

func (l *limitedHub) DeleteOrder(ctx context.Context, id, domain string) error {
	return l.call(ctx, hub.OpDeleteOrder, func() error { return l.h.DeleteOrder(ctx, id, domain) })
}

func (l *limitedHub) GetDesign(ctx context.Context, ref model.DesignRef) (d *model.DesignDetail, err error) {
	err = l.call(ctx, hub.OpGetDesign, func() error { d, err = l.h.GetDesign(ctx, ref); return err })
	return d, err
}

func (l *limitedHub) ExportView(ctx context.Context, ref model.DesignRef, viewID string) (d *hub.Download, err error) {
	err = l.call(ctx, hub.OpExportView, func() error { d, err = l.h.ExportView(ctx, ref, viewID); return err })
	return d, err
}

func (l *limitedHub) OpenMedia(ctx context.Context, m model.Media) (*hub.Download, error) {
	d, err := l.h.OpenMedia(ctx, m)
	l.m.hubCalls.WithLabelValues(hub.OpGetMedia, statusClass(err)).Inc()
	return d, err
}

// AllTemplates draws one token for the whole listing: the client pages inside the
// iterator, out of the limiter's reach, and a listing is rare (template sync).
func (l *limitedHub) AllTemplates(ctx context.Context) iter.Seq2[model.TemplateSummary, error] {
	return func(yield func(model.TemplateSummary, error) bool) {
		if err := l.lim.Wait(ctx, l.store); err != nil {
			yield(model.TemplateSummary{}, err)
			return
		}
		for s, err := range l.h.AllTemplates(ctx) {
			l.m.hubCalls.WithLabelValues(hub.OpListTemplates, statusClass(err)).Inc()
			if !yield(s, err) || err != nil {
				return
			}
		}
	}
}

func (l *limitedHub) GetTemplate(ctx context.Context, id string) (t *model.Template, err error) {
	err = l.call(ctx, hub.OpGetTemplate, func() error { t, err = l.h.GetTemplate(ctx, id); return err })
	return t, err
}

func (l *limitedHub) CreateTemplate(ctx context.Context, t *model.Template) error {
	return l.call(ctx, hub.OpCreateTemplate, func() error { return l.h.CreateTemplate(ctx, t) })
}

func (l *limitedHub) UpdateTemplate(ctx context.Context, productID string, t *model.Template) error {
	return l.call(ctx, hub.OpUpdateTemplate, func() error { return l.h.UpdateTemplate(ctx, productID, t) })
}

func (l *limitedHub) DeleteTemplate(ctx context.Context, id string) error {
	return l.call(ctx, hub.OpDeleteTemplate, func() error { return l.h.DeleteTemplate(ctx, id) })
}

// mediaSource adapts a hub to the renderer's media source. With an admission, each
// file is admitted against the memory budget before its bytes are held: a file whose
// Content-Length is known is admitted whole before a byte is read (and one larger than
// the budget refused unread), one of unknown length a chunk at a time while it is read.
type mediaSource struct {
	h   Hub
	adm *mediaAdmission
}

// mediaChunk is what a body of unknown length is admitted by at a time, at most a
// 64th of the budget: a file admits less than a chunk more than it holds.
const mediaChunk = 1 << 20

func (m mediaSource) OpenMedia(ctx context.Context, media model.Media) (io.ReadCloser, error) {
	d, err := m.h.OpenMedia(ctx, media)
	if err != nil {
		return nil, err
	}
	if m.adm == nil {
		return d.Body, nil
	}
	if d.Length >= 0 {
		if err := m.adm.grow(ctx, d.Length, "media "+media.ID+" of "+fmt.Sprint(d.Length>>20)+" MiB makes the render's media"); err != nil {
			d.Body.Close()
			return nil, err
		}
		// A body longer than its Content-Length is cut there by net/http.
		return d.Body, nil
	}
	return &admittedBody{ctx: ctx, body: d.Body, adm: m.adm, id: media.ID}, nil
}

// admittedBody admits a media body of unknown length a chunk at a time, before the
// bytes of each chunk are read.
type admittedBody struct {
	ctx      context.Context
	body     io.ReadCloser
	adm      *mediaAdmission
	id       string
	read     int64 // bytes read so far
	admitted int64 // bytes admitted so far
}

func (a *admittedBody) Read(p []byte) (int, error) {
	if a.read+int64(len(p)) > a.admitted {
		n := max(min(mediaChunk, a.adm.b.total/64), a.read+int64(len(p))-a.admitted)
		if err := a.adm.grow(a.ctx, n, "media "+a.id+" makes the render's media"); err != nil {
			return 0, err
		}
		a.admitted += n
	}
	n, err := a.body.Read(p)
	a.read += int64(n)
	return n, err
}

func (a *admittedBody) Close() error { return a.body.Close() }
