// Package pipeline holds the measurements of the whole export pipeline. In download
// mode: orders enqueued through jobs.Enqueuer into a private redis-server, the hub
// simulator serving exports over loopback HTTP, the worker (the real `printworker
// work` process, or in-process for the per-export overhead), and storage (a directory
// or S3). They are Go benchmarks and run only with -bench; they assert nothing about
// time. Results and commands: docs/benchmarks.md, section "Pipeline (download mode)".
// In render mode (BenchmarkRenderThroughput): signed webhooks to the intake, Redis, the
// simulator serving designs and media, `printworker work --mode render` rendering
// every view, S3 on versitygw; section "Pipeline (render mode)". A fleet
// (BenchmarkFleetScale): six workers on a three-master Redis Cluster, a flooding store
// beside a quiet one; docs/operations.md, "Scale".
//
//	go test -run XXX -bench 'Throughput' -benchtime 3000x -timeout 30m ./bench/pipeline
//	go test -run XXX -bench 'ExportOverhead' -benchtime 2000x ./bench/pipeline
//	go test -run XXX -bench 'LargeExport' -benchtime 1x -timeout 30m ./bench/pipeline
//	PRINTWORKER_TEST_VERSITYGW=... go test -run XXX -bench 'RenderThroughput' -benchtime 60x -timeout 30m ./bench/pipeline
//	go test -run XXX -bench FleetScale -benchtime 1x -timeout 30m ./bench/pipeline
package pipeline
