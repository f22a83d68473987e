package jobs

import (
	"context"
	"errors"
	"fmt"
	"time"
	"unicode/utf8"

	"github.com/redis/go-redis/v9"
	"google.golang.org/protobuf/encoding/protowire"
)

// A task message asynq cannot decode (its protobuf "msg" field damaged, or written
// by something that is not asynq) is never run and never archived by asynq itself:
// its processor moves it from pending to active, fails to decode it ("Dequeue
// error: cannot decode message") and leaves it there with a lease; its recoverer,
// which returns expired leases to the queue, fails on the same message for the
// whole queue, so every other crashed task of that queue stays active too.
// ArchiveUndecodable finds such messages and archives them at once with the reason
// (docs/pipeline.md, "Task messages that are not valid").

// UndecodableType is the task type of an archived message that did not decode: its
// original bytes are the archived task's payload.
const UndecodableType = "invalid:message"

// Undecodable is one task message archived because it did not decode.
type Undecodable struct {
	Queue, ID string
	// Reason says what is wrong with the message (the archived task's last error).
	Reason string
}

// staleLease: a task whose lease ends sooner than this from now is not being worked
// on: asynq's heartbeat extends the lease of every task it runs to 30 s from now
// every 5 s, and a message it could not decode, or runs under another id, is never
// extended.
const staleLease = 15 * time.Second

// ArchiveUndecodable archives active tasks of the queues whose message asynq cannot
// decode, and returns them: every active task when all is set (asynq just reported a
// message it could not decode, whose lease is still fresh), else only those whose
// lease is stale (staleLease), which keeps a periodic sweep to one read per queue. A
// message that decodes is left alone, whatever its payload: the handler judges that
// (Decode).
func ArchiveUndecodable(ctx context.Context, rdb redis.UniversalClient, queues []string, now time.Time, all bool) ([]Undecodable, error) {
	var out []Undecodable
	var errs []error
	for _, q := range queues {
		var ids []string
		var err error
		if all {
			ids, err = rdb.LRange(ctx, asynqKey(q, "active"), 0, -1).Result()
		} else {
			ids, err = rdb.ZRangeByScore(ctx, asynqKey(q, "lease"), &redis.ZRangeBy{Min: "-inf", Max: fmt.Sprint(now.Add(staleLease).Unix())}).Result()
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("queue %s: active tasks: %w", q, err))
			continue
		}
		for _, id := range ids {
			msg, err := rdb.HGet(ctx, asynqKey(q, "t:"+id), "msg").Bytes()
			if errors.Is(err, redis.Nil) {
				continue // finished meanwhile
			}
			if err != nil {
				errs = append(errs, fmt.Errorf("queue %s: task %s: %w", q, id, err))
				continue
			}
			bad := CheckTaskMessage(msg, q, id)
			if bad == nil {
				continue
			}
			reason := fmt.Sprintf("%v: task message does not decode (%v); the original bytes are this task's payload", ErrPayload, bad)
			switch err := archiveRaw(ctx, rdb, q, id, msg, reason, now); {
			case errors.Is(err, errNotActive):
				continue
			case err != nil:
				errs = append(errs, fmt.Errorf("queue %s: archive task %s: %w", q, id, err))
				continue
			}
			out = append(out, Undecodable{Queue: q, ID: id, Reason: reason})
		}
	}
	return out, errors.Join(errs...)
}

// CheckTaskMessage reports why b, stored as task id of queue, is not a task message
// asynq can run, nil when it is one. asynq decodes with proto.Unmarshal into its
// TaskMessage (proto3): a message fails on malformed wire data and on a string field
// that is not UTF-8; unknown fields and known fields of another wire type are
// skipped as unknown. A message that decodes but names no type, or another id or
// queue than where it is stored, is refused too: asynq finishes, retries and
// archives a task by the id and queue its message names, so it would stay active.
func CheckTaskMessage(b []byte, queue, id string) error {
	if len(b) == 0 {
		return errors.New("empty")
	}
	var gotID, gotQueue, typ string
	for len(b) > 0 {
		num, wt, n := protowire.ConsumeTag(b)
		if n < 0 {
			return fmt.Errorf("malformed field tag: %w", protowire.ParseError(n))
		}
		b = b[n:]
		if wt == protowire.BytesType {
			v, m := protowire.ConsumeBytes(b)
			if m < 0 {
				return fmt.Errorf("field %d: %w", num, protowire.ParseError(m))
			}
			switch num {
			case 1, 3, 4, 7, 10, 14: // type, id, queue, error_msg, unique_key, group_key
				if !utf8.Valid(v) {
					return fmt.Errorf("field %d: string is not UTF-8", num)
				}
				// proto3: the last value of a repeated scalar field wins.
				switch num {
				case 1:
					typ = string(v)
				case 3:
					gotID = string(v)
				case 4:
					gotQueue = string(v)
				}
			case 15: // headers: map<string, string>
				if err := checkMapEntry(v); err != nil {
					return fmt.Errorf("headers: %w", err)
				}
			}
			b = b[m:]
			continue
		}
		m := protowire.ConsumeFieldValue(num, wt, b)
		if m < 0 {
			return fmt.Errorf("field %d: %w", num, protowire.ParseError(m))
		}
		b = b[m:]
	}
	switch {
	case typ == "":
		return errors.New("no task type")
	case gotID != id:
		return fmt.Errorf("it names task id %q", printableID(gotID))
	case gotQueue != queue:
		return fmt.Errorf("it names queue %q", printableID(gotQueue))
	}
	return nil
}

