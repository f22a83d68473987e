package intake

import (
	"context"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"
)

// RedisDeliveries keeps delivery claims in Redis, shared by every intake replica.
type RedisDeliveries struct {
	c      redis.UniversalClient
	prefix string
}

// NewRedisDeliveries stores claims under prefix (default "printworker:intake:").
func NewRedisDeliveries(c redis.UniversalClient, prefix string) *RedisDeliveries {
	if prefix == "" {
		prefix = "printworker:intake:"
	}
	return &RedisDeliveries{c: c, prefix: prefix}
}

// Claim sets the key only when absent (SET NX with expiry), atomically across replicas.
func (d *RedisDeliveries) Claim(ctx context.Context, key string, ttl time.Duration) (bool, error) {
	ok, err := d.c.SetNX(ctx, d.prefix+key, time.Now().UTC().Format(time.RFC3339), ttl).Result()
	if err != nil {
		return false, fmt.Errorf("intake: claim delivery: %w", err)
	}
	return ok, nil
}

// Release deletes the key.
func (d *RedisDeliveries) Release(ctx context.Context, key string) error {
	if err := d.c.Del(ctx, d.prefix+key).Err(); err != nil {
		return fmt.Errorf("intake: release delivery: %w", err)
	}
	return nil
}

// Ping reports whether Redis answers (readiness).
func (d *RedisDeliveries) Ping(ctx context.Context) error {
	if err := d.c.Ping(ctx).Err(); err != nil {
		return fmt.Errorf("redis: %w", err)
	}
	return nil
}
