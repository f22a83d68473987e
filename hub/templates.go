package hub

import (
	"context"
	"fmt"
	"github.com/printworker/printworker/model"
	"iter"
	"net/http"
	"net/url"
	"strconv"
)

func (c *Client) templateCall(op, method, id string, body any) call {
	ep := c.cfg.Templates
	parts := StoreParts(c.cfg.Store)
	if id != "" {
		parts = TemplateParts(c.cfg.Store, id)
	}
	return call{op: op, method: method, ep: ep, path: TemplatePath(ep.Version, id), parts: parts, body: body}
}

// ListTemplates reads one page of the template list, skipping skip results:
// GET /{v}/templates?skip=N. The page size is the hub's; do not assume one.
func (c *Client) ListTemplates(ctx context.Context, skip int) (*model.TemplateList, error) {
	if skip < 0 {
		return nil, invalid(OpListTemplates, "skip %d is negative", skip)
	}
	k := c.templateCall(OpListTemplates, http.MethodGet, "", nil)
	if skip > 0 {
		k.query = url.Values{"skip": {strconv.Itoa(skip)}}
	}
	var l model.TemplateList
	if err := c.do(ctx, k, &l); err != nil {
		return nil, err
	}
	return &l, nil
}

// AllTemplates yields every template summary, page by page. The page size is unknown
// (spec 4.2 rule 2), so it pages with skip += the number of results received until a
// page is empty or skip reaches a positive total. A page that brings no template not seen before
// (a hub ignoring skip) and more than Config.MaxListPages pages both end the iteration
// with an error wrapping ErrPaging, so a misbehaving hub cannot loop it forever.
// Templates seen twice (the list shifted under concurrent deletes) are yielded once.
// Stop early by breaking out of the range loop.
func (c *Client) AllTemplates(ctx context.Context) iter.Seq2[model.TemplateSummary, error] {
	return func(yield func(model.TemplateSummary, error) bool) {
		seen := map[string]bool{}
		skip := 0
		for page := 0; ; page++ {
			if page >= c.cfg.MaxListPages {
				yield(model.TemplateSummary{}, c.pagingError(fmt.Errorf("%w: more than %d pages", ErrPaging, c.cfg.MaxListPages)))
				return
			}
			l, err := c.ListTemplates(ctx, skip)
			if err != nil {
				yield(model.TemplateSummary{}, err)
				return
			}
			n := len(l.Results)
			if n == 0 {
				return
			}
			fresh := 0
			for _, t := range l.Results {
				key := t.ID
				if key == "" {
					key = "productId:" + t.ProductID
				}
				if seen[key] {
					continue
				}
				seen[key] = true
				fresh++
				if !yield(t, nil) {
					return
				}
			}
			if fresh == 0 {
				yield(model.TemplateSummary{}, c.pagingError(fmt.Errorf("%w: page at skip %d repeats templates already listed", ErrPaging, skip)))
				return
			}
			skip += n
			// A total of 0 beside a non-empty page (absent or wrong) is not trusted:
			// paging goes on until an empty page.
			if l.Total > 0 && skip >= l.Total {
				return
			}
		}
	}
}

func (c *Client) pagingError(err error) error {
	ep := c.cfg.Templates
	return &Error{Op: OpListTemplates, Method: http.MethodGet, URL: ep.BaseURL + TemplatePath(ep.Version, ""), Err: err}
}

// GetTemplate reads one template by its id: GET /{v}/templates/:templateId.
func (c *Client) GetTemplate(ctx context.Context, templateID string) (*model.Template, error) {
	if templateID == "" {
		return nil, invalid(OpGetTemplate, "empty template id")
	}
	var t model.Template
	if err := c.do(ctx, c.templateCall(OpGetTemplate, http.MethodGet, templateID, nil), &t); err != nil {
		return nil, err
	}
	return &t, nil
}

// CreateTemplate creates a template: POST /{v}/templates.
func (c *Client) CreateTemplate(ctx context.Context, t *model.Template) error {
	if t == nil {
		return invalid(OpCreateTemplate, "nil template")
	}
	return c.do(ctx, c.templateCall(OpCreateTemplate, http.MethodPost, "", t), nil)
}

// UpdateTemplate replaces the template created with productID:
// POST /{v}/templates/:productId, signed with the store id and productID.
func (c *Client) UpdateTemplate(ctx context.Context, productID string, t *model.Template) error {
	if productID == "" || t == nil {
		return invalid(OpUpdateTemplate, "empty product id or nil template")
	}
	return c.do(ctx, c.templateCall(OpUpdateTemplate, http.MethodPost, productID, t), nil)
}

// DeleteTemplate deletes a template: DELETE /{v}/templates/:templateId. Designs made
// from it stay; media it references go with it (spec 4.2 rule 1).
func (c *Client) DeleteTemplate(ctx context.Context, templateID string) error {
	if templateID == "" {
		return invalid(OpDeleteTemplate, "empty template id")
	}
	return c.do(ctx, c.templateCall(OpDeleteTemplate, http.MethodDelete, templateID, nil), nil)
}
