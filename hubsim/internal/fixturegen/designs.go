package fixturegen

import (
	"encoding/json"

	"github.com/printworker/printworker/model"
)

// Element builders with the fields the hub's example payloads carry.

// elementNames are the names the app shows for the fixture elements.
var elementNames = map[string][2]string{
	"headline": {"Headline", "Überschrift"}, "photo": {"Photo", "Foto"}, "star": {"Star", "Stern"},
	"guide": {"Print area hint", "Hinweis Druckbereich"}, "name": {"Name", "Name"}, "number": {"Number", "Nummer"},
	"heart": {"Heart", "Herz"}, "bg": {"Background", "Hintergrund"}, "logo": {"Logo", "Logo"},
	"caption": {"Caption", "Beschriftung"}, "window": {"Photo window", "Fotofenster"},
	"greeting": {"Greeting", "Gruß"}, "paper": {"Paper colour", "Papierfarbe"}, "dear": {"Message", "Nachricht"},
}

func elementName(id string) model.Translations {
	n, ok := elementNames[id]
	if !ok {
		n = [2]string{id, id}
	}
	return tr("en", n[0], "de", n[1])
}

func text(id string, weight int, value *model.Value, x, y, size float64) model.Element {
	return model.Element{
		ID: id, Type: model.ElementText, Name: elementName(id),
		Active: pb(false), Area: nil, Export: pb(true), Removable: pb(false), Required: pb(false),
		Section: pi(0), Selectable: pb(true), Weight: weight,
		Align: ps("center"), AllColors: pb(false), Bold: pb(false), Italic: pb(false),
		Draggable: pb(true), Resizable: pb(true), Rotatable: pb(true), MaxCharacters: pi(0),
		Fontsize: pf(size), MaxFontsize: pf(size * 2), MinFontsize: pf(size / 2), Multiline: pb(false),
		PositionX: pf(x), PositionY: pf(y), Rotation: pf(0), Value: value,
		Order: raw("0"), ReadOnly: raw("false"), CharSpacingRaw: raw("0"), Curvable: raw("false"),
		CurveRadius: raw("0"), LineHeightRaw: raw("1.16"), OriginRaw: raw(`"center"`),
		FontsRaw: raw(`["DejaVu Sans","DejaVu Serif"]`), AllFonts: raw("false"), Fx: raw("null"), Custom: raw("[]"),
	}
}

func picture(id string, weight int, value model.Value, x, y float64, resize string, scale float64) model.Element {
	return model.Element{
		ID: id, Type: model.ElementPicture, Name: elementName(id),
		Active: pb(false), Export: pb(true), Removable: pb(true), Required: pb(false),
		Section: pi(0), Selectable: pb(true), Weight: weight,
		Draggable: pb(true), Resizable: pb(true), Rotatable: pb(true),
		PositionX: pf(x), PositionY: pf(y), Rotation: pf(0), Value: &value,
		AutoResize: ps(resize), Scale: pf(scale), ScaleArea: nil,
		Order: raw("0"), ReadOnly: raw("false"), OriginRaw: raw(`"center"`),
		AllowedExtensions: raw(`["jpg","jpeg","png"]`), Fx: raw("null"), Custom: raw("[]"),
	}
}

func illustration(id string, weight int, value model.Value, x, y, scale float64) model.Element {
	e := picture(id, weight, value, x, y, "none", scale)
	e.Type = model.ElementIllustration
	e.AllowedExtensions = nil
	e.AllColors = pb(false)
	e.AllowTransparent = pb(false)
	e.Groups = raw("[]")
	e.ColorizeRaw = raw("false")
	e.ColorizeToColor = raw("null")
	return e
}

func background(id string, weight int, colors ...model.Color) model.Element {
	return model.Element{
		ID: id, Type: model.ElementBackground, Name: elementName(id),
		Active: pb(false), Export: pb(true), Removable: pb(false), Required: pb(false),
		Section: pi(0), Selectable: pb(true), Weight: weight,
		AllColors: pb(false), AllowTransparant: pb(false), Colors: colors, Order: raw("0"),
	}
}

func export(areaType string, area *string, typ string, dpi float64, withTemplate bool, filename string) model.ViewExport {
	return model.ViewExport{AreaType: areaType, Area: area, DPI: dpi, ExportTemplate: withTemplate,
		ExportCutOutMask: raw("false"), Filename: filename, Type: typ, Custom: raw("[]"),
		MergeDimensions: raw("null"), MergeInFile: raw("null"), MergePosition: raw("null")}
}

