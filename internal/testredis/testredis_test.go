package testredis

import (
	"context"
	"testing"
)

func TestStartServesCommands(t *testing.T) {
	for _, mode := range []string{"", "embedded"} {
		t.Run("mode="+mode, func(t *testing.T) {
			t.Setenv("PRINTWORKER_TEST_REDIS", mode)
			s := Start(t)
			c := s.Client(t)
			ctx := context.Background()
			if err := c.Set(ctx, "k", "v", 0).Err(); err != nil {
				t.Fatalf("%s: set: %v", s.Kind, err)
			}
			got, err := c.Get(ctx, "k").Result()
			if err != nil || got != "v" {
				t.Fatalf("%s: get = %q, %v", s.Kind, got, err)
			}
			if mode == "embedded" && s.Kind != "miniredis" {
				t.Fatalf("embedded mode gave %s", s.Kind)
			}
		})
	}
}
