package intake

import (
	"encoding/json"
	"testing"

	"github.com/printworker/printworker/worker"
)

func TestShopifyRushTag(t *testing.T) {
	tests := []struct {
		tags, financial, want string
		rush                  bool
	}{
		{"", "paid", "paid", false},
		{"gift, Rush ", "paid", "paid/rush", true},
		{"rush", "", "rush", true},
		{"rushed, brush", "paid", "paid", false},
	}
	for _, tt := range tests {
		body, _ := json.Marshal(map[string]any{"id": 1, "created_at": "2024-06-01T09:30:00Z", "updated_at": "2024-06-01T09:30:00Z",
			"financial_status": tt.financial, "tags": tt.tags, "line_items": []any{}})
		var so shopifyOrder
		if err := json.Unmarshal(body, &so); err != nil {
			t.Fatal(err)
		}
		o, err := mapShopifyOrder(&so, shopifyMapping{domain: "shop.example"})
		if err != nil {
			t.Fatal(err)
		}
		if o.Status != tt.want || worker.IsRush(o.Status) != tt.rush {
			t.Errorf("tags %q: status %q (rush %v), want %q (%v)", tt.tags, o.Status, worker.IsRush(o.Status), tt.want, tt.rush)
		}
	}
}
