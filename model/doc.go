// Package model holds the personalization hub's resources as Go types: orders,
// templates, design details, views, elements, media and design references. Unknown and
// unexplained fields, and nulls, survive decode -> encode, so a document read from the
// hub can be written back unchanged.
//
// It has no network code: the renderer and the file namer depend on it alone, while
// the signed HTTP client lives in package hub, which decodes into these types.
package model
