package worker

import (
	"github.com/printworker/printworker/jobs"
	"github.com/printworker/printworker/model"
)

// quantityError refuses for good an order with a line over Config.MaxQuantity: the
// intake refuses such orders, and this catches those that came another way (printworker
// enqueue, a store API fetch, a payload written by hand) before the hub gets the
// order and before its ticket prints the quantity (docs/intake.md "Answers").
func (w *Worker) quantityError(o *model.Order) error {
	if r := jobs.QuantityRefusal(o, w.cfg.MaxQuantity); r != "" {
		return &PermanentError{Reason: "order " + o.OrderID + ": " + r + " (--max-quantity)"}
	}
	return nil
}