func view(id, name string, weight int, active bool, w, h float64, tpl model.Value, areas []model.Area, x model.ViewExport, els ...model.Element) model.View {
	if areas == nil {
		areas = []model.Area{}
	}
	return model.View{ID: id, Name: tr("en", name, "de", name), Weight: weight, Active: active, Width: w, Height: h,
		Template: tpl, Areas: areas, Export: x, Elements: els, CutOutMask: raw("null"),
		AllowRearrangeElements: true, GroupElements: false, Required: weight == 0}
}

func area(id, name string, x, y, w, h float64) model.Area {
	return model.Area{ID: id, Name: name, X: x, Y: y, Width: w, Height: h}
}

// buildDesigns builds the fixture designs; val writes a media reference (a media
// object in design details, a bare id in template payloads).
func buildDesigns(ms mediaSet, val func(*mediaSpec) model.Value) []model.DesignDetail {
	common := func(d model.DesignDetail) model.DesignDetail {
		d.Shop, d.Domain, d.Static = "demo-store", "shop.example.com", false
		d.Synchronization = json.RawMessage("[]")
		return d
	}

	// 1001: a t-shirt with three pdf views; the array order (front, sleeve, back)
	// differs from the weight order (front, back, sleeve).
	headline := text("headline", 2, tv("en", "GO TEAM\nBERLIN 2024", "de", "LOS TEAM\nBERLIN 2024"), 250, 200, 36)
	headline.Active, headline.Area, headline.Multiline, headline.Bold = pb(true), ps("chest"), pb(true), pb(true)
	headline.Colors = []model.Color{col("Black", "#000000", false), col("Red", "#d0021b", true)}
	headline.DefaultFontRaw, headline.CharSpacingRaw, headline.MaxCharacters = raw(`"DejaVu Sans"`), raw("50"), pi(60)
	photoEl := picture("photo", 1, val(ms["photo"]), 250, 380, "fit", 0.8)
	photoEl.Area = ps("chest")
	starEl := illustration("star", 3, val(ms["star"]), 135, 262, 0.6)
	starEl.Area, starEl.Rotation, starEl.ColorizeRaw = ps("chest"), pf(15), raw("true")
	starEl.Colors = []model.Color{col("Gold", "#f5b301", true), col("Silver", "#a7a9ac", false)}
	guide := text("guide", 4, tv("en", "Print area", "de", "Druckbereich"), 250, 505, 12)
	guide.Export, guide.Selectable, guide.Colors = pb(false), pb(false), []model.Color{col("Grey", "#9aa5b1", true)}
	name := text("name", 0, tv("en", "MÜLLER"), 250, 170, 48)
	name.Area, name.Bold = ps("back"), pb(true)
	name.Colors = []model.Color{col("Navy", "#1b2a4a", true)}
	name.DefaultFontRaw = raw(`"DejaVu Serif"`)
	number := text("number", 1, tv("en", "10"), 250, 330, 120)
	number.Area, number.FontsRaw = ps("back"), raw(`["Lobster"]`) // no colours: black; unknown family
	heartEl := illustration("heart", 0, val(ms["heart"]), 100, 70, 0.5)
	heartEl.ColorizeRaw, heartEl.ColorizeToColor = raw("true"), raw(`"#cc0033"`)
	// Production views export the customer's print only: the product mockups and
	// their dashed print-area guides stay in the designer (exportTemplate false).
	sleeveX := export(model.AreaTypeCustom, nil, model.ExportPDFSimple, 150, false, "[id]-[title]-sleeve")
	sleeveX.X, sleeveX.Y, sleeveX.Width, sleeveX.Height = 40, 30, 120, 80
	shirt := common(model.DesignDetail{
		ID: "6561f1b2c3d4e5f601001001", Name: "Team Shirt", ProductID: "tshirt-classic",
		URL: "https://shop.example.com/products/team-shirt?design=1001", Created: "2024-03-05T10:20:30.000Z",
		Updated: "2024-03-05T10:25:00.000Z", ConfigurationID: 1001, Token: "7d9f2c4e-1b3a-4c5d-8e6f-0a1b2c3d4e5f",
		Views: []model.View{
			view("front", "Front", 0, true, 500, 600, val(ms["shirt-front"]),
				[]model.Area{area("chest", "Chest", 100, 120, 300, 400)},
				export(model.AreaTypeArea, ps("chest"), model.ExportPDF, 300, false, "[id]-[title]"),
				photoEl, headline, starEl, guide),
			view("sleeve", "Sleeve", 2, false, 200, 150, val(ms["sleeve"]), nil, sleeveX, heartEl),
			view("back", "Back", 1, false, 500, 600, val(ms["shirt-back"]),
				[]model.Area{area("back", "Back print", 90, 100, 320, 420)},
				export(model.AreaTypeTemplate, nil, model.ExportPDF, 300, false, "[product]-[date]-[id]"),
				name, number),
		},
	})
	shirt.Views[0].AddText = &model.Element{Fontsize: pf(24), Colors: []model.Color{col("Black", "#000000", true)}, Area: ps("chest")}

	// 1002: a mug with two png views: a custom box with the template, and a
	// transparent export of the right side.
	bg := background("bg", 0, col("Cream", "#fdf6e3", true), col("Sky", "#e0f0ff", false))
	bg.Area = ps("wrap")
	logo := picture("logo", 1, val(ms["logo"]), 150, 125, "fit", 1)
	logo.Area, logo.ScaleArea = ps("wrap"), ps("logo-box")
	dad := text("caption", 2, tv("en", "Best Dad", "de", "Bester Papa"), 400, 125, 40)
	dad.Area, dad.Colors = ps("wrap"), []model.Color{col("Navy", "#1b2a4a", true), col("Red", "#d0021b", false)}
	dad.DefaultFontRaw = raw(`"DejaVu Serif"`)
	window := picture("window", 0, val(ms["photo"]), 440, 125, "fill", 1)
	window.Area = ps("photo-window")
	bday := text("greeting", 1, tv("en", "Happy\nBirthday!"), 200, 125, 32)
	bday.Multiline, bday.Align, bday.Rotation, bday.MaxCharacters = pb(true), ps("left"), pf(350), pi(40)
	bday.Colors = []model.Color{col("Green", "#2e7d32", true)}
	bday.LineHeightRaw = raw("1.3")
	mugX := export(model.AreaTypeCustom, nil, model.ExportPNG, 150, false, "[id]-[title]")
	mugX.X, mugX.Y, mugX.Width, mugX.Height = 20, 15, 560, 220
	mug := common(model.DesignDetail{
		ID: "6561f1b2c3d4e5f601001002", Name: "Coffee Mug", ProductID: "mug-11oz",
		URL: "https://shop.example.com/products/coffee-mug?design=1002", Created: "2024-04-12T08:00:00.000Z",
		Updated: "2024-04-12T08:03:10.000Z", ConfigurationID: 1002, Token: "2c5e8a1f-6b4d-4e3a-9f7c-8d2e1a0b9c3d",
		Views: []model.View{
			view("left", "Left", 0, true, 600, 250, val(ms["mug-left"]),
				[]model.Area{area("wrap", "Wrap", 20, 15, 560, 220), area("logo-box", "Logo", 60, 35, 180, 180)},
				mugX, bg, logo, dad),
			view("right", "Right", 1, false, 600, 250, val(ms["mug-right"]),
				[]model.Area{area("photo-window", "Photo", 320, 30, 240, 190)},
				export(model.AreaTypeTemplate, nil, model.ExportPNG, 150, false, "[id]-[title]"),
				window, bday),
		},
	})

	// 1003: a single-view greeting card, pdf-simple with a JPEG template.
	card := common(model.DesignDetail{
		ID: "6561f1b2c3d4e5f601001003", Name: "Greeting Card", ProductID: "card-a6",
		URL: "https://shop.example.com/products/greeting-card?design=1003", Created: "2024-05-20T16:45:00.000Z",
		Updated: "2024-05-20T16:45:00.000Z", ConfigurationID: 1003, Token: "e4b7c1d9-3a2f-4b8e-a6d5-7c9e0f1a2b3c",
		Views: []model.View{
			view("card", "Card", 0, true, 420, 298, val(ms["card"]),
				[]model.Area{area("inner", "Inner", 20, 20, 380, 258)},
				export(model.AreaTypeTemplate, nil, model.ExportPDFSimple, 300, true, "[id]-[title]-[date]"),
				func() model.Element {
					e := background("paper", 0, col("White", "#ffffff", false), col("Blush", "#fde2e4", false))
					e.AllowTransparant, e.Area = pb(true), ps("inner")
					return e
				}(),
				func() model.Element {
					// 600 px at scale 1/6: 100 pt wide, 432 dpi on the card.
					e := picture("logo", 1, val(ms["logo"]), 330, 90, "none", 1.0/6)
					e.Area = ps("inner")
					return e
				}(),
				func() model.Element {
					e := text("dear", 2, tv("en", "Dear Anna,\nall the best!", "de", "Liebe Anna,\nalles Gute!"), 180, 170, 28)
					e.Active, e.Area, e.Multiline, e.Italic = pb(true), ps("inner"), pb(true), pb(true)
					e.Colors = []model.Color{col("Plum", "#6a1b9a", true)}
					e.DefaultFontRaw = raw(`"DejaVu Serif"`)
					return e
				}()),
		},
	})
	return []model.DesignDetail{shirt, mug, card}
}
