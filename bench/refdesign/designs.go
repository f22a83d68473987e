package refdesign

import (
	"encoding/json"
	"strconv"

	"github.com/printworker/printworker/hub"
)

// Text contents of reference 1, shared with the peers.
const (
	TitleText  = "SUMMER CAMP 2026"
	SerifText  = "Team Falcons"
	LinesText  = "Anna Müller\nCabin 7 · River Trail\nJuly 14 – 21"
	LabelIntro = "Hello, my name is"
	LabelName  = "Anna Müller"
)

// Design returns the design detail of the named reference; media holds the generated
// files by id (their sizes and dimensions go into the media objects).
func Design(name string, media map[string]MediaFile) *hub.DesignDetail {
	d := &hub.DesignDetail{
		Static:          false,
		Shop:            "bench-store",
		Synchronization: json.RawMessage(`[]`),
		Domain:          "shop.example",
		URL:             "https://shop.example/products/designer",
		Created:         "2026-07-01T09:00:00.000Z",
		Updated:         "2026-07-01T09:12:30.000Z",
	}
	switch name {
	case TShirtFront:
		d.ID, d.Name, d.ProductID = "9001", "Summer camp shirt", "tshirt-classic"
		d.Views = []hub.View{shirtView("front", "Front", 0, true, media, frontTexts())}
	case TShirtTwoViews:
		d.ID, d.Name, d.ProductID = "9002", "Summer camp shirt, both sides", "tshirt-classic"
		d.Views = []hub.View{
			shirtView("front", "Front", 0, true, media, frontTexts()),
			shirtView("back", "Back", 1, false, media, backTexts()),
		}
	case NameLabel:
		d.ID, d.Name, d.ProductID = "9003", "Name label", "label-85x28"
		d.Views = []hub.View{labelView(media)}
	case Poster:
		d.ID, d.Name, d.ProductID = "9004", "Landscape poster", "poster-a4"
		d.Views = []hub.View{posterView(media)}
	default:
		return nil
	}
	id, _ := strconv.ParseInt(d.ID, 10, 64)
	d.ConfigurationID = id
	d.Token = "0b7e1c52-5d1a-4c1e-9a57-" + d.ID + "00000000"
	return d
}

func shirtView(id, name string, weight int, active bool, media map[string]MediaFile, texts []hub.Element) hub.View {
	printArea := "print"
	els := []hub.Element{
		{
			ID: "bg", Type: hub.ElementBackground, Name: hub.NewTranslations("en", "Shirt print background"),
			Area: &printArea, Weight: 0,
			Colors:           []hub.Color{{Name: hub.NewTranslations("en", "Cream"), Color: "#f3efe6", Default: true}},
			AllColors:        ptr(false),
			AllowTransparant: ptr(true),
		},
		{
			ID: "photo", Type: hub.ElementPicture, Name: hub.NewTranslations("en", "Photo"),
			Area: ptr("photo"), Weight: 1,
			AutoResize: ptr("fill"),
			PositionX:  ptr(float64(PhotoBoxX + PhotoBoxW/2)), PositionY: ptr(float64(PhotoBoxY + PhotoBoxH/2)),
			Rotation: ptr(0.0), Scale: ptr(1.0),
			Value:     mediaValue(media[PhotoID]),
			OriginRaw: json.RawMessage(`"center"`),
		},
		{
			ID: "badge", Type: hub.ElementIllustration, Name: hub.NewTranslations("en", "Badge"),
			Area: ptr("badge"), Weight: 2,
			AutoResize: ptr("fit"),
			PositionX:  ptr(float64(BadgeBoxX + BadgeBoxSide/2)), PositionY: ptr(float64(BadgeBoxY + BadgeBoxSide/2)),
			Rotation: ptr(0.0),
			Value:    mediaValue(media[BadgeID]),
			Colors:   []hub.Color{{Name: hub.NewTranslations("en", "Navy"), Color: "#1d4f91", Default: true}},
			// Colourized to one colour; the badge keeps its structure through opacities.
			ColorizeRaw:     json.RawMessage(`true`),
			ColorizeToColor: json.RawMessage(`"#1d4f91"`),
		},
	}
	els = append(els, texts...)
	for i := range els {
		els[i].Export = ptr(true)
		els[i].Section = ptr(0)
	}
	return hub.View{
		Active: active,
		Areas: []hub.Area{
			{ID: "print", Name: "Print area", X: PrintX, Y: PrintY, Width: PrintW, Height: PrintH},
			{ID: "photo", Name: "Photo", X: PhotoBoxX, Y: PhotoBoxY, Width: PhotoBoxW, Height: PhotoBoxH},
			{ID: "badge", Name: "Badge", X: BadgeBoxX, Y: BadgeBoxY, Width: BadgeBoxSide, Height: BadgeBoxSide},
		},
		CutOutMask: json.RawMessage(`null`),
		Elements:   els,
		Export:     export(hub.AreaTypeArea, ptr("print"), 300, hub.ExportPNG),
		Height:     ShirtH, Width: ShirtW,
		ID:       id,
		Name:     hub.NewTranslations("en", name),
		Template: *mediaValue(media[ShirtTemplateID]),
		Weight:   weight,
	}
}

