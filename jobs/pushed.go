package jobs

import (
	"context"
	"fmt"
)

// Pushed reads what the push state holds of order k: the newest version (its
// `updated`) pushed to the hub, and whether the order was deleted there. A
// reconciliation sweep (package reconcile) compares an order it lists with it to
// tell an order no webhook brought from one the pipeline has.
func (s *State) Pushed(ctx context.Context, k OrderKey) (updated string, deleted bool, err error) {
	v, err := s.rdb.HMGet(ctx, s.pushKey(k), "deleted", "updated").Result()
	if err != nil {
		return "", false, fmt.Errorf("order state: read pushes of %s: %w", k, err)
	}
	d, _ := v[0].(string)
	updated, _ = v[1].(string)
	return updated, d == "1", nil
}
