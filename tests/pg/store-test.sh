#!/usr/bin/env bash
# The PostgreSQL store (runtime/src/pg/, docs/decisions/0056) against a
# private server (scripts/pg-temp.sh): the DDL it creates, trap codes and
# messages, rollback of a trapped transaction, a read-modify-write exact
# across processes, migration and its refusal, reconnection after a server
# restart, a bounded connection pool, no password in a refusal. Exit 77 (skipped) without the server
# binaries.   usage: store-test.sh WOC
set -u
HERE=$(cd "$(dirname "$0")/../.." && pwd)
WOC=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
PG=$HERE/scripts/pg-temp.sh
P=$HERE/tests/pg/programs
T=$(mktemp -d)
trap 'bash "$PG" stop "$T/pg" >/dev/null 2>&1; rm -rf "$T"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }

source "$HERE/tests/pg/lib.sh"
pg_start pg.store "$T"  # SKIPPED (77) without the server binaries
url=$pg_url
n=0
fresh() {  # a new database; its URI in $db
  n=$((n + 1))
  psql "$url" -qc "create database t$n" || bad "create database t$n"
  db=${url/\/postgres\?/\/t$n?}
}
q() { psql "$db" -Atc "$1"; }
run() {  # run PROGRAM [args]: stdout in $T/out, stderr in $T/err, status in $st
  (cd "$T" && WO_DATA=$db timeout -k 5 60 "$WOC" run "$@" >"$T/out" 2>"$T/err"); st=$?
}

# 1. DDL: column types, UNIQUE, a composite index, FOREIGN KEY ... ON DELETE RESTRICT, identity ids.
fresh
run "$P/shapes.wo"
[[ $st -eq 0 && $(cat "$T/out") == $'2\na@x' ]] || bad "shapes: exit $st, out $(cat "$T/out") $(head -3 "$T/err")"
cols=$(q "select column_name, data_type, coalesce(collation_name, '-'), is_nullable, is_identity from information_schema.columns where table_name = 'things' order by column_name" | tr '\n' ';')
want='blob|bytea|-|YES|NO;buddy|bigint|-|YES|NO;id|bigint|-|NO|YES;kind|bytea|-|NO|NO;ok|boolean|-|NO|NO;owner|bigint|-|NO|NO;rank|bigint|-|NO|NO;ratio|double precision|-|NO|NO;tags|bytea|-|NO|NO;when|bigint|-|YES|NO;'
[[ $cols == "$want" ]] || bad "things columns: $cols"
[[ $(q "select indexdef from pg_indexes where indexname = 'wo_owners_email_uq'") == *'UNIQUE INDEX'*'(email)'* ]] || bad "owners.email is not UNIQUE"
[[ $(q "select indexdef from pg_indexes where indexname = 'wo_things_kind_rank_ix'") == *'(kind, rank)'* ]] || bad "no index on things (kind, rank)"
[[ $(q "select confrelid::regclass::text || ' ' || confdeltype::text from pg_constraint where conname = 'wo_things_owner_fk'") == 'owners r' ]] || bad "things.owner: no FOREIGN KEY to owners ON DELETE RESTRICT"
# A second start changes nothing and sees the first one's rows.
run "$P/shapes.wo"
[[ $st -eq 1 ]] && grep -q '^trap 10 in main at line 22: unique constraint violated: owners.email$' "$T/err" || bad "a second start: exit $st, $(head -1 "$T/err")"

# A store made before Text became bytea (its Text columns `text`): the next start converts them, bytes kept.
psql "$db" -qc "drop index wo_things_kind_rank_ix; alter table things alter column kind type text collate \"C\" using convert_from(kind, 'UTF8'); alter table owners alter column email type text using convert_from(email, 'UTF8')" ||
  bad "making text columns"
run "$P/shapes.wo"
[[ $(q "select pg_typeof(kind)::text || ' ' || convert_from(kind, 'UTF8') from things") == 'bytea k' &&
  $(q "select data_type from information_schema.columns where table_name = 'owners' and column_name = 'email'") == bytea ]] ||
  bad "text columns not converted: $(q 'select kind from things') $(head -2 "$T/err")"
[[ $(q "select count(*) from pg_indexes where indexname in ('wo_things_kind_rank_ix', 'wo_owners_email_uq')") == 2 ]] || bad "indexes after the conversion"

