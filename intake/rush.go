package intake

import "strings"

// RushTag is the Shopify order tag that marks a rush order. The hub order has no
// tags, so a rush order's status gets "/rush" appended ("paid/rush"); routing rules
// with "rush": true match it (docs/routing.md).
const RushTag = "rush"

// withRush appends "/rush" to status when the comma-separated Shopify tags include
// RushTag (any case).
func withRush(status, tags string) string {
	for _, t := range strings.Split(tags, ",") {
		if strings.EqualFold(strings.TrimSpace(t), RushTag) {
			if status == "" {
				return RushTag
			}
			return status + "/" + RushTag
		}
	}
	return status
}
