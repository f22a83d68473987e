// Package trials holds the process trials: tests that build the printworker binary
// once and run it as real processes against a real redis-server, the hub simulator
// and S3, then kill, starve or cut what they depend on (SIGKILL mid-batch and
// mid-write, Redis killed with AOF, storage outages, the memory budget, a fleet
// draining on SIGTERM, a Redis Cluster, a gang builder killed, every key expiring).
//
// They take minutes and mostly wait, so they sit behind the trial build tag, out of
// `go test ./...`:
//
//	go test -tags trial -timeout 30m ./trials
//
// CI runs them once, without the race detector (docs/architecture.md, "Tests").
package trials
