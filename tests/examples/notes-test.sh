#!/usr/bin/env bash
# examples/notes (issue 28's newcomer service): its `woc test` tests, then
# the built binary over HTTP with a durable store, restarted once so the
# notes are read back from disk. Usage: notes-test.sh WOC
set -uo pipefail
WOC=$1
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
TMP=$(mktemp -d "${TMPDIR:-/tmp}/wo-notes.XXXXXX")
server=
cleanup() {
  [[ -n $server ]] && kill -KILL "$server" 2>/dev/null
  rm -rf "$TMP"
}
trap cleanup EXIT
fail() { echo "notes-test: $*"; exit 1; }

"$WOC" test "$ROOT/examples/notes" || fail "woc test failed"
"$WOC" build "$ROOT/examples/notes" -o "$TMP/notes" || fail "woc build failed"

source "$ROOT/tests/lib/listen.sh"  # start_listening: sets port and server
start() {
  start_listening 47710 47760 "$TMP/log" "$TMP/err" env WO_DATA="$TMP/data" "$TMP/notes" "{port}" ||
    fail "the server did not start: $(cat "$TMP/log" "$TMP/err")"
}
stop() { kill -TERM "$server"; wait "$server" 2>/dev/null; server=; }
mkdir "$TMP/data"
start
python3 - "$port" <<'PY' || fail "HTTP checks failed (first run)"
import json, sys, urllib.request
base = f"http://127.0.0.1:{sys.argv[1]}"
def req(method, path, body=None):
    r = urllib.request.Request(base + path, method=method, data=None if body is None else body.encode())
    try:
        with urllib.request.urlopen(r) as resp:
            return resp.status, resp.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()
s, b = req("POST", "/notes", json.dumps({"title": "milk", "body": "two litres of milk"}))
assert s == 201, (s, b)
first = json.loads(b)
assert first["title"] == "milk" and first["body"] == "two litres of milk", b
s, b = req("POST", "/notes", json.dumps({"title": "eggs", "body": "a dozen eggs, and milk"}))
assert s == 201, (s, b)
second = json.loads(b)
s, b = req("GET", f"/notes/{second['id']}")
assert s == 200 and json.loads(b) == second, (s, b)
s, b = req("POST", "/notes", json.dumps({"body": "no \"title\" here"}))
assert s == 400 and json.loads(b) == {"error": 'field "title" is required'}, (s, b)
s, b = req("GET", "/notes/424242")
assert s == 404 and "error" in json.loads(b), (s, b)
s, b = req("GET", "/words")
top = json.loads(b)
assert top[0] == {"word": "milk", "count": 2}, b
print("first run: ok")
PY
stop
start
python3 - "$port" <<'PY' || fail "HTTP checks failed (after a restart)"
import json, sys, urllib.request
base = f"http://127.0.0.1:{sys.argv[1]}"
with urllib.request.urlopen(base + "/notes") as resp:
    notes = json.loads(resp.read())
assert sorted(n["title"] for n in notes) == ["eggs", "milk"], notes
assert all(set(n) == {"id", "title", "body", "at"} for n in notes), notes
r = urllib.request.Request(base + f"/notes/{notes[0]['id']}", method="DELETE")
with urllib.request.urlopen(r) as resp:
    assert resp.status == 204
with urllib.request.urlopen(base + "/notes") as resp:
    assert len(json.loads(resp.read())) == 1
print("after a restart: ok")
PY
stop
echo "notes-test: ok"
