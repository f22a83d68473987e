package jobs

import (
	"context"
	"fmt"

	"github.com/redis/go-redis/v9"
)

// restoreScript lifts an order's deletion. KEYS: push record, export meta. The push
// record forgets the delete (pushes of the order are sent again); the export state
// forgets the cancellation, in a new export generation, so designs whose exports the
// cancellation stopped run again instead of colliding with their finished tasks.
// Designs already exported stay done.
var restoreScript = redis.NewScript(`
redis.call('HDEL', KEYS[1], 'deleted')
if redis.call('HGET', KEYS[2], 'cancelled') == '1' then
  redis.call('HDEL', KEYS[2], 'cancelled')
  redis.call('HINCRBY', KEYS[2], 'gen', 1)
end
return 1
`)

// Restore lifts the deletion and cancellation of an order the store brought back
// (WooCommerce's order.restored): its next create is pushed and its exports run.
func (s *State) Restore(ctx context.Context, k OrderKey) error {
	if err := restoreScript.Run(ctx, s.rdb, []string{s.pushKey(k), s.keys(k).meta}).Err(); err != nil {
		return fmt.Errorf("order state: restore %s: %w", k, err)
	}
	return nil
}

// RestoreOrder lifts an order's deletion and cancellation (State.Restore) before
// its create is enqueued again.
func (e *Enqueuer) RestoreOrder(ctx context.Context, k OrderKey) error {
	if err := k.validate(); err != nil {
		return fmt.Errorf("restore: %w", err)
	}
	return e.state.Restore(ctx, k)
}
