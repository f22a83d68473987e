package routing

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/robfig/cron/v3"

	"github.com/printworker/printworker/gang"
)

// maxGroupName bounds a group name, which becomes a folder and part of Redis keys.
const maxGroupName = 64

var groupFields = []string{"width", "dpi", "gap", "margin", "rotate", "maxLength", "sheets", "labels", "codes", "cutMarks", "pdf", "previewWidth", "cutoff", "prefix"}

// Gang returns the group named name.
func (r *Rules) Gang(name string) (*gang.Group, bool) {
	if r == nil {
		return nil, false
	}
	g, ok := r.gangs[name]
	return g, ok
}

// Gangs lists the groups, sorted by name.
func (r *Rules) Gangs() []*gang.Group {
	if r == nil {
		return nil
	}
	out := make([]*gang.Group, 0, len(r.gangs))
	for _, g := range r.gangs {
		out = append(out, g)
	}
	slices.SortFunc(out, func(a, b *gang.Group) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// parseGangs reads the top-level "gangs" object: group name -> settings.
func parseGangs(raw json.RawMessage) (map[string]*gang.Group, []error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil || fields == nil {
		return nil, []error{errors.New(`gangs: want an object of group name -> settings`)}
	}
	out := map[string]*gang.Group{}
	var errs []error
	for _, name := range sortedKeys(fields) {
		g, gerrs := parseGroup(name, fields[name])
		for _, e := range gerrs {
			errs = append(errs, fmt.Errorf("gang %q: %w", name, e))
		}
		out[name] = g
	}
	return out, errs
}

// validGroupName: lowercase letters, digits, '-' and '_', so the name is the same
// folder on every filesystem and needs no escaping in keys and task ids.
func validGroupName(n string) error {
	if n == "" || len(n) > maxGroupName {
		return fmt.Errorf("name: %d characters, want 1 to %d", len(n), maxGroupName)
	}
	for i := 0; i < len(n); i++ {
		c := n[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || (c == '-' || c == '_') && i > 0) {
			return fmt.Errorf("name: character %q at %d: want lowercase letters, digits, '-' and '_' (not first)", c, i)
		}
	}
	return nil
}

func parseGroup(name string, raw json.RawMessage) (*gang.Group, []error) {
	g := &gang.Group{Name: name, PreviewWidth: 800}
	var errs []error
	if err := validGroupName(name); err != nil {
		errs = append(errs, err)
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil || fields == nil {
		return g, append(errs, errors.New("want an object of settings"))
	}
	for _, k := range sortedKeys(fields) {
		if !slices.Contains(groupFields, k) {
			errs = append(errs, fmt.Errorf("unknown field %q (want one of %s)", k, strings.Join(groupFields, ", ")))
		}
	}
	field := func(n string, v any) bool {
		b, ok := fields[n]
		if !ok {
			return false
		}
		if err := json.Unmarshal(b, v); err != nil {
			errs = append(errs, fmt.Errorf("%s: %v", n, jsonMsg(err)))
			return false
		}
		return true
	}
	length := func(n, def string) gang.Length {
		s := def
		if !field(n, &s) && def == "" {
			errs = append(errs, fmt.Errorf("%s: required (a length with unit: 22in, 56cm, 580mm)", n))
			return gang.Length{}
		}
		l, err := gang.ParseLength(s)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %v", n, err))
		}
		return l
	}
	g.Width = length("width", "")
	gap, margin := length("gap", "5mm"), length("margin", "5mm")
	g.MaxLength = length("maxLength", "10m")
	dpi := 300.0
	if field("dpi", &dpi) && !(dpi >= 10 && dpi <= 2400) {
		errs = append(errs, fmt.Errorf("dpi: %g, want 10 to 2400", dpi))
	}
	rotate, labels, codes := true, false, false
	field("rotate", &rotate)
	field("labels", &labels)
	field("codes", &codes)
	field("sheets", &g.Sheet.Sheets)
	field("cutMarks", &g.Sheet.CutMarks)
	field("pdf", &g.PDF)
	if field("previewWidth", &g.PreviewWidth) && (g.PreviewWidth < 0 || g.PreviewWidth > 10000) {
		errs = append(errs, fmt.Errorf("previewWidth: %d, want 0 (none) to 10000", g.PreviewWidth))
	}
	if field("prefix", &g.Prefix) {
		p, err := CleanPrefix(g.Prefix)
		if err != nil {
			errs = append(errs, fmt.Errorf("prefix %q: %w", g.Prefix, err))
		}
		g.Prefix = p
	}
	if field("cutoff", &g.Cutoff) {
		s, err := ParseCutoff(g.Cutoff)
		if err != nil {
			errs = append(errs, fmt.Errorf("cutoff %q: %w", g.Cutoff, err))
		}
		g.Schedule = s
	}
	g.Sheet.DPI, g.Sheet.Rotate = dpi, rotate
	g.Sheet.Width, g.Sheet.MaxLength = g.Width.Pixels(dpi), g.MaxLength.Pixels(dpi)
	g.Sheet.Gap, g.Sheet.Margin = gap.Pixels(dpi), margin.Pixels(dpi)
	if labels {
		g.Sheet.Label = gang.LabelPx(dpi)
	}
	if codes {
		g.Sheet.Code = gang.CodePx(dpi)
	}
	if len(errs) == 0 {
		if err := g.Sheet.Validate(); err != nil {
			errs = append(errs, err)
		}
	}
	return g, errs
}

// ParseCutoff reads a cut-off schedule: "every 2h" (a design waits at most that long
// after the group's oldest pending design arrived), or a five-field cron spec
// ("0 14 * * *": 14:00 UTC daily; "CRON_TZ=Europe/Berlin 0 14 * * 1-5" for a local
// time) or a descriptor (@daily, @hourly).
func ParseCutoff(s string) (cron.Schedule, error) {
	if d, ok := strings.CutPrefix(strings.TrimSpace(s), "every "); ok {
		dur, err := time.ParseDuration(strings.TrimSpace(d))
		if err != nil || dur < time.Minute || dur > 31*24*time.Hour {
			return nil, errors.New(`"every" wants a duration from 1m to 744h, like "every 2h"`)
		}
		return cron.Every(dur), nil
	}
	sch, err := cron.ParseStandard(s)
	if err != nil {
		return nil, fmt.Errorf(`want a cron spec ("0 14 * * *") or "every 2h": %v`, err)
	}
	return sch, nil
}