// Text element positions of the T-shirt, shared with the peers.
const (
	TitleX, TitleY, TitleSize          = 700, 860, 72
	SerifX, SerifY, SerifSize, SerifRo = 860, 1010, 64, 15
	LinesX, LinesY, LinesSize          = 860, 1225, 46
)

func frontTexts() []hub.Element {
	return []hub.Element{
		text("title", 3, TitleText, TitleSize, true, "DejaVu Sans", "#1d3557", TitleX, TitleY, 0, "center"),
		text("team", 4, SerifText, SerifSize, false, "DejaVu Serif", "#8b1e3f", SerifX, SerifY, SerifRo, "center"),
		text("lines", 5, LinesText, LinesSize, false, "DejaVu Sans", "#333333", LinesX, LinesY, 0, "center"),
	}
}

func backTexts() []hub.Element {
	return []hub.Element{
		text("number", 3, "07", 220, true, "DejaVu Sans", "#1d3557", 700, 915, 0, "center"),
		text("name", 4, "MÜLLER", 96, true, "DejaVu Serif", "#8b1e3f", 860, 1060, 0, "center"),
		text("lines", 5, "Counsellor\nRiver Trail", 46, false, "DejaVu Sans", "#333333", 860, 1250, 0, "center"),
	}
}

func labelView(media map[string]MediaFile) hub.View {
	els := []hub.Element{
		text("intro", 0, LabelIntro, 18, false, "DejaVu Sans", "#555555", LabelW/2, 30, 0, "center"),
		text("name", 1, LabelName, 44, true, "DejaVu Serif", "#111111", LabelW/2, 70, 0, "center"),
	}
	for i := range els {
		els[i].Area = nil // the label has no areas: texts are placed on the whole view
	}
	return hub.View{
		Active:     true,
		Areas:      []hub.Area{},
		CutOutMask: json.RawMessage(`null`),
		Elements:   els,
		Export:     export(hub.AreaTypeTemplate, nil, 300, hub.ExportPNG),
		Height:     LabelH, Width: LabelW,
		ID:       "label",
		Name:     hub.NewTranslations("en", "Label"),
		Template: *mediaValue(media[LabelTemplateID]),
	}
}

func posterView(media map[string]MediaFile) hub.View {
	els := []hub.Element{{
		ID: "photo", Type: hub.ElementPicture, Name: hub.NewTranslations("en", "Photo"),
		Weight: 0, Export: ptr(true),
		AutoResize: ptr("fill"),
		PositionX:  ptr(float64(PosterW) / 2), PositionY: ptr(float64(PosterH) / 2),
		Value: mediaValue(media[PosterPhotoID]),
	}}
	return hub.View{
		Active:     true,
		Areas:      []hub.Area{},
		CutOutMask: json.RawMessage(`null`),
		Elements:   els,
		Export:     export(hub.AreaTypeTemplate, nil, 600, hub.ExportPNG),
		Height:     PosterH, Width: PosterW,
		ID:       "poster",
		Name:     hub.NewTranslations("en", "Poster"),
		Template: *mediaValue(media[LabelTemplateID]),
	}
}

func text(id string, weight int, value string, size float64, bold bool, font, color string, x, y, rot float64, align string) hub.Element {
	fontJSON, _ := json.Marshal(font)
	return hub.Element{
		ID: id, Type: hub.ElementText, Name: hub.NewTranslations("en", id),
		Area: ptr("print"), Weight: weight,
		Align: ptr(align), Bold: ptr(bold), Italic: ptr(false),
		Colors:   []hub.Color{{Name: hub.NewTranslations("en", color), Color: color, Default: true}},
		Fontsize: ptr(size), PositionX: ptr(x), PositionY: ptr(y), Rotation: ptr(rot),
		Multiline:      ptr(true),
		Value:          ptr(hub.TextValue(hub.NewTranslations("en", value))),
		DefaultFontRaw: fontJSON,
		OriginRaw:      json.RawMessage(`"center"`),
	}
}

func export(areaType string, area *string, dpi float64, typ string) hub.ViewExport {
	return hub.ViewExport{
		AreaType: areaType, Area: area, DPI: dpi,
		ExportTemplate:   false,
		ExportCutOutMask: json.RawMessage(`false`),
		Filename:         "[id]-[title]",
		Type:             typ,
		Custom:           json.RawMessage(`[]`),
		MergeDimensions:  json.RawMessage(`null`),
		MergeInFile:      json.RawMessage(`null`),
		MergePosition:    json.RawMessage(`null`),
	}
}

func mediaValue(m MediaFile) *hub.Value {
	v := hub.MediaValue(hub.Media{
		ID: m.ID, OriginalName: m.OriginalName, Token: "tok-" + m.ID[len(m.ID)-4:],
		MimeType: m.MimeType, Size: int64(len(m.Data)),
		Meta: hub.MediaMeta{HasAlpha: m.HasAlpha, Width: float64(m.Width), Height: float64(m.Height)},
	})
	return &v
}

func ptr[T any](v T) *T { return &v }
