package model

import (
	"bytes"
	"encoding/json"
	"strconv"
)

// The resources of the hub's interface (spec section 2). Field names follow the JSON.
// Every object type keeps the raw keys it was decoded from (see rawFields), so fields
// the spec does not explain, and fields the hub adds later, survive decode -> encode.

// Order is the body of order create and update (2.1). All properties are required;
// empty values are empty strings.
type Order struct {
	BillingDetails  Address    `json:"billingDetails"`
	ShippingDetails Address    `json:"shippingDetails"`
	Created         string     `json:"created"`
	Updated         string     `json:"updated"`
	Domain          string     `json:"domain"`
	Email           string     `json:"email"`
	FirstName       string     `json:"firstName"`
	LastName        string     `json:"lastName"`
	LineItems       []LineItem `json:"lineItems"`
	OrderID         string     `json:"orderId"`
	Status          string     `json:"status"`

	raw rawFields
}

// Address is a billing or shipping address (2.2); every field is required.
type Address struct {
	Address1    string `json:"address1"`
	Address2    string `json:"address2"`
	City        string `json:"city"`
	CompanyName string `json:"companyName"`
	Country     string `json:"country"`
	CountryCode string `json:"countryCode"`
	FirstName   string `json:"firstName"`
	LastName    string `json:"lastName"`
	Phone       string `json:"phone"`
	Province    string `json:"province"`
	Zip         string `json:"zip"`

	raw rawFields
}

// LineItem is one personalized order line (2.3): the design id and token, quantity
// and unit price.
type LineItem struct {
	ID       int64   `json:"id"`
	Token    string  `json:"token"`
	Quantity int     `json:"quantity"`
	Price    float64 `json:"price"`

	raw rawFields
}

// Ref returns the line item's design reference.
func (l LineItem) Ref() DesignRef { return DesignRef{ID: l.ID, Token: l.Token} }

// Template is the body of template create and update (2.5).
type Template struct {
	Name            string          `json:"name"`
	ProductID       string          `json:"productId"`
	Shop            string          `json:"shop"`
	Shopify         json.RawMessage `json:"shopify"`
	Static          bool            `json:"static"`
	Synchronization json.RawMessage `json:"synchronization"`
	Views           []View          `json:"views"`

	raw rawFields
}

// View is one side of a product (2.6), in templates and in design details.
type View struct {
	Active                 bool            `json:"active"`
	AddArtwork             *Element        `json:"addArtwork"`
	AddPicture             *Element        `json:"addPicture"`
	AddText                *Element        `json:"addText"`
	AllowRearrangeElements bool            `json:"allowRearrangeElements"`
	Areas                  []Area          `json:"areas"`
	CutOutMask             json.RawMessage `json:"cutOutMask"`
	Elements               []Element       `json:"elements"`
	Export                 ViewExport      `json:"export"`
	GroupElements          bool            `json:"groupElements"`
	Height                 float64         `json:"height"`
	ID                     string          `json:"id"`
	Name                   Translations    `json:"name"`
	Required               bool            `json:"required"`
	// Template is a media id in template payloads and a media object in designs.
	Template Value   `json:"template"`
	Weight   int     `json:"weight"`
	Width    float64 `json:"width"`

	raw rawFields
}

// AreaByID returns the view's area with the given id.
func (v *View) AreaByID(id string) (Area, bool) {
	for _, a := range v.Areas {
		if a.ID == id {
			return a, true
		}
	}
	return Area{}, false
}

// Area is a rectangle of a view in template pixels (2.7).
type Area struct {
	ID     string  `json:"id"`
	Name   string  `json:"name"`
	Height float64 `json:"height"`
	Width  float64 `json:"width"`
	X      float64 `json:"x"`
	Y      float64 `json:"y"`

	raw rawFields
}

// Export area types (2.8).
const (
	AreaTypeTemplate = "template"
	AreaTypeCustom   = "custom"
	AreaTypeArea     = "area"
)

