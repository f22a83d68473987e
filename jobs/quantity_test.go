package jobs_test

import (
	"strings"
	"testing"

	"github.com/printworker/printworker/jobs"
	"github.com/printworker/printworker/model"
)

func TestQuantityRefusal(t *testing.T) {
	t.Parallel()
	order := func(q ...int) *model.Order {
		o := &model.Order{}
		for i, n := range q {
			o.LineItems = append(o.LineItems, model.LineItem{ID: int64(10 + i), Quantity: n})
		}
		return o
	}
	for _, tc := range []struct {
		name  string
		o     *model.Order
		limit int
		want  string
	}{
		{"no lines", order(), 0, ""},
		{"at the default", order(1, jobs.DefaultMaxQuantity), 0, ""},
		{"over the default", order(1, jobs.DefaultMaxQuantity+1), 0, "line 2 (design 11) orders 10001, more than the limit of 10000 per line"},
		{"set limit", order(6), 5, "line 1 (design 10) orders 6, more than the limit of 5 per line"},
		{"10^12", order(1_000_000_000_000), 0, "orders 1000000000000, more than the limit of 10000"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := jobs.QuantityRefusal(tc.o, tc.limit)
			if (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}
