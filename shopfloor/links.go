package shopfloor

import (
	"html/template"
	"net/url"
	"strings"
)

// Linker turns a stored object's key into the link a page holds: a template.URL (a
// relative path RelLink escaped) or an absolute URL as a plain string, which
// html/template sanitizes (a presigned link in a private bucket). A key of "" gives an
// empty link.
type Linker func(key string) (any, error)

// RelLinker links by relative, escaped paths from folder dir.
func RelLinker(dir string) Linker {
	return func(key string) (any, error) {
		if key == "" {
			return template.URL(""), nil
		}
		// RelLink escapes every segment; template.URL keeps html/template from
		// rewriting the ".." segments.
		return template.URL(RelLink(dir, key)), nil
	}
}

// RelLink is the relative, escaped link from folder dir to key, so a page works from
// a hot folder opened in a browser and from a bucket website alike.
func RelLink(dir, key string) string {
	var from []string
	if dir != "." && dir != "" {
		from = strings.Split(dir, "/")
	}
	to := strings.Split(key, "/")
	i := 0
	for i < len(from) && i < len(to)-1 && from[i] == to[i] {
		i++
	}
	var parts []string
	for range from[i:] {
		parts = append(parts, "..")
	}
	for _, s := range to[i:] {
		parts = append(parts, url.PathEscape(s))
	}
	out := strings.Join(parts, "/")
	if strings.Contains(parts[0], ":") {
		out = "./" + out // never read as a scheme (javascript:)
	}
	return out
}