// Export file types (2.8).
const (
	ExportPNG       = "png"
	ExportPDF       = "pdf"
	ExportPDFSimple = "pdf-simple"
)

// ViewExport holds a view's export settings (2.8).
type ViewExport struct {
	AreaType         string          `json:"areaType"`
	Area             *string         `json:"area"`
	X                float64         `json:"x"`
	Y                float64         `json:"y"`
	Width            float64         `json:"width"`
	Height           float64         `json:"height"`
	DPI              float64         `json:"dpi"`
	ExportTemplate   bool            `json:"exportTemplate"`
	ExportCutOutMask json.RawMessage `json:"exportCutOutMask"`
	Filename         string          `json:"filename"`
	Type             string          `json:"type"`
	Custom           json.RawMessage `json:"custom"`
	MergeDimensions  json.RawMessage `json:"mergeDimensions"`
	MergeInFile      json.RawMessage `json:"mergeInFile"`
	MergePosition    json.RawMessage `json:"mergePosition"`

	raw rawFields
}

// Element types (2.9).
const (
	ElementText         = "text"
	ElementPicture      = "picture"
	ElementIllustration = "illustration"
	ElementBackground   = "background"
)

// Element is one layer of a view (2.9-2.11). The four element types share one struct;
// fields a type does not carry stay nil and are not written. Fields whose meaning the
// spec does not give are kept as raw JSON, with accessors where the renderer needs them.
type Element struct {
	// Common (2.9).
	ID         string       `json:"id"`
	Type       string       `json:"type"`
	Name       Translations `json:"name,omitzero"`
	Active     *bool        `json:"active,omitempty"`
	Area       *string      `json:"area,omitempty"`
	Export     *bool        `json:"export,omitempty"`
	Removable  *bool        `json:"removable,omitempty"`
	Required   *bool        `json:"required,omitempty"`
	Section    *int         `json:"section,omitempty"`
	Selectable *bool        `json:"selectable,omitempty"`
	Weight     int          `json:"weight"`

	// Text (2.10).
	Align         *string  `json:"align,omitempty"`
	AllColors     *bool    `json:"allColors,omitempty"`
	Bold          *bool    `json:"bold,omitempty"`
	Italic        *bool    `json:"italic,omitempty"`
	Colors        []Color  `json:"colors,omitempty"`
	Draggable     *bool    `json:"draggable,omitempty"`
	Resizable     *bool    `json:"resizable,omitempty"`
	Rotatable     *bool    `json:"rotatable,omitempty"`
	MaxCharacters *int     `json:"maxCharacters,omitempty"`
	Fontsize      *float64 `json:"fontsize,omitempty"`
	MaxFontsize   *float64 `json:"maxFontsize,omitempty"`
	MinFontsize   *float64 `json:"minFontsize,omitempty"`
	Multiline     *bool    `json:"multiline,omitempty"`
	PositionX     *float64 `json:"positionX,omitempty"`
	PositionY     *float64 `json:"positionY,omitempty"`
	Rotation      *float64 `json:"rotation,omitempty"`
	// Value is translations for text, a media id / media object for pictures and
	// illustrations.
	Value *Value `json:"value,omitempty"`

	// Picture and illustration (2.11).
	AutoResize       *string  `json:"autoResize,omitempty"`
	Scale            *float64 `json:"scale,omitempty"`
	ScaleArea        *string  `json:"scaleArea,omitempty"`
	AllowTransparent *bool    `json:"allowTransparent,omitempty"`

	// Background (2.11); the spec spells it this way.
	AllowTransparant *bool `json:"allowTransparant,omitempty"`

	// Fields present in examples whose meaning is "not shown" (2.9): kept verbatim.
	Order             json.RawMessage `json:"order,omitempty"`
	ReadOnly          json.RawMessage `json:"readOnly,omitempty"`
	CharSpacingRaw    json.RawMessage `json:"charSpacing,omitempty"`
	CurveRadius       json.RawMessage `json:"curveRadius,omitempty"`
	Curvable          json.RawMessage `json:"curvable,omitempty"`
	DefaultFontRaw    json.RawMessage `json:"defaultFont,omitempty"`
	FontsRaw          json.RawMessage `json:"fonts,omitempty"`
	LineHeightRaw     json.RawMessage `json:"lineHeight,omitempty"`
	OriginRaw         json.RawMessage `json:"origin,omitempty"`
	AllowedExtensions json.RawMessage `json:"allowedExtensions,omitempty"`
	ColorizeRaw       json.RawMessage `json:"colorize,omitempty"`
	ColorizeToColor   json.RawMessage `json:"colorizeToColor,omitempty"`
	Custom            json.RawMessage `json:"custom,omitempty"`
	Fx                json.RawMessage `json:"fx,omitempty"`
	Groups            json.RawMessage `json:"groups,omitempty"`
	AllFonts          json.RawMessage `json:"allFonts,omitempty"`

	raw rawFields
}