// printableID cuts a name read from a damaged message for an error: at most 64
// bytes.
func printableID(s string) string {
	if len(s) > 64 {
		s = s[:64] + "..."
	}
	return s
}

// checkMapEntry checks one entry of a map<string, string>.
func checkMapEntry(b []byte) error {
	for len(b) > 0 {
		num, wt, n := protowire.ConsumeTag(b)
		if n < 0 {
			return protowire.ParseError(n)
		}
		b = b[n:]
		if wt == protowire.BytesType && (num == 1 || num == 2) {
			v, m := protowire.ConsumeBytes(b)
			if m < 0 {
				return protowire.ParseError(m)
			}
			if !utf8.Valid(v) {
				return errors.New("string is not UTF-8")
			}
			b = b[m:]
			continue
		}
		m := protowire.ConsumeFieldValue(num, wt, b)
		if m < 0 {
			return protowire.ParseError(m)
		}
		b = b[m:]
	}
	return nil
}

// encodeArchived is the task message stored in place of one that did not decode:
// the fields asynq's inspector shows (type, id, queue, last error and when), the
// original bytes as payload, so an operator sees what arrived.
func encodeArchived(queue, id string, raw []byte, reason string, now time.Time) []byte {
	var b []byte
	str := func(num protowire.Number, s string) {
		b = protowire.AppendTag(b, num, protowire.BytesType)
		b = protowire.AppendString(b, s)
	}
	str(1, UndecodableType)
	b = protowire.AppendTag(b, 2, protowire.BytesType)
	b = protowire.AppendBytes(b, raw)
	str(3, id)
	str(4, queue)
	str(7, reason)
	b = protowire.AppendTag(b, 11, protowire.VarintType)
	b = protowire.AppendVarint(b, uint64(now.Unix()))
	return b
}

var errNotActive = errors.New("task no longer active")

// archiveUndecodableScript is asynq's archive (internal/rdb archiveCmd) for a task
// whose message is replaced: off the active list and the lease set, into the archive
// with the time of death, the state and counters as asynq keeps them. It archives
// only while the message is still the bad one read.
//
// KEYS: task, active, lease, archived, processed:<day>, failed:<day>, processed, failed
// ARGV: id, new message, now (unix), stats expiry (unix), old message
var archiveUndecodableScript = redis.NewScript(`
if redis.call("HGET", KEYS[1], "msg") ~= ARGV[5] then
  return redis.error_reply("NOT ACTIVE")
end
if redis.call("LREM", KEYS[2], 0, ARGV[1]) == 0 then
  return redis.error_reply("NOT ACTIVE")
end
redis.call("ZREM", KEYS[3], ARGV[1])
redis.call("ZADD", KEYS[4], ARGV[3], ARGV[1])
redis.call("HSET", KEYS[1], "msg", ARGV[2], "state", "archived")
for _, k in ipairs({KEYS[5], KEYS[6]}) do
  if tonumber(redis.call("INCR", k)) == 1 then
    redis.call("EXPIREAT", k, ARGV[4])
  end
end
redis.call("INCR", KEYS[7])
redis.call("INCR", KEYS[8])
return redis.status_reply("OK")`)

func archiveRaw(ctx context.Context, rdb redis.UniversalClient, queue, id string, raw []byte, reason string, now time.Time) error {
	day := now.UTC().Format(time.DateOnly)
	keys := []string{asynqKey(queue, "t:"+id), asynqKey(queue, "active"), asynqKey(queue, "lease"), asynqKey(queue, "archived"),
		asynqKey(queue, "processed:"+day), asynqKey(queue, "failed:"+day), asynqKey(queue, "processed"), asynqKey(queue, "failed")}
	// asynq keeps its daily counters 90 days.
	err := archiveUndecodableScript.Run(ctx, rdb, keys, id, encodeArchived(queue, id, raw, reason, now), now.Unix(),
		now.Add(90*24*time.Hour).Unix(), raw).Err()
	if err != nil && err.Error() == "NOT ACTIVE" {
		return errNotActive
	}
	return err
}
