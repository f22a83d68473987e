package hubsim

import (
	"fmt"

	"github.com/printworker/printworker/model"
)

// ValidateViews checks the template rules of the spec (2.6-2.11, 8) on a template's or
// a design's views and names the first offending field, e.g. "views[0].elements[2].area":
//   - view ids are present and unique; at most one view is active;
//   - area ids are unique; an element's area and scaleArea name an area of its view;
//   - element ids are unique in a view; at most one element per view is active;
//   - element type is text, picture, illustration or background;
//   - rotation is within 0..360; at most one colour per colors array is the default;
//   - export.areaType is template, custom or area; export.type is png, pdf or
//     pdf-simple; export.area names an area when areaType is area; a custom export box
//     has a positive size; export.dpi is positive.
func ValidateViews(views []model.View) error {
	if len(views) == 0 {
		return badField("views", "a template needs at least one view")
	}
	activeView := -1
	viewIDs := map[string]bool{}
	for i := range views {
		v := &views[i]
		p := fmt.Sprintf("views[%d]", i)
		if v.ID == "" {
			return badField(p+".id", "required")
		}
		if viewIDs[v.ID] {
			return badField(p+".id", "view id %q is used twice", v.ID)
		}
		viewIDs[v.ID] = true
		if v.Active {
			if activeView >= 0 {
				return badField(p+".active", "only one view may be active (views[%d] is)", activeView)
			}
			activeView = i
		}
		if err := validateView(v, p); err != nil {
			return err
		}
	}
	return nil
}

func validateView(v *model.View, p string) error {
	areas := map[string]bool{}
	for j, a := range v.Areas {
		ap := fmt.Sprintf("%s.areas[%d]", p, j)
		if a.ID == "" {
			return badField(ap+".id", "required")
		}
		if areas[a.ID] {
			return badField(ap+".id", "area id %q is used twice", a.ID)
		}
		areas[a.ID] = true
	}
	activeEl := -1
	elIDs := map[string]bool{}
	for j := range v.Elements {
		e := &v.Elements[j]
		ep := fmt.Sprintf("%s.elements[%d]", p, j)
		if e.ID == "" {
			return badField(ep+".id", "required")
		}
		if elIDs[e.ID] {
			return badField(ep+".id", "element id %q is used twice", e.ID)
		}
		elIDs[e.ID] = true
		if e.Active != nil && *e.Active {
			if activeEl >= 0 {
				return badField(ep+".active", "only one element per view may be active (elements[%d] is)", activeEl)
			}
			activeEl = j
		}
		if err := validateElement(e, ep, areas, true); err != nil {
			return err
		}
	}
	for _, d := range []struct {
		name string
		e    *model.Element
	}{{"addText", v.AddText}, {"addPicture", v.AddPicture}, {"addArtwork", v.AddArtwork}} {
		if d.e != nil {
			if err := validateElement(d.e, p+"."+d.name, areas, false); err != nil {
				return err
			}
		}
	}
	return validateExport(&v.Export, p+".export", areas)
}

func validateElement(e *model.Element, p string, areas map[string]bool, typed bool) error {
	switch e.Type {
	case model.ElementText, model.ElementPicture, model.ElementIllustration, model.ElementBackground:
	case "":
		// Defaults for added elements (addText...) carry their type implicitly.
		if typed {
			return badField(p+".type", "required: text, picture, illustration or background")
		}
	default:
		return badField(p+".type", "%q is not text, picture, illustration or background", e.Type)
	}
	for _, ref := range []struct {
		name string
		id   *string
	}{{"area", e.Area}, {"scaleArea", e.ScaleArea}} {
		if ref.id != nil && *ref.id != "" && !areas[*ref.id] {
			return badField(p+"."+ref.name, "%q is not an area of the view", *ref.id)
		}
	}
	if e.Rotation != nil && (*e.Rotation < 0 || *e.Rotation > 360) {
		return badField(p+".rotation", "%v is outside 0..360", *e.Rotation)
	}
	def := -1
	for k, c := range e.Colors {
		if c.Default {
			if def >= 0 {
				return badField(fmt.Sprintf("%s.colors[%d].default", p, k), "only one colour may be the default (colors[%d] is)", def)
			}
			def = k
		}
	}
	return nil
}

func validateExport(x *model.ViewExport, p string, areas map[string]bool) error {
	switch x.AreaType {
	case model.AreaTypeTemplate, model.AreaTypeCustom, model.AreaTypeArea:
	default:
		return badField(p+".areaType", "%q is not template, custom or area", x.AreaType)
	}
	switch x.Type {
	case model.ExportPNG, model.ExportPDF, model.ExportPDFSimple:
	default:
		return badField(p+".type", "%q is not png, pdf or pdf-simple", x.Type)
	}
	if x.AreaType == model.AreaTypeArea && (x.Area == nil || !areas[*x.Area]) {
		a := "null"
		if x.Area != nil {
			a = fmt.Sprintf("%q", *x.Area)
		}
		return badField(p+".area", "%s is not an area of the view (areaType is area)", a)
	}
	if x.AreaType == model.AreaTypeCustom && (x.Width <= 0 || x.Height <= 0) {
		return badField(p+".width", "a custom export box needs a positive width and height")
	}
	if x.DPI <= 0 {
		return badField(p+".dpi", "must be positive")
	}
	return nil
}
