package jobs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/redis/go-redis/v9"
)

// An order's files share one folder with the order's own files (manifest, job ticket,
// staff page, thumbnails), and its designs export as separate tasks, possibly on
// different workers at once. So a file's name is reserved in the order's state before
// anything is uploaded, atomically (one Lua script), and a retry of the same file gets
// the name it got the first time. A folder is claimed for one order the same way.

// NameChoice is one name a file may take and every name it occupies in the order's
// folder (the name itself and, say, its thumbnail's), compared case-insensitively as
// case-insensitive filesystems do.
type NameChoice struct {
	Name   string
	Claims []string
}

// reserveScript reserves a name for one file of an order. KEYS: meta, expected, done,
// views, names. ARGV: ttl ms, owner, slot, request, request in lower case, the number
// of the first choice, then (name, claims) pairs, claims joined by '/'. An owner that
// already reserved a name in the slot for the same request gets it back. Else the
// first choice none of whose claims another owner holds is taken. Claims are never
// given up: a file of an earlier request (a renamed design) is still in the folder.
// Returns {name, next}: name "" when every choice is taken, next the number after the
// highest choice ever taken for the request, so the caller's next offer skips them.
var reserveScript = redis.NewScript(`
local names, owner, request = KEYS[5], ARGV[2], ARGV[4]
local sfield, nfield = 'slot|' .. ARGV[3] .. '|' .. owner, 'next|' .. ARGV[5]
local cur = redis.call('HGET', names, sfield)
if cur then
  local req, name = string.match(cur, '^(.-)\n(.*)$')
  if req == request then
` + expireAll + `
    return {name, 0}
  end
end
local first = tonumber(ARGV[6])
for i = 7, #ARGV - 1, 2 do
  local name, claims = ARGV[i], ARGV[i + 1]
  local free = true
  for c in string.gmatch(claims, '[^/]+') do
    local o = redis.call('HGET', names, 'n|' .. c)
    if o and o ~= owner then free = false break end
  end
  if free then
    for c in string.gmatch(claims, '[^/]+') do redis.call('HSET', names, 'n|' .. c, owner) end
    redis.call('HSET', names, sfield, request .. '\n' .. name)
    local n = first + (i - 7) / 2
    if n + 1 > tonumber(redis.call('HGET', names, nfield) or '0') then redis.call('HSET', names, nfield, n + 1) end
` + expireAll + `
    return {name, 0}
  end
end
return {'', tonumber(redis.call('HGET', names, nfield) or '0')}
`)

// ReserveName reserves, for a file of order k, the first of choices whose claims no
// other owner of the order holds, and returns its name. owner is what the file belongs
// to (a design's view): its files never block each other, so a view whose file turns
// out to be of another type (slot) may take the same thumbnail name. choices are
// numbered from first (1 is the name as requested, 2 its "-2" variant, and so on).
// When all are taken it returns "" and the number to offer from next (at least the
// end of this offer). request identifies what was asked for (the name the file would
// have without a collision): an owner asking again in the same slot for the same
// request gets the name it reserved before, whatever the choices, so a retried export
// writes the same key. Names never contain '/' or a newline; claims are compared in
// lower case.
func (s *State) ReserveName(ctx context.Context, k OrderKey, owner, slot, request string, first int, choices []NameChoice) (name string, next int, err error) {
	bad := func(n string) bool { return n == "" || strings.ContainsAny(n, "/\n") }
	if strings.Contains(request, "\n") || strings.ContainsAny(slot, "|\n") {
		return "", 0, fmt.Errorf("order state: reserve name %q: not a file name", request)
	}
	args := []any{s.ttlArg(), owner, slot, request, strings.ToLower(request), first}
	for _, c := range choices {
		claims := make([]string, len(c.Claims))
		for i, cl := range c.Claims {
			if bad(cl) || bad(c.Name) {
				return "", 0, fmt.Errorf("order state: reserve name %q: not a file name", cl)
			}
			claims[i] = strings.ToLower(cl)
		}
		args = append(args, c.Name, strings.Join(claims, "/"))
	}
	res, err := reserveScript.Run(ctx, s.rdb, s.keys(k).all(), args...).Slice()
	if err != nil || len(res) != 2 {
		return "", 0, fmt.Errorf("order state: reserve a file name of %s: %w", k, err)
	}
	name = fmt.Sprint(res[0])
	if name == "" {
		next = max(first+len(choices), int(toInt(res[1])))
	}
	return name, next, nil
}

// folderClaimScript claims a folder for an order. KEYS[1]: the folder's claim. ARGV: ttl
// ms, the order's JSON. Returns the owner's JSON (the caller's when the folder was
// free or already its own).
var folderClaimScript = redis.NewScript(`
local cur = redis.call('GET', KEYS[1])
if not cur then
  redis.call('SET', KEYS[1], ARGV[2])
  cur = ARGV[2]
end
if cur == ARGV[2] then redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[1])) end
return cur
`)

// ClaimFolder claims the storage folder (the order's manifest key) for order k before
// any of its files is written, and returns the order that holds it: k itself, or
// another order the layout gives the same folder. A claim lives as long as order
// state (NewState's ttl) after the owner's last claim.
func (s *State) ClaimFolder(ctx context.Context, folder string, k OrderKey) (OrderKey, error) {
	me, err := json.Marshal(k)
	if err != nil {
		return OrderKey{}, err
	}
	key := s.prefix + ":folder:{" + folder + "}"
	got, err := folderClaimScript.Run(ctx, s.rdb, []string{key}, s.ttlArg(), me).Text()
	if err != nil {
		return OrderKey{}, fmt.Errorf("order state: claim folder %s for %s: %w", folder, k, err)
	}
	var owner OrderKey
	if err := json.Unmarshal([]byte(got), &owner); err != nil {
		return OrderKey{}, errors.Join(fmt.Errorf("order state: folder %s: unreadable claim", folder), err)
	}
	return owner, nil
}
