package worker

// asynqLoops is how many connections a worker's asynq server may hold at once beside
// its tasks: its fetcher, heartbeat, forwarder, janitor, recoverer, syncer, health
// check and aggregation check each send from a loop of their own (its cancellation
// subscription holds one more, outside the pool).
const asynqLoops = 8

// RedisIdleConns is how many idle Redis connections a worker of concurrency slots
// keeps by default: one per slot and one per asynq loop, so that in steady state every
// command finds a pooled connection and none is dialled per order. Fewer make go-redis
// close what returns beyond the idle count and dial it again at the next peak: with
// one idle connection, about 13 new connections an order. A connection unused for
// go-redis's ConnMaxIdleTime (30 minutes) is closed, so an idle fleet lets them go.
func RedisIdleConns(concurrency int) int {
	return max(concurrency, 1) + asynqLoops
}
