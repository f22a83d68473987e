package shopfloor

import (
	"slices"
	"strings"
	"testing"

	"github.com/printworker/printworker/internal/imgcheck"
	"github.com/printworker/printworker/model"
)

// TestAddressLines: each country's address in its own order (libaddressinput's
// layouts): the UK's postcode after the city on a line of its own, the US's city,
// state and ZIP on one line, Germany's postcode before the city, Japan's Latin and
// Japanese layouts, a missing field leaving no stray comma or mark, and the default
// for a country not listed.
func TestAddressLines(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		a    model.Address
		want []string
	}{
		{"GB", model.Address{Address1: "10 Downing Street", City: "London", Zip: "SW1A 2AA", Country: "United Kingdom", CountryCode: "GB"},
			[]string{"Ann Lee", "10 Downing Street", "London", "SW1A 2AA", "United Kingdom GB"}},
		{"US", model.Address{CompanyName: "Acme", Address1: "1 Main St", Address2: "Apt 4", City: "Springfield", Province: "IL", Zip: "62701", Country: "United States", CountryCode: "US"},
			[]string{"Ann Lee", "Acme", "1 Main St", "Apt 4", "Springfield, IL 62701", "United States US"}},
		{"US without state", model.Address{Address1: "1 Main St", City: "Springfield", Zip: "62701", CountryCode: "us"},
			[]string{"Ann Lee", "1 Main St", "Springfield 62701", "us"}},
		{"CA", model.Address{Address1: "111 Wellington St", City: "Ottawa", Province: "ON", Zip: "K1A 0A9", CountryCode: "CA"},
			[]string{"Ann Lee", "111 Wellington St", "Ottawa ON K1A 0A9", "CA"}},
		{"AU", model.Address{CompanyName: "Acme", Address1: "1 George St", City: "Sydney", Province: "NSW", Zip: "2000", CountryCode: "AU"},
			[]string{"Acme", "Ann Lee", "1 George St", "Sydney NSW 2000", "AU"}},
		{"DE", model.Address{Address1: "Unter den Linden 1", City: "Berlin", Zip: "10117", Province: "Berlin", Country: "Deutschland", CountryCode: "DE"},
			[]string{"Ann Lee", "Unter den Linden 1", "10117 Berlin", "Deutschland DE"}},
		{"FR", model.Address{CompanyName: "Atelier", Address1: "5 rue de Rivoli", City: "Paris", Zip: "75001", CountryCode: "FR"},
			[]string{"Atelier", "Ann Lee", "5 rue de Rivoli", "75001 Paris", "FR"}},
		{"JP Latin", model.Address{Address1: "1-1 Chiyoda", City: "Chiyoda-ku", Province: "Tokyo", Zip: "100-0001", CountryCode: "JP"},
			[]string{"Ann Lee", "1-1 Chiyoda, Tokyo", "100-0001", "JP"}},
		{"JP Japanese", model.Address{Address1: "千代田1-1", City: "千代田区", Province: "東京都", Zip: "100-0001", CountryCode: "JP"},
			[]string{"〒100-0001", "東京都千代田区", "千代田1-1", "Ann Lee", "JP"}},
		{"JP mixed scripts", model.Address{Address1: "1-2-3 Shibuya", City: "東京", Province: "Tokyo", Zip: "150-0002", CountryCode: "JP"},
			[]string{"〒150-0002", "Tokyo 東京", "1-2-3 Shibuya", "Ann Lee", "JP"}},
		{"JP Japanese without postcode", model.Address{Address1: "千代田1-1", City: "千代田区", Province: "東京都", CountryCode: "JP"},
			[]string{"東京都千代田区", "千代田1-1", "Ann Lee", "JP"}},
		{"default", model.Address{Address1: "Rua Augusta 12", City: "Luanda", Zip: "1100", Province: "Luanda", CountryCode: "AO"},
			[]string{"Ann Lee", "Rua Augusta 12", "1100 Luanda", "Luanda", "AO"}},
		{"nothing but a name", model.Address{}, []string{"Ann Lee"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := AddressLines(tc.a, "Ann Lee"); !slices.Equal(got, tc.want) {
				t.Errorf("got  %q\nwant %q", got, tc.want)
			}
		})
	}
}

func TestPersonName(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		a    model.Address
		want string
	}{
		{model.Address{FirstName: "Ann", LastName: "Lee", CountryCode: "US"}, "Ann Lee"},
		{model.Address{FirstName: "健二", LastName: "佐藤", CountryCode: "JP"}, "佐藤 健二"},
		{model.Address{FirstName: "Kenji", LastName: "Sato", CountryCode: "JP"}, "Kenji Sato"},
		{model.Address{FirstName: "健二", LastName: "佐藤", CountryCode: "US"}, "健二 佐藤"},
		{model.Address{LastName: "Lee"}, "Lee"},
	} {
		if got := PersonName(tc.a); got != tc.want {
			t.Errorf("PersonName(%+v) = %q, want %q", tc.a, got, tc.want)
		}
	}
}

// TestTicketGuestPhoneUK: a guest order's ticket (no name in the shipping address)
// names the customer, shows the ship-to phone, and prints a UK postcode after the
// city.
func TestTicketGuestPhoneUK(t *testing.T) {
	t.Parallel()
	pdftotext := imgcheck.Tool(t, "pdftotext", "Debian poppler-utils")
	o := sampleOrder(t)
	o.Customer = "Guest Person"
	o.ShipTo = model.Address{Address1: "221B Baker Street", City: "London", Zip: "NW1 6XE", Country: "United Kingdom", CountryCode: "GB", Phone: "+44 20 7946 0958"}
	out := runTool(t, pdftotext, "-layout", writeTicket(t, o, TicketOptions{}), "-")
	i := strings.Index(out, "Ship to")
	if i < 0 {
		t.Fatalf("no ship-to block:\n%s", out)
	}
	var lines []string
	for _, l := range strings.Split(out[i:], "\n")[1:8] {
		lines = append(lines, strings.TrimSpace(l))
	}
	want := []string{"Guest Person", "221B Baker Street", "London", "NW1 6XE", "United Kingdom GB", "Phone +44 20 7946 0958"}
	if !slices.Equal(lines[:len(want)], want) {
		t.Errorf("ship-to lines %q, want %q", lines, want)
	}
}

// FuzzAddressLines: any address gives lines that are trimmed, non-empty and single
// lines, whatever its country code and fields hold.
func FuzzAddressLines(f *testing.F) {
	f.Add("GB", "10 Downing St", "", "London", "SW1A 2AA", "", "Ann")
	f.Add("JP", "千代田1-1", "", "千代田区", "100-0001", "東京都", "")
	f.Add("US", "%n%A", "%Z", "%", ",", "-", "%N")
	f.Fuzz(func(t *testing.T, cc, a1, a2, city, zip, province, name string) {
		for _, l := range AddressLines(model.Address{CountryCode: cc, Address1: a1, Address2: a2, City: city, Zip: zip, Province: province}, name) {
			if l == "" || l != strings.TrimSpace(l) || strings.Contains(l, "\n") {
				t.Fatalf("line %q", l)
			}
		}
	})
}
