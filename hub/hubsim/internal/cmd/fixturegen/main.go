// Command fixturegen rewrites hub/hubsim/testdata (see package fixturegen).
//
//	go run ./hub/hubsim/internal/cmd/fixturegen -out hub/hubsim/testdata
package main

import (
	"flag"
	"log"

	"github.com/printworker/printworker/hub/hubsim/internal/fixturegen"
)

func main() {
	out := flag.String("out", "hub/hubsim/testdata", "fixture folder to (re)write")
	flag.Parse()
	if err := fixturegen.Generate(*out); err != nil {
		log.Fatal(err)
	}
}
