package hub

import (
	"fmt"
	"github.com/printworker/printworker/model"
	"net/url"
	"strconv"
)

// Version is an API version: the first path segment after the base address (spec 9).
type Version string

const (
	V1     Version = "v1"
	V2022  Version = "2022-08"
	V2023  Version = "2023-10"
	latest         = V2023
)

// ParseVersion accepts the three versions the spec documents.
func ParseVersion(s string) (Version, error) {
	switch Version(s) {
	case V1, V2022, V2023:
		return Version(s), nil
	}
	return "", fmt.Errorf("hub API version %q: want v1, 2022-08 or 2023-10", s)
}

// Headers are the authentication header names of one version (spec 5, hub-gaps.md).
type Headers struct {
	Store     string // store id: X-<Word>-Shop before 2023-10, X-<Word>-Store from it
	APIKey    string
	Signature string
	// Domain is the v1 domain header (v1 sent the order domain in a header).
	Domain string
}

// DefaultWord is the neutral vendor word the spec writes in header names.
const DefaultWord = "Service"

// HeadersFor returns the header names of version v with word standing in the names.
// Real deployments use the vendor's word, which changed with 2023-10, so the word is
// configured per version.
func HeadersFor(v Version, word string) Headers {
	if word == "" {
		word = DefaultWord
	}
	p := "X-" + word + "-"
	h := Headers{Store: p + "Shop", APIKey: p + "Api-Key", Signature: p + "Api-Signature", Domain: p + "Domain"}
	if v == V2023 {
		h.Store = p + "Store"
	}
	return h
}

// Paths builds the request paths of each operation for one version.

// OrderPath: create (orderID "") or update/delete (orderID set).
func OrderPath(v Version, orderID string) string {
	base := "/" + string(v) + "/orders"
	if v == V1 {
		base = "/v1/order"
	}
	if orderID == "" {
		return base
	}
	return base + "/" + url.PathEscape(orderID)
}

// TemplatePath: list/create (id "") or get/update/delete.
func TemplatePath(v Version, id string) string {
	if id == "" {
		return "/" + string(v) + "/templates"
	}
	return "/" + string(v) + "/templates/" + url.PathEscape(id)
}

// DesignPath: design details.
func DesignPath(v Version, ref model.DesignRef) string {
	id, tok := strconv.FormatInt(ref.ID, 10), url.PathEscape(ref.Token)
	switch v {
	case V1:
		return "/v1/configuration/" + id + "/" + tok
	case V2022:
		return "/2022-08/customizations/" + id + "/" + tok
	}
	return "/" + string(v) + "/designs/" + id + "/" + tok
}

// ExportPath: export all (viewID "") or one view.
func ExportPath(v Version, ref model.DesignRef, viewID string) string {
	id, tok := strconv.FormatInt(ref.ID, 10), url.PathEscape(ref.Token)
	if v == V1 {
		if viewID == "" {
			return "/v1/configuration/" + id + "/" + tok + "/export"
		}
		return "/v1/configuration/" + id + "/" + tok + "/view/" + url.PathEscape(viewID) + "/export"
	}
	p := "/" + string(v) + "/export/" + id + "/" + tok
	if viewID != "" {
		p += "/view/" + url.PathEscape(viewID)
	}
	return p
}
