package gang

import "github.com/robfig/cron/v3"

// Group is a gang group: the roll or sheet a rule's "gang" action sends PNG files to,
// with its geometry and cut-off, as the routing rules define it. Sheets are built per store and group, so a group is
// one material and width of one shop (docs/gang.md, "Sheet jobs").
type Group struct {
	Name string
	// Sheet is the sheet geometry in pixels at the group's dpi.
	Sheet        Config
	Width        Length
	MaxLength    Length
	PDF          bool
	PreviewWidth int
	// Prefix is the key prefix of the group's sheets ("" the storage root):
	// {prefix}/{store}/gang/{group}/{date}/sheet-000001-01.png.
	Prefix string
	// Cutoff is the schedule as written ("0 14 * * *", "every 2h"); Schedule is nil
	// when the group has no cut-off (sheets are built when full, or by hand).
	Cutoff   string
	Schedule cron.Schedule
}

// LabelPx is the height of the order/line label band under each copy at dpi: 3 mm,
// at least 15 px (the 7x13 bitmap font scaled by whole pixels, about 2 mm high).
func LabelPx(dpi float64) int { return max(15, int(dpi*3/25.4)) }
