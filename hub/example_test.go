package hub_test

import (
	"context"
	"errors"
	"fmt"
	"net/http/httptest"
	"time"

	"github.com/printworker/printworker/hub"
	"github.com/printworker/printworker/hubsim"
	"github.com/printworker/printworker/model"
)

// A job pushes an order; its retry after a lost answer converges instead of failing,
// and the error class tells the queue whether to try again.
func ExampleClient_PushOrder() {
	sim, _ := hubsim.New(hubsim.Config{Stores: []hubsim.Store{{ID: "store-1", Domains: []string{"shop.example.com"},
		Keys: []hubsim.Key{{Key: "key-1", Secret: "secret-1"}}}}})
	srv := httptest.NewServer(sim)
	defer srv.Close()

	c, err := hub.NewClient(hub.Config{Store: "store-1", APIKey: "key-1", Secret: "secret-1", BaseURL: srv.URL,
		Domains: []string{"shop.example.com"}})
	if err != nil {
		fmt.Println(err)
		return
	}
	now := hub.FormatTimestamp(time.Date(2024, 3, 5, 9, 21, 0, 0, time.UTC))
	o := &model.Order{OrderID: "1001", Domain: "shop.example.com", Email: "anna@example.com", Status: "paid",
		Created: now, Updated: now,
		LineItems: []model.LineItem{{ID: 1042, Token: "3fa85f64-5717-4562-b3fc-2c963f66afa6", Quantity: 1, Price: 14.9}}}

	ctx := context.Background()
	for range 2 {
		res, err := c.PushOrder(ctx, o)
		fmt.Println(res.Op, res.Converged, err)
	}

	_ = sim.SetFaults(hubsim.Faults{ErrorRate: 1, ErrorCount: 1})
	_, err = c.PushOrder(ctx, o)
	var he *hub.Error
	if errors.As(err, &he) {
		fmt.Println(he.Status, he.Retryable())
	}
	// Output:
	// create false <nil>
	// update true <nil>
	// 503 true
}
