package main

import (
	"flag"
	"io"
	"strings"
	"testing"
)

// TestShopFloorFlags: the ticket settings reach the worker's config; a bad size,
// ship-to or time zone is a usage error naming the flag, every one at once.
func TestShopFloorFlags(t *testing.T) {
	t.Parallel()
	parse := func(args ...string) (*shopFloorFlags, error) {
		fs := flag.NewFlagSet("work", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		s := addShopFloorFlags(fs)
		return s, fs.Parse(args)
	}
	s, err := parse("--ticket-ship-to", "name", "--ticket-time-zone", "Europe/Lisbon", "--ticket-store-time-zone", "s1=Asia/Tokyo,s2=America/New_York")
	if err != nil {
		t.Fatal(err)
	}
	c, err := s.config()
	if err != nil {
		t.Fatal(err)
	}
	if c.ShipTo != "name" || c.TimeZone.String() != "Europe/Lisbon" || c.StoreTimeZones["s1"].String() != "Asia/Tokyo" || c.StoreTimeZones["s2"].String() != "America/New_York" {
		t.Errorf("config %+v", c)
	}
	s, _ = parse()
	if c, err := s.config(); err != nil || c.ShipTo != "full" || c.TimeZone.String() != "UTC" || c.TicketSize != "a4" {
		t.Errorf("defaults: %+v, %v", c, err)
	}
	s, _ = parse("--ticket-size", "a3", "--ticket-ship-to", "street", "--ticket-time-zone", "Mars/Olympus", "--ticket-store-time-zone", "s1=Nowhere/At_All")
	_, err = s.config()
	for _, want := range []string{"--ticket size \"a3\"", "--ticket ship-to \"street\"", "--ticket-time-zone \"Mars/Olympus\"", "--ticket-store-time-zone s1 \"Nowhere/At_All\""} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v lacks %q", err, want)
		}
	}
}
