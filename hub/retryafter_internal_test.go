package hub

import (
	"testing"
	"time"
)

// parseRetryAfter with a fixed clock: exact results for both forms.
func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2026, 11, 21, 6, 0, 0, 0, time.UTC)
	cases := []struct {
		in   string
		want time.Duration
	}{
		{"", 0},
		{"0", 0},
		{"1", time.Second},
		{" 90 ", 90 * time.Second},
		{"-1", 0},
		{"1.5", 0},
		{"Sat, 21 Nov 2026 06:02:30 GMT", 150 * time.Second},   // IMF-fixdate
		{"Saturday, 21-Nov-26 06:00:10 GMT", 10 * time.Second}, // RFC 850
		{"Sat Nov 21 06:01:00 2026", time.Minute},              // asctime
		{"Sat, 21 Nov 2026 05:59:00 GMT", 0},                   // past
		{"Sun, 22 Nov 2026 07:00:00 GMT", 24 * time.Hour},      // capped
		{"99999999999999999999", 0},                            // overflows int64: not a number
		{"tomorrow", 0},
	}
	for _, tc := range cases {
		if got := parseRetryAfter(tc.in, now); got != tc.want {
			t.Errorf("parseRetryAfter(%q) = %s, want %s", tc.in, got, tc.want)
		}
	}
}
