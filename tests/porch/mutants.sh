#!/usr/bin/env bash
# Deliberately broken variants of the porch middleware and its test servers:
# each copies stdlib/ and tests/porch, applies one textual change, runs
# scripts/porch-accept.sh against the copy and prints its FAIL lines. Every
# variant must make at least one leg fail (the legs can fail). Not part of
# ctest (about 5 s per variant).
#
#   tests/porch/mutants.sh            all variants
#   ONLY=bypass-actor tests/porch/mutants.sh
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
tmpd=$(mktemp -d "${TMPDIR:-/tmp}/porch-mutants.XXXXXX")
trap 'rm -rf "$tmpd"' EXIT
# variant NAME FILE OLD NEW: FILE is relative to the copy (stdlib/... or porch/...)
variant() {
  [[ -n ${ONLY:-} && $1 != "$ONLY" ]] && return
  local name=$1 file=$2 old=$3 new=$4
  local d=$tmpd/v-$name
  rm -rf $d && mkdir -p $d && cp -r $root/stdlib $d/stdlib && cp -r $root/tests/porch $d/porch
  python3 - "$d/$file" "$old" "$new" <<'PY'
import sys
p,old,new=sys.argv[1:4]
s=open(p).read()
assert old in s, (p, old)
open(p,'w').write(s.replace(old,new))
PY
  echo "== $name"
  WO_STDLIB=$d/stdlib PORCH_SRC=$d/porch bash $root/scripts/porch-accept.sh 2>&1 | grep -E '^FAIL|checks'
}
variant no-us-to-ms stdlib/framework/middleware/keypool.wo 'return pack(1, window_us / 1000)' 'return pack(1, window_us)'
variant no-bump stdlib/framework/middleware/keypool.wo 'row.count = row.count + 1' 'row.count = 1'
variant no-after stdlib/framework/middleware/limiter.wo 'r.headers["x-ratelimit-limit"] = lim' 'return'
variant no-retry-after stdlib/framework/middleware/limiter.wo 'r.headers["retry-after"] = "${(v.reset_at - time.now()) / 1000 + 1}"' ''
variant remaining-limit stdlib/framework/middleware/limiter.wo 'r.headers["x-ratelimit-remaining"] = "0"' 'r.headers["x-ratelimit-remaining"] = "${v.limit}"'
variant empty-ip-bucket stdlib/framework/middleware/limiter.wo '    if ip != "" {' '    if true {'
variant not-durable stdlib/framework/middleware/store.wo '@table(name: "rate_limit_counters", index: [key])' '@table(name: "rate_limit_counters", index: [key], durable: false)'
variant ignore-sigterm porch/limiter-server/main.wo 'while not env.stopping() {' 'while true {'
variant bypass-actor stdlib/framework/middleware/keypool.wo '  let reply = call(pool_select(p, key), PoolMsg { kind: KIND_COUNT, key: key, limit: limit, window: window_us,
                                                        req: nil, handler: nil })' '  let reply = racy_count(key, window_us)
  return racy_verdict(reply, limit)
}
-- broken on purpose: counts in the caller fiber, yielding between read and write
fn racy_count(key: Text, window_us: Int) -> Int {
  let rows = from x in RateLimitCounter where x.key == key take 1 select x
  if len(rows) == 0 {
    insert RateLimitCounter { key: key, count: 1, window: time.ticks() }
    return pack(1, window_us / 1000)
  }
  let row = rows[0]
  let c = row.count
  time.sleep(2)
  row.count = c + 1
  return pack(c + 1, window_us / 1000)
}
fn racy_verdict(reply: Int, limit: Int) -> Verdict {
  let count = reply / REPLY_BASE
  return Verdict { allowed: count <= limit, count: count, limit: limit, reset_at: time.now() + reply % REPLY_BASE }
}
fn unused_tail(limit: Int) -> Verdict {
  let reply = 1000000001'
I=stdlib/framework/middleware/idempotent.wo
variant never-stored $I '  if r.status < 200 or r.status > 399 {' '  if true {'
variant digest-ignored $I '      if row.digest != m.digest { return BEGIN_MISMATCH * REPLY_BASE }' ''
variant stores-5xx $I '  if r.status < 200 or r.status > 399 {' '  if r.status < 200 {'
variant relay-kept $I '  if once {' '  if false {'
# the deadline for a waiting duplicate (decision 0047)
variant idem-deadline-everywhere $I '    if note and running(key) {' '    if note {'
variant idem-deadline-ignored $I '                                                handler: nil }, wait_ms)' '                                                handler: nil }, 0)'
variant idem-note-never $I '  if m.note {
    note_running(m.key)' '  if false {
    note_running(m.key)'
