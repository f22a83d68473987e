// Package testctx holds contexts for tests that cancel work at a chosen point of it,
// with no clock involved.
package testctx

import (
	"context"
	"sync/atomic"
)

// Counting is a context that ends (context.Canceled) at its After'th Err call; Calls
// counts every Err call, so a test also sees how many checks ran after the end.
type Counting struct {
	context.Context
	calls atomic.Int64
	After int64
}

// CancelAt returns a Counting context that ends at its n'th check.
func CancelAt(n int64) *Counting {
	return &Counting{Context: context.Background(), After: n}
}

// Err is context.Canceled from the After'th call on.
func (c *Counting) Err() error {
	if c.calls.Add(1) >= c.After {
		return context.Canceled
	}
	return nil
}

// Calls is how many times Err was called.
func (c *Counting) Calls() int64 { return c.calls.Load() }
