// Package refdesign builds the reference designs of the benchmarks (docs/benchmarks.md):
// design-detail JSON in the hub's shape (spec 2.14) and the media they name, all
// generated deterministically so the peers and printworker render the same bytes.
//
//  1. tshirt-front: one 300-dpi PNG view, export area 1000 x 1200 template px (4167 x
//     5000 pixels): background #f3efe6, a 2000 x 2000 photo filling a 760 x 520 area, a
//     colourized SVG badge in a 260 x 260 area, three texts (72 px bold, 64 px serif
//     rotated 15 degrees, 46 px three lines centred).
//  2. tshirt-two-views: the same front plus a back view.
//  3. name-label: a text-only name label.
//  4. poster-600dpi: an A4 poster of one large photo at 600 dpi.
//
// The media live in one folder, one file per media `_id` (render.DirSource).
package refdesign

import (
	"bytes"
	"encoding/json"
	"fmt"
	"image"
	"image/jpeg"
	"image/png"
	"os"
	"path/filepath"
	"slices"
)

// Names of the reference designs, in the order of the issue.
const (
	TShirtFront    = "tshirt-front"
	TShirtTwoViews = "tshirt-two-views"
	NameLabel      = "name-label"
	Poster         = "poster-600dpi"
)

// Names lists every reference design.
var Names = []string{TShirtFront, TShirtTwoViews, NameLabel, Poster}

// Media ids: 24 hex digits like the hub's object ids.
const (
	PhotoID         = "be1c0000000000000000a001"
	BadgeID         = "be1c0000000000000000a002"
	ShirtTemplateID = "be1c0000000000000000a003"
	PosterPhotoID   = "be1c0000000000000000a004"
	LabelTemplateID = "be1c0000000000000000a005"
)

// Geometry of the T-shirt view in template pixels (1 template px = 1 pt). Peers
// (bench/fabric/render.js, bench/peers.sh) repeat these numbers; keep them in step.
const (
	ShirtW, ShirtH                     = 1400, 1600
	PrintX, PrintY, PrintW, PrintH     = 200, 200, 1000, 1200
	PhotoBoxX, PhotoBoxY               = 320, 260
	PhotoBoxW, PhotoBoxH               = 760, 520
	BadgeBoxX, BadgeBoxY, BadgeBoxSide = 250, 930, 260
	PhotoPx                            = 2000
	// Poster: A4 portrait in points, at 600 dpi = 4958 x 7017 pixels. The photo is a
	// little larger than the page at 600 dpi so that no low-resolution warning fires.
	PosterW, PosterH             = 595, 842
	PosterPhotoW, PosterPhotoH   = 5100, 7200
	LabelW, LabelH               = 340, 110
	photoQuality, posterQuality  = 90, 88
	photoNoise, posterPhotoNoise = 10, 6
)

// MediaFile is one generated media file, named <ID>.<Ext> in the media folder.
type MediaFile struct {
	ID, Ext, MimeType, OriginalName string
	Data                            []byte
	Width, Height                   int
	HasAlpha                        bool
}

// FileName is the file's name in the media folder.
func (m MediaFile) FileName() string { return m.ID + "." + m.Ext }

// Write generates the named designs (all when names is empty) into dir: dir/designs/
// <name>.json and dir/media/<media id>.<ext>. Media shared by several designs are
// written once. Output is deterministic for a given Go release (image/jpeg).
func Write(dir string, names ...string) error {
	if len(names) == 0 {
		names = Names
	}
	for _, n := range names {
		if !slices.Contains(Names, n) {
			return fmt.Errorf("refdesign: unknown design %q (have %v)", n, Names)
		}
	}
	for _, sub := range []string{"designs", "media"} {
		if err := os.MkdirAll(filepath.Join(dir, sub), 0o755); err != nil {
			return err
		}
	}
	media := map[string]MediaFile{}
	need := func(id string, gen func() (MediaFile, error)) (MediaFile, error) {
		if m, ok := media[id]; ok {
			return m, nil
		}
		m, err := gen()
		if err != nil {
			return MediaFile{}, fmt.Errorf("refdesign: media %s: %w", id, err)
		}
		media[id] = m
		return m, os.WriteFile(filepath.Join(dir, "media", m.FileName()), m.Data, 0o644)
	}
	for _, n := range names {
		var ids []string
		var gens []func() (MediaFile, error)
		switch n {
		case TShirtFront, TShirtTwoViews:
			ids = []string{PhotoID, BadgeID, ShirtTemplateID}
			gens = []func() (MediaFile, error){photoFile, badgeFile, shirtTemplateFile}
		case NameLabel:
			ids = []string{LabelTemplateID}
			gens = []func() (MediaFile, error){labelTemplateFile}
		case Poster:
			ids = []string{PosterPhotoID, LabelTemplateID}
			gens = []func() (MediaFile, error){posterPhotoFile, labelTemplateFile}
		}
		got := map[string]MediaFile{}
		for i, id := range ids {
			m, err := need(id, gens[i])
			if err != nil {
				return err
			}
			got[id] = m
		}
		d := Design(n, got)
		b, err := json.MarshalIndent(d, "", "  ")
		if err != nil {
			return fmt.Errorf("refdesign: %s: %w", n, err)
		}
		if err := os.WriteFile(filepath.Join(dir, "designs", n+".json"), append(b, '\n'), 0o644); err != nil {
			return err
		}
	}
	return nil
}

func photoFile() (MediaFile, error) {
	return jpegFile(PhotoID, "summer-camp.jpg", Photo(PhotoPx, PhotoPx, 1, photoNoise), photoQuality)
}

func posterPhotoFile() (MediaFile, error) {
	return jpegFile(PosterPhotoID, "landscape-poster.jpg", Photo(PosterPhotoW, PosterPhotoH, 4, posterPhotoNoise), posterQuality)
}

func jpegFile(id, name string, img image.Image, q int) (MediaFile, error) {
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: q}); err != nil {
		return MediaFile{}, err
	}
	b := img.Bounds()
	return MediaFile{ID: id, Ext: "jpg", MimeType: "image/jpeg", OriginalName: name, Data: buf.Bytes(),
		Width: b.Dx(), Height: b.Dy()}, nil
}

func badgeFile() (MediaFile, error) {
	return MediaFile{ID: BadgeID, Ext: "svg", MimeType: "image/svg+xml", OriginalName: "camp-badge.svg",
		Data: []byte(BadgeSVG), Width: BadgeBoxSide, Height: BadgeBoxSide, HasAlpha: true}, nil
}

func shirtTemplateFile() (MediaFile, error) {
	return pngFile(ShirtTemplateID, "tshirt-mockup.png", ShirtTemplate(ShirtW/10, ShirtH/10))
}

func labelTemplateFile() (MediaFile, error) {
	img := image.NewNRGBA(image.Rect(0, 0, 34, 11))
	for i := range img.Pix {
		img.Pix[i] = 0xff
	}
	return pngFile(LabelTemplateID, "blank.png", img)
}

func pngFile(id, name string, img image.Image) (MediaFile, error) {
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		return MediaFile{}, err
	}
	b := img.Bounds()
	return MediaFile{ID: id, Ext: "png", MimeType: "image/png", OriginalName: name, Data: buf.Bytes(),
		Width: b.Dx(), Height: b.Dy(), HasAlpha: true}, nil
}