# 2. A server restart (early: the shutdown checkpoint is short while the server has few databases) between two statements of one process: the next statement reconnects.
fresh
rm -f "$T/go"
(cd "$T" && WO_DATA=$db timeout -k 5 90 "$WOC" run "$P/reconnect.wo" >"$T/rc.out" 2>"$T/rc.err") &
rc_pid=$!
for _ in $(seq 600); do grep -q ready "$T/rc.out" 2>/dev/null && break; kill -0 $rc_pid 2>/dev/null || break; sleep 0.1; done
# The restart also brings max_connections down to 20, for the pool's bound below.
psql "$url" -qc "alter system set max_connections = 20" || bad "alter system set max_connections"
bash "$PG" stop "$T/pg" >/dev/null && bash "$PG" start "$T/pg" >/dev/null || bad "the server did not restart"
touch "$T/go"
wait $rc_pid
[[ $(cat "$T/rc.out") == $'ready\n2' ]] || bad "reconnect: $(cat "$T/rc.out") $(head -3 "$T/rc.err")"

# The pool is bounded (runtime/src/pg/conn.h, kMaxConnections 16): 40 writer
# actors with statements in flight at once, against a server that takes 20
# connections (17 for ordinary users), store every row.
fresh
[[ $(q "show max_connections") == 20 ]] || bad "max_connections is $(q 'show max_connections'), not 20"
(cd "$T" && WO_SHARDS=2 WO_DATA=$db timeout -k 5 120 "$WOC" run "$P/many_writers.wo" >"$T/out" 2>"$T/err"); st=$?
[[ $st -eq 0 && $(cat "$T/out") == 'stored 400' ]] || bad "40 writers, 20 connections: exit $st, $(cat "$T/out") $(head -2 "$T/err")"

# 3. Traps and messages: the corpus's fixtures, their expected output unchanged, with WO_DATA naming a database.
for fx in db-trap-messages db-unique-insert-uncaught db-unique-update-caught db-fk-delete-uncaught db-fk-nullable-release \
  db-insert-failed-no-id db-delete-twice-uncaught tx-abort-ids-burnt tx-abort-undo-delete tx-try-inside-keeps-alive \
  query-range-bounds query-order-text query-order-float query-order-stable; do
  fresh
  cp -r "$HERE/corpus/run/$fx" "$T/$fx"
  grep -v '^WO_EPHEMERAL=' "$HERE/corpus/run/$fx/env" 2>/dev/null >"$T/$fx/env"
  echo "WO_DATA=$db" >>"$T/$fx/env"
  # Three at a time: each is mostly the JIT's compile.
  (bash "$HERE/scripts/run-fixture.sh" jit "$T/$fx" "$WOC" >"$T/$fx.log" 2>&1 || touch "$T/$fx.failed") &
  [[ $(jobs -rp | wc -l) -ge 3 ]] && wait -n
