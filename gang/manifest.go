package gang

import (
	"encoding/json"
	"math"
)

// ManifestVersion is the version of the sheet manifest's schema.
const ManifestVersion = 1

// Manifest describes one sheet: every copy on it and how well the sheet is used. It
// holds nothing that changes between runs (no times, no absolute paths), so the same
// input gives the same bytes.
type Manifest struct {
	Version  int     `json:"version"`
	Sheet    int     `json:"sheet"`
	Sheets   int     `json:"sheets"`
	Image    string  `json:"image"`
	DPI      float64 `json:"dpi"`
	WidthPx  int     `json:"widthPx"`
	LengthPx int     `json:"lengthPx"`
	WidthMM  float64 `json:"widthMm"`
	LengthMM float64 `json:"lengthMm"`
	GapPx    int     `json:"gapPx"`
	MarginPx int     `json:"marginPx"`
	// ArtworkAreaPx is the sum of the copies' trimmed artwork areas; Utilisation is it
	// over the sheet area, and LowerBoundLengthPx the length that area would need on
	// this width with no waste at all.
	ArtworkAreaPx      int64          `json:"artworkAreaPx"`
	Utilisation        float64        `json:"utilisation"`
	LowerBoundLengthPx int            `json:"lowerBoundLengthPx"`
	Copies             []ManifestCopy `json:"copies"`
	Rejected           []ManifestSkip `json:"rejected,omitempty"`
}

// ManifestCopy is one placed copy. X, Y, W, H are the artwork's box on the sheet
// (after rotation); Src is the trimmed box in the design file.
type ManifestCopy struct {
	OrderID  string  `json:"orderId,omitempty"`
	Line     int     `json:"lineItem,omitempty"`
	DesignID int64   `json:"designId,omitempty"`
	View     string  `json:"viewId,omitempty"`
	File     string  `json:"file"`
	Copy     int     `json:"copy"`
	Of       int     `json:"of"`
	XPx      int     `json:"xPx"`
	YPx      int     `json:"yPx"`
	WPx      int     `json:"wPx"`
	HPx      int     `json:"hPx"`
	XMM      float64 `json:"xMm"`
	YMM      float64 `json:"yMm"`
	WMM      float64 `json:"wMm"`
	HMM      float64 `json:"hMm"`
	Rotation int     `json:"rotation"`
	Src      [4]int  `json:"srcRect"` // x0, y0, x1, y1 in the file
}

// ManifestSkip is a design left off the sheets.
type ManifestSkip struct {
	File     string `json:"file"`
	OrderID  string `json:"orderId,omitempty"`
	Line     int    `json:"lineItem,omitempty"`
	Quantity int    `json:"quantity"`
	Reason   string `json:"reason"`
}

// Stats are a sheet's area figures.
type Stats struct {
	ArtworkArea      int64
	Utilisation      float64 // artwork area / (width x length)
	LowerBoundLength int     // artwork area / width, rounded up
}

// SheetStats computes s's area figures.
func SheetStats(s Sheet) Stats {
	var a int64
	for _, p := range s.Placements {
		a += int64(p.W) * int64(p.H)
	}
	st := Stats{ArtworkArea: a}
	if s.Width > 0 && s.Length > 0 {
		st.Utilisation = float64(a) / (float64(s.Width) * float64(s.Length))
		st.LowerBoundLength = int((a + int64(s.Width) - 1) / int64(s.Width))
	}
	return st
}

// Manifest builds the manifest of sheet i (0-based) of l; image is the sheet's file
// name. Rejected designs are listed on every sheet's manifest, so none goes unseen.
func (l *Layout) Manifest(i int, image string) Manifest {
	s := l.Sheets[i]
	c := l.Config
	st := SheetStats(s)
	m := Manifest{
		Version: ManifestVersion, Sheet: s.Index, Sheets: len(l.Sheets), Image: image,
		DPI: c.DPI, WidthPx: s.Width, LengthPx: s.Length,
		WidthMM: pxToMM(s.Width, c.DPI), LengthMM: pxToMM(s.Length, c.DPI),
		GapPx: c.Gap, MarginPx: c.Margin,
		ArtworkAreaPx: st.ArtworkArea, Utilisation: math.Round(st.Utilisation*1e4) / 1e4,
		LowerBoundLengthPx: st.LowerBoundLength,
		Copies:             []ManifestCopy{},
	}
	for _, p := range s.Placements {
		d := l.Designs[p.Design]
		m.Copies = append(m.Copies, ManifestCopy{
			OrderID: d.OrderID, Line: d.Line, DesignID: d.DesignID, View: d.View, File: d.Key,
			Copy: p.Copy, Of: d.Quantity,
			XPx: p.X, YPx: p.Y, WPx: p.W, HPx: p.H,
			XMM: pxToMM(p.X, c.DPI), YMM: pxToMM(p.Y, c.DPI), WMM: pxToMM(p.W, c.DPI), HMM: pxToMM(p.H, c.DPI),
			Rotation: p.Rotation,
			Src:      [4]int{p.Src.Min.X, p.Src.Min.Y, p.Src.Max.X, p.Src.Max.Y},
		})
	}
	for _, r := range l.Rejected {
		d := l.Designs[r.Design]
		m.Rejected = append(m.Rejected, ManifestSkip{File: d.Key, OrderID: d.OrderID, Line: d.Line, Quantity: d.Quantity, Reason: r.Reason})
	}
	return m
}

// MarshalManifest is the manifest as indented JSON with a final newline.
func MarshalManifest(m Manifest) ([]byte, error) {
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}