// Exported reports whether the element goes into exports; absent means yes.
func (e *Element) Exported() bool { return e.Export == nil || *e.Export }

// Color is an entry of a colors array (2.10).
type Color struct {
	Name    Translations `json:"name"`
	Color   string       `json:"color"`
	Default bool         `json:"default"`

	raw rawFields
}

// Media is a media object inside a design (2.12).
type Media struct {
	ID           string    `json:"_id"`
	OriginalName string    `json:"originalname"`
	Token        string    `json:"token"`
	MimeType     string    `json:"mimetype"`
	Size         int64     `json:"size"`
	Meta         MediaMeta `json:"meta"`

	raw rawFields
}

// MediaMeta describes a media file's pixels.
type MediaMeta struct {
	HasAlpha bool    `json:"hasAlpha"`
	Height   float64 `json:"height"`
	Width    float64 `json:"width"`

	raw rawFields
}

// TemplateList is the response of list templates (2.13).
type TemplateList struct {
	Count   int               `json:"count"`
	Total   int               `json:"total"`
	Results []TemplateSummary `json:"results"`

	raw rawFields
}

// TemplateSummary is one entry of a template list (2.13).
type TemplateSummary struct {
	ID        string          `json:"_id"`
	Name      string          `json:"name"`
	ProductID string          `json:"productId"`
	Shopify   json.RawMessage `json:"shopify"`
	Static    bool            `json:"static"`
	Created   string          `json:"_created"`
	Updated   string          `json:"_updated"`
	Template  MediaToken      `json:"template"`

	raw rawFields
}

// MediaToken is the `template` object of a template summary.
type MediaToken struct {
	ID    string `json:"_id"`
	Token string `json:"token"`

	raw rawFields
}

// DesignDetail is the response of get design details (2.14).
type DesignDetail struct {
	ID              string          `json:"_id"`
	Static          bool            `json:"static"`
	Name            string          `json:"name"`
	Shop            string          `json:"shop"`
	ProductID       string          `json:"productId"`
	Views           []View          `json:"views"`
	Synchronization json.RawMessage `json:"synchronization"`
	Domain          string          `json:"domain"`
	URL             string          `json:"url"`
	Created         string          `json:"_created"`
	Updated         string          `json:"_updated"`
	ConfigurationID int64           `json:"configurationId"`
	Token           string          `json:"token"`

	raw rawFields
}

// ViewByID returns the design's view with the given id.
func (d *DesignDetail) ViewByID(id string) (*View, bool) {
	for i := range d.Views {
		if d.Views[i].ID == id {
			return &d.Views[i], true
		}
	}
	return nil, false
}

// Has reports whether the decoded JSON object carried key (null included). It lets
// validation tell a missing property from an empty one.
func (o *Order) Has(key string) bool { return o.raw == nil || o.raw.has(key) && !o.raw.isNull(key) }

// Has reports whether the decoded JSON object carried key with a non-null value.
func (a *Address) Has(key string) bool { return a.raw == nil || a.raw.has(key) && !a.raw.isNull(key) }

