package main

import (
	"errors"
	"flag"
	"fmt"
	"time"
	// Ticket time zones load without the system's zoneinfo (a distroless image).
	_ "time/tzdata"

	"github.com/printworker/printworker/shopfloor"
	"github.com/printworker/printworker/worker"
)

// shopFloorFlags choose thumbnails, job tickets and staff pages (docs/shop-floor.md).
type shopFloorFlags struct {
	thumbnails, staffPages bool
	ticketSize, shipTo     string
	timeZone               string
	storeTimeZones         mapFlag
	dayPageDelay           time.Duration
}

func addShopFloorFlags(fs *flag.FlagSet) *shopFloorFlags {
	s := &shopFloorFlags{}
	fs.BoolVar(&s.thumbnails, "thumbnails", true, "write a 512 px JPEG preview next to each print file (--thumbnails=false: none)")
	fs.StringVar(&s.ticketSize, "ticket-size", shopfloor.TicketA4, "job ticket PDF per order: a4, letter, 4x6 (label) or off")
	fs.StringVar(&s.shipTo, "ticket-ship-to", shopfloor.ShipToFull, "what job tickets show of the ship-to address: full (name, company, address), name or none")
	fs.StringVar(&s.timeZone, "ticket-time-zone", "UTC", "time zone of the order date on job tickets (an IANA name: Europe/Berlin)")
	fs.Var(&s.storeTimeZones, "ticket-store-time-zone", "store=zone, repeatable: the time zone of one store's job tickets")
	fs.BoolVar(&s.staffPages, "staff-pages", true, "write a static index.html per order next to its files (--staff-pages=false: none)")
	fs.DurationVar(&s.dayPageDelay, "day-page-delay", worker.DefaultDayPageDelay, "how long the day page's build waits after a completion, so the completions of a burst share one build (0: at once)")
	return s
}

func (s *shopFloorFlags) config() (worker.ShopFloor, error) {
	var errs []error
	size, err := shopfloor.ParseTicketSize(s.ticketSize)
	if err != nil {
		errs = append(errs, errors.New("--"+err.Error()))
	}
	shipTo, err := shopfloor.ParseShipTo(s.shipTo)
	if err != nil {
		errs = append(errs, errors.New("--"+err.Error()))
	}
	zone := func(flag, name string) *time.Location {
		loc, err := time.LoadLocation(name)
		if err != nil || name == "" {
			errs = append(errs, fmt.Errorf("--%s %q: not a time zone (want an IANA name like Europe/Berlin)", flag, name))
		}
		return loc
	}
	tz := zone("ticket-time-zone", s.timeZone)
	stores := map[string]*time.Location{}
	for store, name := range s.storeTimeZones {
		stores[store] = zone("ticket-store-time-zone "+store, name)
	}
	if s.dayPageDelay < 0 {
		errs = append(errs, fmt.Errorf("--day-page-delay %s is negative", s.dayPageDelay))
	}
	if len(errs) > 0 {
		return worker.ShopFloor{}, usageError(errors.Join(errs...).Error())
	}
	delay := s.dayPageDelay
	if delay == 0 {
		delay = -1 // the worker reads 0 as its default; the flag's 0 means none
	}
	return worker.ShopFloor{NoThumbnails: !s.thumbnails, TicketSize: size, NoStaffPages: !s.staffPages,
		ShipTo: shipTo, TimeZone: tz, StoreTimeZones: stores, DayPageDelay: delay}, nil
}
