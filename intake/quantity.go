package intake

import (
	"context"
	"net/http"

	"github.com/printworker/printworker/jobs"
)

// DefaultMaxQuantity is the default of Config.MaxQuantity.
const DefaultMaxQuantity = jobs.DefaultMaxQuantity

// outcomeQuantityTooLarge: a line orders more than Config.MaxQuantity
// (jobs.QuantityRefusal).
const outcomeQuantityTooLarge = "quantity_too_large"

// refuseWhole answers an order refused whole for a limit (status, reason), with a
// warning logged: 200 to the store platforms, whose retries could never succeed and
// would end with the webhook removed, 422 to /webhooks/orders, whose sender reads the
// answer and must fix the order.
func (s *Server) refuseWhole(ctx context.Context, ev event, res result, status, reason string) (int, result) {
	res.Status, res.Reason = status, reason
	s.log.WarnContext(ctx, "intake: order refused", "reason", res.Reason, "endpoint", ev.endpoint,
		"topic", ev.topic, "store", ev.store, "domain", ev.order.Domain, "order", ev.order.OrderID)
	if ev.endpoint != endpointOrders {
		return http.StatusOK, res
	}
	return http.StatusUnprocessableEntity, res
}
