// Package testparallel sets how many parallel tests a test binary runs at once, for
// packages whose tests mostly wait: on queues, retries, leases and servers of their
// own, not on the CPU. go test's default is GOMAXPROCS (2 on a 2-core machine), which
// leaves such a package's wall time the sum of its waits.
package testparallel

import (
	"flag"
	"strconv"
)

// AtLeast raises -test.parallel to n unless the command line names it (then that
// stands). Call it from TestMain before m.Run; it parses the flags if nobody has.
func AtLeast(n int) {
	if !flag.Parsed() {
		flag.Parse()
	}
	f := flag.Lookup("test.parallel")
	if f == nil {
		return
	}
	set := false
	flag.Visit(func(v *flag.Flag) { set = set || v.Name == "test.parallel" })
	if cur, err := strconv.Atoi(f.Value.String()); set || err != nil || cur >= n {
		return
	}
	_ = f.Value.Set(strconv.Itoa(n))
}
