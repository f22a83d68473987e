//go:build !linux

package pipeline

import (
	"errors"
	"time"
)

var errNoProc = errors.New("process CPU and memory are read from /proc (Linux only)")

func procCPU(int) (time.Duration, error)       { return 0, errNoProc }
func procMem(int) (rss, peak int64, err error) { return 0, 0, errNoProc }
