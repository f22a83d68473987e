package hub

import "github.com/printworker/printworker/hub/model"

// The resource models live in hub/model so that the renderer can depend on them
// without pulling in the signed HTTP client (net/http, crypto/hmac). These aliases keep
// hub.Order, hub.DesignDetail and the rest usable by the client's callers.

type (
	Address         = model.Address
	Area            = model.Area
	Color           = model.Color
	DesignDetail    = model.DesignDetail
	DesignRef       = model.DesignRef
	Element         = model.Element
	LineItem        = model.LineItem
	Media           = model.Media
	MediaMeta       = model.MediaMeta
	MediaToken      = model.MediaToken
	Order           = model.Order
	Template        = model.Template
	TemplateList    = model.TemplateList
	TemplateSummary = model.TemplateSummary
	Translations    = model.Translations
	Value           = model.Value
	View            = model.View
	ViewExport      = model.ViewExport
)

const (
	AreaTypeTemplate = model.AreaTypeTemplate
	AreaTypeCustom   = model.AreaTypeCustom
	AreaTypeArea     = model.AreaTypeArea

	ExportPNG       = model.ExportPNG
	ExportPDF       = model.ExportPDF
	ExportPDFSimple = model.ExportPDFSimple

	ElementText         = model.ElementText
	ElementPicture      = model.ElementPicture
	ElementIllustration = model.ElementIllustration
	ElementBackground   = model.ElementBackground
)

// Decoding and constructors, forwarded.
var (
	DecodeDesign    = model.DecodeDesign
	DecodeTemplate  = model.DecodeTemplate
	ParseDesignRef  = model.ParseDesignRef
	NewTranslations = model.NewTranslations
	MediaIDValue    = model.MediaIDValue
	MediaValue      = model.MediaValue
	TextValue       = model.TextValue
)
