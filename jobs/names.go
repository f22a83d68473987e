package jobs

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
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

// A reservation is kept in the order's names hash in a compact form, so that a
// finished order's state stays small (docs/operations.md "Redis sizing"): every field
// and value is a 64-bit hash (h8) rather than the name, and only what a re-export
// cannot work out again is written.
//
//   - "n:" h8(claim in lower case) -> h8(owner): a claim. A collision of two claims
//     (one in 2^64 for a pair) only numbers a file that did not need it; the owner's
//     hash is what keeps two files apart.
//   - "s:" h8(slot|owner) -> h8(request) name: the owner's name in the slot, written
//     only when it is not the request itself (a numbered name). A reservation whose
//     name is the request needs no record: the owner holds that name's claims, so
//     the first choice, which the worker always offers first, is free for it again.
//   - "x:" h8(request in lower case) -> the number after the highest choice taken,
//     written only past the first choice (the caller offers at least that far).
//
// A settled order keeps these fields in its meta hash (State.Settle), where the
// script finds them too. Fields the previous version wrote ("n|claim" -> owner,
// "slot|slot|owner" -> request and name, "next|request" -> number) are still read,
// so an order exported before keeps its names.

// h8 is the 64-bit hash of s that the names hash keeps instead of s.
func h8(s string) string {
	sum := sha256.Sum256([]byte(s))
	return string(sum[:8])
}

// Fields of the compact names form (see above); each is 10 bytes.
func claimField(claim string) string      { return "n:" + h8(strings.ToLower(claim)) }
func slotField(slot, owner string) string { return "s:" + h8(slot+"|"+owner) }
func nextField(request string) string     { return "x:" + h8(strings.ToLower(request)) }
func isNameField(f string) bool {
	return len(f) == 10 && f[1] == ':' && strings.IndexByte("nsx", f[0]) >= 0
}

// reserveScript reserves a name for one file of an order. KEYS: meta, expected, done,
// views, names. ARGV: ttl ms, owner, slot, request, request in lower case, the number
// of the first choice, h8(owner), the slot's field, h8(request), the request's next
// field, then (name, claims, claim fields) triples: claims in lower case joined by
// '/', claim fields concatenated. An owner that already reserved a name in the slot
// for the same request gets it back. Else the first choice none of whose claims
// another owner holds is taken. Claims are never given up: a file of an earlier
// request (a renamed design) is still in the folder. Returns {name, next}: name ""
// when every choice is taken, next the number after the highest choice ever taken for
// the request, so the caller's next offer skips them.
var reserveScript = redis.NewScript(`
local meta, names = KEYS[1], KEYS[5]
local owner, slot, request, lreq = ARGV[2], ARGV[3], ARGV[4], ARGV[5]
local first, howner, sfield, hreq, xfield = tonumber(ARGV[6]), ARGV[7], ARGV[8], ARGV[9], ARGV[10]
local function get(f) return redis.call('HGET', names, f) or redis.call('HGET', meta, f) end
local oslot, onext = 'slot|' .. slot .. '|' .. owner, 'next|' .. lreq
local function nextn() return math.max(tonumber(get(xfield) or '0'), tonumber(redis.call('HGET', names, onext) or '0')) end
local cur = get(sfield)
if cur then
  if string.sub(cur, 1, 8) == hreq then
` + expireAll + `
    return {string.sub(cur, 9), 0}
  end
else
  cur = redis.call('HGET', names, oslot)
  if cur then
    local req, name = string.match(cur, '^(.-)\n(.*)$')
    if req == request then
` + expireAll + `
      return {name, 0}
    end
  end
end
for i = 11, #ARGV - 2, 3 do
  local name, claims, fields = ARGV[i], ARGV[i + 1], ARGV[i + 2]
  local free = true
  for c in string.gmatch(claims, '[^/]+') do
    local o = redis.call('HGET', names, 'n|' .. c)
    if o and o ~= owner then free = false break end
  end
  for j = 1, #fields, 10 do
    if not free then break end
    local o = get(string.sub(fields, j, j + 9))
    if o and o ~= howner then free = false end
  end
  if free then
    for j = 1, #fields, 10 do redis.call('HSET', names, string.sub(fields, j, j + 9), howner) end
    redis.call('HDEL', names, oslot)
    if name ~= request then
      redis.call('HSET', names, sfield, hreq .. name)
    else
      redis.call('HDEL', names, sfield)
      redis.call('HDEL', meta, sfield)
    end
    local n = first + (i - 11) / 3
    if n >= 2 and n + 1 > nextn() then redis.call('HSET', names, xfield, n + 1) end
` + expireAll + `
    return {name, 0}
  end
end
return {'', nextn()}
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
	args := []any{s.ttlArg(), owner, slot, request, strings.ToLower(request), first,
		h8(owner), slotField(slot, owner), h8(request), nextField(request)}
	for _, c := range choices {
		claims := make([]string, len(c.Claims))
		var fields strings.Builder
		for i, cl := range c.Claims {
			if bad(cl) || bad(c.Name) {
				return "", 0, fmt.Errorf("order state: reserve name %q: not a file name", cl)
			}
			claims[i] = strings.ToLower(cl)
			fields.WriteString(claimField(cl))
		}
		args = append(args, c.Name, strings.Join(claims, "/"), fields.String())
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
// ms, the order's key (OrderKey.String), its JSON (what the previous version wrote,
// rewritten as the key). Returns the owner (the caller when the folder was free or
// already its own).
var folderClaimScript = redis.NewScript(`
local cur = redis.call('GET', KEYS[1])
if not cur then
  redis.call('SET', KEYS[1], ARGV[2])
  cur = ARGV[2]
end
if cur == ARGV[3] then
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
	got, err := folderClaimScript.Run(ctx, s.rdb, []string{key}, s.ttlArg(), k.String(), me).Text()
	if err != nil {
		return OrderKey{}, fmt.Errorf("order state: claim folder %s for %s: %w", folder, k, err)
	}
	owner, err := parseOrderKey(got)
	if err != nil {
		return OrderKey{}, errors.Join(fmt.Errorf("order state: folder %s: unreadable claim", folder), err)
	}
	return owner, nil
}

// parseOrderKey reads a folder's claim: an OrderKey.String, or the OrderKey's JSON
// the previous version wrote.
func parseOrderKey(s string) (OrderKey, error) {
	var k OrderKey
	if strings.HasPrefix(s, "{") {
		err := json.Unmarshal([]byte(s), &k)
		return k, err
	}
	parts := strings.Split(s, "/")
	if len(parts) != 3 {
		return k, fmt.Errorf("claim %q is no order key", s)
	}
	for i, p := range []*string{&k.Store, &k.Domain, &k.OrderID} {
		v, err := url.PathUnescape(parts[i])
		if err != nil {
			return k, fmt.Errorf("claim %q: %w", s, err)
		}
		*p = v
	}
	return k, nil
}