// Decoded reports whether the value came from JSON (as opposed to being built in Go),
// so that presence checks with Has are meaningful.
func (o *Order) Decoded() bool { return o.raw != nil }

// JSON encoding: every type delegates to marshalKeeping / unmarshalKeeping on a
// method-less alias so encoding/json does not recurse.

func (o Order) MarshalJSON() ([]byte, error) { type t Order; return marshalKeeping((*t)(&o), o.raw) }
func (o *Order) UnmarshalJSON(b []byte) error {
	type t Order
	return unmarshalKeeping(b, (*t)(o), &o.raw)
}
func (a Address) MarshalJSON() ([]byte, error) {
	type t Address
	return marshalKeeping((*t)(&a), a.raw)
}
func (a *Address) UnmarshalJSON(b []byte) error {
	type t Address
	return unmarshalKeeping(b, (*t)(a), &a.raw)
}
func (l LineItem) MarshalJSON() ([]byte, error) {
	type t LineItem
	return marshalKeeping((*t)(&l), l.raw)
}
func (l *LineItem) UnmarshalJSON(b []byte) error {
	type t LineItem
	return unmarshalKeeping(b, (*t)(l), &l.raw)
}
func (m Template) MarshalJSON() ([]byte, error) {
	type t Template
	return marshalKeeping((*t)(&m), m.raw)
}
func (m *Template) UnmarshalJSON(b []byte) error {
	type t Template
	return unmarshalKeeping(b, (*t)(m), &m.raw)
}
func (v View) MarshalJSON() ([]byte, error) { type t View; return marshalKeeping((*t)(&v), v.raw) }
func (v *View) UnmarshalJSON(b []byte) error {
	type t View
	return unmarshalKeeping(b, (*t)(v), &v.raw)
}
func (a Area) MarshalJSON() ([]byte, error) { type t Area; return marshalKeeping((*t)(&a), a.raw) }
func (a *Area) UnmarshalJSON(b []byte) error {
	type t Area
	return unmarshalKeeping(b, (*t)(a), &a.raw)
}
func (x ViewExport) MarshalJSON() ([]byte, error) {
	type t ViewExport
	return marshalKeeping((*t)(&x), x.raw)
}
func (x *ViewExport) UnmarshalJSON(b []byte) error {
	type t ViewExport
	return unmarshalKeeping(b, (*t)(x), &x.raw)
}
func (e Element) MarshalJSON() ([]byte, error) {
	type t Element
	return marshalKeeping((*t)(&e), e.raw, "id", "weight")
}
func (e *Element) UnmarshalJSON(b []byte) error {
	type t Element
	return unmarshalKeeping(b, (*t)(e), &e.raw)
}
func (c Color) MarshalJSON() ([]byte, error) { type t Color; return marshalKeeping((*t)(&c), c.raw) }
func (c *Color) UnmarshalJSON(b []byte) error {
	type t Color
	return unmarshalKeeping(b, (*t)(c), &c.raw)
}
func (m Media) MarshalJSON() ([]byte, error) { type t Media; return marshalKeeping((*t)(&m), m.raw) }
func (m *Media) UnmarshalJSON(b []byte) error {
	type t Media
	return unmarshalKeeping(b, (*t)(m), &m.raw)
}
func (m MediaMeta) MarshalJSON() ([]byte, error) {
	type t MediaMeta
	return marshalKeeping((*t)(&m), m.raw)
}
func (m *MediaMeta) UnmarshalJSON(b []byte) error {
	type t MediaMeta
	return unmarshalKeeping(b, (*t)(m), &m.raw)
}
func (l TemplateList) MarshalJSON() ([]byte, error) {
	type t TemplateList
	return marshalKeeping((*t)(&l), l.raw)
}
func (l *TemplateList) UnmarshalJSON(b []byte) error {
	type t TemplateList
	return unmarshalKeeping(b, (*t)(l), &l.raw)
}
func (s TemplateSummary) MarshalJSON() ([]byte, error) {
	type t TemplateSummary
	return marshalKeeping((*t)(&s), s.raw)
}
func (s *TemplateSummary) UnmarshalJSON(b []byte) error {
	type t TemplateSummary
	return unmarshalKeeping(b, (*t)(s), &s.raw)
}
func (m MediaToken) MarshalJSON() ([]byte, error) {
	type t MediaToken
	return marshalKeeping((*t)(&m), m.raw)
}
func (m *MediaToken) UnmarshalJSON(b []byte) error {
	type t MediaToken
	return unmarshalKeeping(b, (*t)(m), &m.raw)
}
func (d DesignDetail) MarshalJSON() ([]byte, error) {
	type t DesignDetail
	return marshalKeeping((*t)(&d), d.raw)
}
func (d *DesignDetail) UnmarshalJSON(b []byte) error {
	type t DesignDetail
	return unmarshalKeeping(b, (*t)(d), &d.raw)
}