done
wait
for f in "$T"/*.failed; do
  [[ -e $f ]] || continue
  fx=$(basename "$f" .failed)
  bad "$fx: $(head -12 "$T/$fx.log")"
done

# 4. An uncaught trap inside transaction { } leaves nothing, and burns its ids (decision 0080).
fresh
run "$P/tx_trap.wo"
[[ $st -eq 1 ]] && grep -q '^trap 1 in boom' "$T/err" || bad "tx_trap: exit $st, $(head -1 "$T/err")"
[[ $(q "select string_agg(n::text, ',') from items") == 1 ]] || bad "the trapped block left rows: $(q 'select n from items')"
[[ $(q "select next from wo_ids where tbl = 'items'") == 4 ]] || bad "the trapped block's ids (2, 3) were not burnt"

# A block over a durable and a volatile table: a trap undoes both parts, a commit keeps both.
fresh
run "$P/tx_mixed.wo"
[[ $st -eq 0 && $(cat "$T/out" | tr '\n' ' ') == '1 2 1 1 2 3 ' ]] || bad "tx_mixed: exit $st, $(cat "$T/out" | tr '\n' ' ') $(head -2 "$T/err")"
[[ $(q "select string_agg(id || ':' || n, ',' order by id) from orders") == 2:2,3:3 ]] || bad "tx_mixed rows: $(q 'select id, n from orders')"

# A volatile table's ref to a durable row: deletes raced against links from another shard never
# leave a login without its account (two runs, each on its own database, at once).
for k in 1 2; do
  fresh
  (cd "$T" && WO_SHARDS=2 WO_DATA=$db timeout -k 5 120 "$WOC" run "$P/volatile_ref_race.wo" >"$T/race.$k" 2>&1) &
done
wait
for k in 1 2; do
  [[ $(cat "$T/race.$k") == 'dangling 0, accounts left 0, logins left 0' ]] || bad "volatile ref race $k: $(head -3 "$T/race.$k")"
done

# 5. Three processes increment one counter 150 times each inside transaction { }: exactly 450.
fresh
(cd "$T" && WO_DATA=$db "$WOC" build "$P/counter_bump.wo" -o "$T/bump") || bad "build counter_bump"
run "$P/counter_init.wo"
[[ $st -eq 0 ]] || bad "counter_init: exit $st $(head -1 "$T/err")"
for i in 1 2 3; do (cd "$T" && WO_DATA=$db timeout -k 5 120 "$T/bump" >"$T/bump.$i" 2>&1) & done
wait
counter_db=$db
[[ $(q "select n from counters where name = 'hits'") == 450 ]] || bad "the counter is $(q 'select n from counters'), not 450: $(cat "$T"/bump.*)"

# 6. A deadlock between two processes: one commits, the other traps DB saying so and leaves nothing.
fresh
(cd "$T" && WO_DATA=$db "$WOC" build "$P/deadlock.wo" -o "$T/deadlock") || bad "build deadlock"
(cd "$T" && WO_DATA=$db "$T/deadlock" init) || bad "deadlock init"
mkdir "$T/dl"
for me in a b; do (cd "$T" && WO_DATA=$db timeout -k 5 120 "$T/deadlock" $me "$T/dl" >"$T/dl.$me" 2>&1) & done
wait
[[ $(cat "$T/dl.a" "$T/dl.b" | grep -c ' committed$') == 1 ]] || bad "deadlock: not exactly one commit: $(cat "$T/dl.a" "$T/dl.b")"
cat "$T/dl.a" "$T/dl.b" | grep -q '^trap 5 in lock at line 15: deadlock: PostgreSQL rolled the transaction back' ||
  bad "deadlock: no trap DB saying so: $(cat "$T/dl.a" "$T/dl.b")"
[[ $(q "select string_agg(hits::text, ',' order by n) from slots") == 1,1 ]] || bad "deadlock: hits $(q 'select hits from slots')"

# 7. Migration: an added field is a new column holding the kind's zero; a retyped one is refused.
db=$counter_db
run "$P/migrate_v2.wo"
[[ $st -eq 0 && $(cat "$T/out") == $'hits 450 []\ntwo 2 [added]' ]] || bad "migrate_v2: exit $st, $(cat "$T/out") $(head -2 "$T/err")"
grep -q '^wo: migrating table counters: +note$' "$T/err" || bad "no migration line: $(head -2 "$T/err")"
run "$P/migrate_bad.wo"
[[ $st -eq 2 && ! -s $T/out ]] && grep -q '^wo: schema change refused: field counters.n changed type from Int to Text' "$T/err" ||
  bad "migrate_bad: exit $st, $(head -1 "$T/err")"

# A field named id would collide with the row id's column: refused at start-up.
fresh
printf '@table(name: "t")\nclass T {\n  id: Int\n}\n\nfn main() {\n  insert T { id: 1 }\n}\n' >"$T/idf.wo"
run "$T/idf.wo"
[[ $st -eq 2 ]] && grep -q '^wo: table "t" has a field named id' "$T/err" || bad "a field named id: exit $st, $(head -1 "$T/err")"
# A table named like the store's own is refused; one whose name merely starts with wo_ restarts
# (its primary key's index is not taken for a stale index of the store's).
printf '@table(name: "wo_things", index: [n])\nclass T {\n  n: Int\n}\n\nfn main() {\n  print_int(insert T { n: 1 })\n}\n' >"$T/wot.wo"
run "$T/wot.wo"
run "$T/wot.wo"
[[ $st -eq 0 && $(cat "$T/out") == 2 ]] || bad "table wo_things, second start: exit $st, $(cat "$T/out") $(head -1 "$T/err")"
sed -i 's/wo_things/wo_ids/' "$T/wot.wo"
run "$T/wot.wo"
[[ $st -eq 2 ]] && grep -q '^wo: table "wo_ids" has the name of one of the store' "$T/err" || bad "table wo_ids: exit $st, $(head -1 "$T/err")"

# The embedded log's settings are refused in this mode, not ignored.
for v in WO_CHECKPOINT_BYTES=65536 WO_CHECKPOINT_RATIO=2 WO_WAL_STATS=1; do
  (cd "$T" && env "$v" WO_DATA=$db "$WOC" run "$P/counter_init.wo" >"$T/out" 2>"$T/err"); st=$?
  [[ $st -eq 2 && ! -s $T/out ]] && grep -q "^wo: ${v%%=*} is set, but it concerns the embedded store's log" "$T/err" ||
    bad "$v with a PostgreSQL WO_DATA: exit $st, $(head -1 "$T/err")"
done

# 8. A refusal names the database's problem, never its password (exit 2, nothing created).
db="postgresql://wo:s3cret@/nosuchdb?host=$T/pg/sock&port=${url##*port=}"
run "$P/counter_init.wo"
[[ $st -eq 2 ]] && grep -q 'WO_DATA names a PostgreSQL database that cannot be reached: .*nosuchdb' "$T/err" || bad "no database: exit $st, $(head -1 "$T/err")"
grep -q s3cret "$T/err" && bad "the password was printed"

[[ $fail -eq 0 ]] && echo "pg.store: ok"
exit $fail
