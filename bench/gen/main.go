// Command gen writes the reference designs of the benchmarks and their media
// (package refdesign) into a folder, testdata/bench by default:
//
//	go run ./bench/gen [-out testdata/bench] [name ...]
//
// The JPEG photos are not committed (the poster's is tens of MB); bench/peers.sh runs
// this first. Output is deterministic for a given Go release.
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/printworker/printworker/bench/refdesign"
)

func main() {
	out := flag.String("out", "testdata/bench", "folder to write designs/ and media/ into")
	flag.Usage = func() {
		fmt.Fprintf(flag.CommandLine.Output(), "usage: gen [-out dir] [design ...]\ndesigns: %v\n", refdesign.Names)
		flag.PrintDefaults()
	}
	flag.Parse()
	if err := refdesign.Write(*out, flag.Args()...); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}
