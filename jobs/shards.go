package jobs

import (
	"fmt"
	"hash/fnv"
	"slices"
)

// Export queue shards (docs/operations.md, "Export queue shards"). asynq keeps each
// queue's keys under one hash tag (asynq:{queue}:...), so on a Redis Cluster one
// queue lives in one slot on one master. With --export-queue-shards N > 1 design
// exports (and reprints) are spread over N queues by store: a stable hash of the
// store names two of them (its lanes), and each order goes to the one with less work
// waiting when its exports are first enqueued, recorded in the order's state so that
// every later enqueue of the order finds it again. asynq fetches from the non-empty
// queues in a weighted random order, so a store whose lane holds only its own work
// is served beside a flooding store instead of behind it; a flood fills its two
// lanes, and another store shares both only once in N(N-1)/2 pairs.

// MaxExportShards bounds the export queue shards.
const MaxExportShards = 16

// exportShardNames are the export queues, shard by shard. Shard 0 is the queue of a
// fleet without shards. Shard k >= 1 is "exports-<k><letter>": the letter is the
// first of a-z for which shards 0..k lie on min(k+1, M) different masters of every
// cluster of M = 2..6 masters whose slots are split evenly (as redis-cli --cluster
// create splits them), so three shards fill three masters. TestExportShardNames
// derives the list again from that rule. Never change a name: tasks already
// enqueued keep it.
var exportShardNames = [MaxExportShards]string{
	QueueExports, "exports-1a", "exports-2a", "exports-3d", "exports-4b", "exports-5c", "exports-6a", "exports-7a",
	"exports-8a", "exports-9a", "exports-10a", "exports-11a", "exports-12a", "exports-13a", "exports-14a", "exports-15a",
}

// ValidateExportShards checks an export shard count.
func ValidateExportShards(n int) error {
	if n < 1 || n > MaxExportShards {
		return fmt.Errorf("export queue shards %d: want 1 to %d", n, MaxExportShards)
	}
	return nil
}

// ExportQueues returns the names of the first n export queue shards: QueueExports
// alone for n <= 1. n above MaxExportShards counts as MaxExportShards.
func ExportQueues(n int) []string {
	n = min(max(n, 1), MaxExportShards)
	return slices.Clone(exportShardNames[:n])
}

// DefaultExportShards is the fleet's default number of export queue shards
// (--export-queue-shards): eight keep a quiet store's orders beside a flooding one's
// (docs/operations.md, "Export queue shards").
const DefaultExportShards = 8

// WithExportShards returns qs with QueueExports standing for each of the first n
// export queue shards, for callers that read every queue a fleet uses.
func WithExportShards(n int, qs ...string) []string {
	var out []string
	for _, q := range qs {
		if q == QueueExports {
			out = append(out, ExportQueues(n)...)
			continue
		}
		out = append(out, q)
	}
	return slices.Compact(out)
}

// ExportLanes are the export queues store's orders may go to among n shards: one
// (QueueExports) for n <= 1, else two different ones named by a stable hash (FNV-1a)
// of the store, the same on every enqueuer that uses the same n. n above
// MaxExportShards counts as MaxExportShards.
func ExportLanes(store string, n int) []string {
	if n <= 1 {
		return []string{QueueExports}
	}
	n = min(n, MaxExportShards)
	h := fnv.New64a()
	h.Write([]byte(store))
	sum := h.Sum64()
	a := sum % uint64(n)
	b := (a + 1 + (sum/uint64(n))%uint64(n-1)) % uint64(n)
	return []string{exportShardNames[a], exportShardNames[b]}
}

// orderHash is a stable hash (FNV-1a) of an order key.
func orderHash(k OrderKey) uint64 {
	h := fnv.New64a()
	// The escaped form keeps the fields apart: different keys, different bytes.
	h.Write([]byte(k.String()))
	return h.Sum64()
}

// IsExportQueue reports whether q is one of the export queue shards (of any count).
func IsExportQueue(q string) bool {
	return slices.Contains(exportShardNames[:], q)
}

// KeySlot is the Redis Cluster hash slot of keys whose hash tag is tag (CRC16-XMODEM
// mod 16384, as CLUSTER KEYSLOT computes it): the slot of export queue q's keys,
// asynq:{q}:..., is KeySlot(q).
func KeySlot(tag string) int {
	var crc uint16
	for i := 0; i < len(tag); i++ {
		crc ^= uint16(tag[i]) << 8
		for range 8 {
			if crc&0x8000 != 0 {
				crc = crc<<1 ^ 0x1021
			} else {
				crc <<= 1
			}
		}
	}
	return int(crc) % 16384
}
