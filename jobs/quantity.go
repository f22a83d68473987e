package jobs

import (
	"fmt"

	"github.com/printworker/printworker/model"
)

// DefaultMaxQuantity is the default largest quantity of one order line (intake's
// --max-quantity of serve, the worker's of work).
const DefaultMaxQuantity = 10000

// QuantityRefusal is why order o is refused for a line's quantity over limit (0 or
// less: DefaultMaxQuantity), "" when no line is. A quantity of 10^12 is a typo or an
// attack, never a print run, and would be printed on the job ticket: the intake
// refuses such an order before it enqueues anything, and the worker checks again
// before it pushes or completes an order that came another way (docs/intake.md
// "Answers").
func QuantityRefusal(o *model.Order, limit int) string {
	if o == nil {
		return ""
	}
	if limit <= 0 {
		limit = DefaultMaxQuantity
	}
	for i, li := range o.LineItems {
		if li.Quantity > limit {
			return fmt.Sprintf("line %d (design %d) orders %d, more than the limit of %d per line", i+1, li.ID, li.Quantity, limit)
		}
	}
	return ""
}
