package profiles

import (
	"fmt"
	"slices"
	"strings"

	"github.com/printworker/printworker/render"
)

// Review holds (docs/shop-floor.md "Review holds"): a policy names the preflight
// findings that hold an order for a person to look at before its files go to
// production. The finding kinds are the warning codes of the files that raise them.

// WarnTypeMismatch: the hub sent a file of another type than the view asked for
// (downloaded files; the worker raises it).
const WarnTypeMismatch = "type-mismatch"

// Warning codes of the worker's preflight of a file (docs/preflight.md "In the
// worker"): a file with an error finding, and one with warnings only.
const (
	WarnPreflightError   = "preflight-error"
	WarnPreflightWarning = "preflight-warning"
)

// ReviewNone in a policy holds nothing.
const ReviewNone = "none"

// ReviewKinds are the finding kinds a review policy may name.
var ReviewKinds = []string{render.WarnMissingFont, render.WarnMissingGlyph, WarnBelowProfileDPI, render.WarnBleed, WarnTypeMismatch, WarnPreflightError, WarnPreflightWarning}

// DefaultReview is the policy of `printworker work` when none is given: a missing
// font or glyph prints text in another face or not at all, which no customer
// approved, and a preflight error is a file the press would refuse; the others are
// often acceptable and are shown as warnings only.
var DefaultReview = []string{render.WarnMissingFont, render.WarnMissingGlyph, WarnPreflightError}

// ParseReview checks a policy's list of finding kinds: ReviewKinds, or "none" alone
// (nothing held, returned as an empty, non-nil list). Duplicates are dropped.
func ParseReview(list []string) ([]string, error) {
	out := []string{}
	for _, k := range list {
		k = strings.TrimSpace(k)
		switch {
		case k == "":
			continue
		case k == ReviewNone:
			if len(list) > 1 {
				return nil, fmt.Errorf("%q: none stands alone", strings.Join(list, ","))
			}
			return []string{}, nil
		case !slices.Contains(ReviewKinds, k):
			return nil, fmt.Errorf("%q: want none or finding kinds of %s", k, strings.Join(ReviewKinds, ", "))
		case !slices.Contains(out, k):
			out = append(out, k)
		}
	}
	return out, nil
}

// AnyReview says whether a profile of the set has its own review policy (a
// non-empty one): then an order may be held whatever its store's policy.
func (s *Set) AnyReview() bool {
	if s == nil {
		return false
	}
	for _, r := range s.resolved {
		if len(r.Profile.Review) > 0 && !slices.Equal(r.Profile.Review, Strings{ReviewNone}) {
			return true
		}
	}
	return s.def != nil && len(s.def.Profile.Review) > 0 && !slices.Equal(s.def.Profile.Review, Strings{ReviewNone})
}
