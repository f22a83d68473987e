package refdesign

import (
	"encoding/json"
	"strconv"

	"github.com/printworker/printworker/model"
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
func Design(name string, media map[string]MediaFile) *model.DesignDetail {
	d := &model.DesignDetail{
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
		d.Views = []model.View{shirtView("front", "Front", 0, true, media, frontTexts())}
	case TShirtTwoViews:
		d.ID, d.Name, d.ProductID = "9002", "Summer camp shirt, both sides", "tshirt-classic"
		d.Views = []model.View{
			shirtView("front", "Front", 0, true, media, frontTexts()),
			shirtView("back", "Back", 1, false, media, backTexts()),
		}
	case NameLabel:
		d.ID, d.Name, d.ProductID = "9003", "Name label", "label-85x28"
		d.Views = []model.View{labelView(media)}
	case Poster:
		d.ID, d.Name, d.ProductID = "9004", "Landscape poster", "poster-a4"
		d.Views = []model.View{posterView(media)}
	default:
		return nil
	}
	id, _ := strconv.ParseInt(d.ID, 10, 64)
	d.ConfigurationID = id
	d.Token = "0b7e1c52-5d1a-4c1e-9a57-" + d.ID + "00000000"
	return d
}

func shirtView(id, name string, weight int, active bool, media map[string]MediaFile, texts []model.Element) model.View {
	printArea := "print"
	els := []model.Element{
		{
			ID: "bg", Type: model.ElementBackground, Name: model.NewTranslations("en", "Shirt print background"),
			Area: &printArea, Weight: 0,
			Colors:           []model.Color{{Name: model.NewTranslations("en", "Cream"), Color: "#f3efe6", Default: true}},
			AllColors:        ptr(false),
			AllowTransparant: ptr(true),
		},
		{
			ID: "photo", Type: model.ElementPicture, Name: model.NewTranslations("en", "Photo"),
			Area: ptr("photo"), Weight: 1,
			AutoResize: ptr("fill"),
			PositionX:  ptr(float64(PhotoBoxX + PhotoBoxW/2)), PositionY: ptr(float64(PhotoBoxY + PhotoBoxH/2)),
			Rotation: ptr(0.0), Scale: ptr(1.0),
			Value:     mediaValue(media[PhotoID]),
			OriginRaw: json.RawMessage(`"center"`),
		},
		{
			ID: "badge", Type: model.ElementIllustration, Name: model.NewTranslations("en", "Badge"),
			Area: ptr("badge"), Weight: 2,
			AutoResize: ptr("fit"),
			PositionX:  ptr(float64(BadgeBoxX + BadgeBoxSide/2)), PositionY: ptr(float64(BadgeBoxY + BadgeBoxSide/2)),
			Rotation: ptr(0.0),
			Value:    mediaValue(media[BadgeID]),
			Colors:   []model.Color{{Name: model.NewTranslations("en", "Navy"), Color: "#1d4f91", Default: true}},
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
	return model.View{
		Active: active,
		Areas: []model.Area{
			{ID: "print", Name: "Print area", X: PrintX, Y: PrintY, Width: PrintW, Height: PrintH},
			{ID: "photo", Name: "Photo", X: PhotoBoxX, Y: PhotoBoxY, Width: PhotoBoxW, Height: PhotoBoxH},
			{ID: "badge", Name: "Badge", X: BadgeBoxX, Y: BadgeBoxY, Width: BadgeBoxSide, Height: BadgeBoxSide},
		},
		CutOutMask: json.RawMessage(`null`),
		Elements:   els,
		Export:     export(model.AreaTypeArea, ptr("print"), 300, model.ExportPNG),
		Height:     ShirtH, Width: ShirtW,
		ID:       id,
		Name:     model.NewTranslations("en", name),
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

func frontTexts() []model.Element {
	return []model.Element{
		text("title", 3, TitleText, TitleSize, true, "DejaVu Sans", "#1d3557", TitleX, TitleY, 0, "center"),
		text("team", 4, SerifText, SerifSize, false, "DejaVu Serif", "#8b1e3f", SerifX, SerifY, SerifRo, "center"),
		text("lines", 5, LinesText, LinesSize, false, "DejaVu Sans", "#333333", LinesX, LinesY, 0, "center"),
	}
}

func backTexts() []model.Element {
	return []model.Element{
		text("number", 3, "07", 220, true, "DejaVu Sans", "#1d3557", 700, 915, 0, "center"),
		text("name", 4, "MÜLLER", 96, true, "DejaVu Serif", "#8b1e3f", 860, 1060, 0, "center"),
		text("lines", 5, "Counsellor\nRiver Trail", 46, false, "DejaVu Sans", "#333333", 860, 1250, 0, "center"),
	}
}

func labelView(media map[string]MediaFile) model.View {
	els := []model.Element{
		text("intro", 0, LabelIntro, 18, false, "DejaVu Sans", "#555555", LabelW/2, 30, 0, "center"),
		text("name", 1, LabelName, 44, true, "DejaVu Serif", "#111111", LabelW/2, 70, 0, "center"),
	}
	for i := range els {
		els[i].Area = nil // the label has no areas: texts are placed on the whole view
	}
	return model.View{
		Active:     true,
		Areas:      []model.Area{},
		CutOutMask: json.RawMessage(`null`),
		Elements:   els,
		Export:     export(model.AreaTypeTemplate, nil, 300, model.ExportPNG),
		Height:     LabelH, Width: LabelW,
		ID:       "label",
		Name:     model.NewTranslations("en", "Label"),
		Template: *mediaValue(media[LabelTemplateID]),
	}
}

func posterView(media map[string]MediaFile) model.View {
	els := []model.Element{{
		ID: "photo", Type: model.ElementPicture, Name: model.NewTranslations("en", "Photo"),
		Weight: 0, Export: ptr(true),
		AutoResize: ptr("fill"),
		PositionX:  ptr(float64(PosterW) / 2), PositionY: ptr(float64(PosterH) / 2),
		Value: mediaValue(media[PosterPhotoID]),
	}}
	return model.View{
		Active:     true,
		Areas:      []model.Area{},
		CutOutMask: json.RawMessage(`null`),
		Elements:   els,
		Export:     export(model.AreaTypeTemplate, nil, 600, model.ExportPNG),
		Height:     PosterH, Width: PosterW,
		ID:       "poster",
		Name:     model.NewTranslations("en", "Poster"),
		Template: *mediaValue(media[LabelTemplateID]),
	}
}

func text(id string, weight int, value string, size float64, bold bool, font, color string, x, y, rot float64, align string) model.Element {
	fontJSON, _ := json.Marshal(font)
	return model.Element{
		ID: id, Type: model.ElementText, Name: model.NewTranslations("en", id),
		Area: ptr("print"), Weight: weight,
		Align: ptr(align), Bold: ptr(bold), Italic: ptr(false),
		Colors:   []model.Color{{Name: model.NewTranslations("en", color), Color: color, Default: true}},
		Fontsize: ptr(size), PositionX: ptr(x), PositionY: ptr(y), Rotation: ptr(rot),
		Multiline:      ptr(true),
		Value:          ptr(model.TextValue(model.NewTranslations("en", value))),
		DefaultFontRaw: fontJSON,
		OriginRaw:      json.RawMessage(`"center"`),
	}
}

func export(areaType string, area *string, dpi float64, typ string) model.ViewExport {
	return model.ViewExport{
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

func mediaValue(m MediaFile) *model.Value {
	v := model.MediaValue(model.Media{
		ID: m.ID, OriginalName: m.OriginalName, Token: "tok-" + m.ID[len(m.ID)-4:],
		MimeType: m.MimeType, Size: int64(len(m.Data)),
		Meta: model.MediaMeta{HasAlpha: m.HasAlpha, Width: float64(m.Width), Height: float64(m.Height)},
	})
	return &v
}

func ptr[T any](v T) *T { return &v }
