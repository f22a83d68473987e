package main

import (
	"flag"

	"github.com/printworker/printworker/shopfloor"
	"github.com/printworker/printworker/worker"
)

// shopFloorFlags choose thumbnails, job tickets and staff pages (docs/shop-floor.md).
type shopFloorFlags struct {
	thumbnails, staffPages bool
	ticketSize             string
}

func addShopFloorFlags(fs *flag.FlagSet) *shopFloorFlags {
	s := &shopFloorFlags{}
	fs.BoolVar(&s.thumbnails, "thumbnails", true, "write a 512 px JPEG preview next to each print file (--thumbnails=false: none)")
	fs.StringVar(&s.ticketSize, "ticket-size", shopfloor.TicketA4, "job ticket PDF per order: a4, letter, 4x6 (label) or off")
	fs.BoolVar(&s.staffPages, "staff-pages", true, "write a static index.html per order next to its files (--staff-pages=false: none)")
	return s
}

func (s *shopFloorFlags) config() (worker.ShopFloor, error) {
	size, err := shopfloor.ParseTicketSize(s.ticketSize)
	if err != nil {
		return worker.ShopFloor{}, usageError("--" + err.Error())
	}
	return worker.ShopFloor{NoThumbnails: !s.thumbnails, TicketSize: size, NoStaffPages: !s.staffPages}, nil
}
