package shopfloor

import (
	"strings"
	"unicode/utf8"

	"github.com/printworker/printworker/model"
)

// Address layouts by country, after the formats of Google's libaddressinput (the
// data CLDR and Android use): %N name, %O organisation, %A the street lines, %C city,
// %S state or province, %Z postcode, %n a new line. A layout for the local script
// (Japan, China, Korea: postcode and region first, the name last) is used only when
// the address is written in it; a Latin address takes the Latin layout. Countries not
// listed take defaultAddressLayout. The country itself is the last line
// (docs/shop-floor.md "Job ticket").
var addressLayouts = map[string]string{
	"US": "%N%n%O%n%A%n%C, %S %Z",
	"CA": "%N%n%O%n%A%n%C %S %Z",
	"AU": "%O%n%N%n%A%n%C %S %Z",
	"NZ": "%N%n%O%n%A%n%C %Z",
	"GB": "%N%n%O%n%A%n%C%n%Z",
	"IE": "%N%n%O%n%A%n%C%n%S%n%Z",
	"DE": "%N%n%O%n%A%n%Z %C",
	"AT": "%O%n%N%n%A%n%Z %C",
	"CH": "%O%n%N%n%A%n%Z %C",
	"FR": "%O%n%N%n%A%n%Z %C",
	"BE": "%O%n%N%n%A%n%Z %C",
	"NL": "%O%n%N%n%A%n%Z %C",
	"IT": "%N%n%O%n%A%n%Z %C %S",
	"ES": "%N%n%O%n%A%n%Z %C %S",
	"PT": "%N%n%O%n%A%n%Z %C",
	"BR": "%O%n%N%n%A%n%C-%S%n%Z",
	"MX": "%N%n%O%n%A%n%Z %C, %S",
	"IN": "%N%n%O%n%A%n%C %Z%n%S",
	"JP": "%N%n%O%n%A, %S%n%Z",
	"CN": "%N%n%O%n%A%n%C%n%S, %Z",
	"KR": "%N%n%O%n%A%n%C%n%S%n%Z",
}

// localAddressLayouts are the layouts of addresses written in the country's own
// script (largest unit first, the name last).
var localAddressLayouts = map[string]string{
	"JP": "〒%Z%n%S%C%n%A%n%O%n%N",
	"CN": "%Z%n%S%C%n%A%n%O%n%N",
	"KR": "%S %C%n%A%n%O%n%N%n%Z",
}

// defaultAddressLayout: the postcode before the city, as most of Europe and many
// other countries write it, then the region.
const defaultAddressLayout = "%N%n%O%n%A%n%Z %C%n%S"

// AddressLines are the lines of address a (its name: name) in the layout of its
// country, empty lines and empty fields left out, the country last.
func AddressLines(a model.Address, name string) []string {
	cc := strings.ToUpper(strings.TrimSpace(a.CountryCode))
	layout, ok := addressLayouts[cc]
	if !ok {
		layout = defaultAddressLayout
	}
	if local, ok := localAddressLayouts[cc]; ok && !latin(a) {
		layout = local
	}
	fields := map[byte]string{
		'N': oneLine(name), 'O': oneLine(a.CompanyName), 'C': oneLine(a.City), 'S': oneLine(a.Province), 'Z': oneLine(a.Zip),
		'A': strings.Join(nonEmpty(oneLine(a.Address1), oneLine(a.Address2)), "\n"),
	}
	var out []string
	for _, row := range strings.Split(layout, "%n") {
		for _, l := range strings.Split(fill(row, fields), "\n") {
			if l = strings.TrimSpace(l); l != "" {
				out = append(out, l)
			}
		}
	}
	if c := strings.TrimSpace(oneLine(a.Country + " " + a.CountryCode)); c != "" {
		out = append(out, c)
	}
	return out
}

// fill writes the fields into one row of a layout. The literal text before a field
// (", ", " ", "-", "〒") is written only when that field has a value, so a missing
// province leaves no dangling comma and a missing postcode no "〒".
func fill(row string, fields map[byte]string) string {
	var b strings.Builder
	pending := ""
	for i := 0; i < len(row); i++ {
		if row[i] != '%' || i+1 == len(row) {
			pending += row[i : i+1]
			continue
		}
		i++
		if v := strings.TrimSpace(fields[row[i]]); v != "" {
			if b.Len() > 0 || !strings.ContainsAny(pending, ",-") {
				b.WriteString(pending)
			}
			// Fields a local layout writes together (東京都千代田区) keep a space
			// when either side is not CJK (Tokyo 東京).
			if pending == "" && b.Len() > 0 {
				last, _ := utf8.DecodeLastRuneInString(b.String())
				first, _ := utf8.DecodeRuneInString(v)
				if last < 0x2E80 || first < 0x2E80 {
					b.WriteByte(' ')
				}
			}
			b.WriteString(v)
		}
		pending = ""
	}
	return b.String()
}

// PersonName is the name of address a as its country writes it: the family name
// first for a Japanese, Chinese or Korean name written in its own script (佐藤 健二),
// else the given name first.
func PersonName(a model.Address) string {
	first, last := strings.TrimSpace(oneLine(a.FirstName)), strings.TrimSpace(oneLine(a.LastName))
	cc := strings.ToUpper(strings.TrimSpace(a.CountryCode))
	if _, ok := localAddressLayouts[cc]; ok && !latin(model.Address{FirstName: first, LastName: last}) {
		return strings.TrimSpace(last + " " + first)
	}
	return strings.TrimSpace(first + " " + last)
}

// latin reports whether the address is written without CJK characters.
func latin(a model.Address) bool {
	for _, r := range a.Address1 + a.Address2 + a.City + a.Province + a.CompanyName + a.FirstName + a.LastName {
		if r >= 0x2E80 {
			return false
		}
	}
	return true
}

// oneLine turns the line breaks and other control characters a store sent inside a
// field into spaces: the layout alone decides the lines.
func oneLine(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || r == '\u2028' || r == '\u2029' || r == '\u0085' {
			return ' '
		}
		return r
	}, s)
}

func nonEmpty(ss ...string) []string {
	var out []string
	for _, s := range ss {
		if strings.TrimSpace(s) != "" {
			out = append(out, s)
		}
	}
	return out
}
