// Command fixturegen rewrites hubsim/testdata (see package fixturegen).
//
//	go run ./hubsim/internal/cmd/fixturegen -out hubsim/testdata
package main

import (
	"flag"
	"log"

	"github.com/printworker/printworker/hubsim/internal/fixturegen"
)

func main() {
	out := flag.String("out", "hubsim/testdata", "fixture folder to (re)write")
	flag.Parse()
	if err := fixturegen.Generate(*out); err != nil {
		log.Fatal(err)
	}
}