// Accessors for the element fields whose meaning the spec does not give; the values
// and defaults follow hub-gaps.md ("Rendering conventions").

// CharSpacing is the extra space after each character in 1/1000 em (0 when absent).
func (e *Element) CharSpacing() float64 { return rawNumber(e.CharSpacingRaw, 0) }

// LineHeight is the line height factor of multi-line text as the design gives it, and
// whether it gives a usable one (a positive number). The default used when it does not
// is a rendering convention and lives in the renderer.
func (e *Element) LineHeight() (float64, bool) {
	v := rawNumber(e.LineHeightRaw, 0)
	return v, v > 0
}

// Origin is the element's origin keyword as the design gives it ("" when absent); how
// an absent or unknown keyword is read is the renderer's business.
func (e *Element) Origin() string { return rawString(e.OriginRaw) }

// DefaultFont is the element's font family, "" when absent.
func (e *Element) DefaultFont() string { return rawString(e.DefaultFontRaw) }

// Fonts lists the font families offered by the element. Entries may be strings or
// objects carrying a name/family; both are read.
func (e *Element) Fonts() []string {
	var items []json.RawMessage
	if json.Unmarshal(e.FontsRaw, &items) != nil {
		return nil
	}
	var out []string
	for _, it := range items {
		if s := rawString(it); s != "" {
			out = append(out, s)
			continue
		}
		var obj map[string]json.RawMessage
		if json.Unmarshal(it, &obj) == nil {
			for _, k := range []string{"name", "family", "font", "title"} {
				if s := rawString(obj[k]); s != "" {
					out = append(out, s)
					break
				}
			}
		}
	}
	return out
}

// Colorize reports whether the illustration is recoloured with the element colour.
func (e *Element) Colorize() bool {
	var b bool
	if json.Unmarshal(e.ColorizeRaw, &b) == nil {
		return b
	}
	return false
}

// ColorizeColor returns colorizeToColor when it holds a colour string, else "".
func (e *Element) ColorizeColor() string { return rawString(e.ColorizeToColor) }

// ElementColor is the colour entry marked default, else the first, else "".
func (e *Element) ElementColor() string {
	for _, c := range e.Colors {
		if c.Default {
			return c.Color
		}
	}
	if len(e.Colors) > 0 {
		return e.Colors[0].Color
	}
	return ""
}

func rawString(r json.RawMessage) string {
	var s string
	if json.Unmarshal(r, &s) == nil {
		return s
	}
	return ""
}

func rawNumber(r json.RawMessage, def float64) float64 {
	r = bytes.TrimSpace(r)
	if len(r) == 0 || bytes.Equal(r, []byte("null")) {
		return def
	}
	var f float64
	if json.Unmarshal(r, &f) == nil {
		return f
	}
	// Some designers send numbers as strings.
	if s := rawString(r); s != "" {
		if f, err := strconv.ParseFloat(s, 64); err == nil {
			return f
		}
	}
	return def
}
