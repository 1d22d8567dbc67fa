// The C ABI of the embedded table store (runtime.md §1, §2): what generated
// code calls for `@table` classes, `insert`, field reads and updates,
// `delete`, queries and `transaction { }`. Implemented in runtime/src/db/;
// the design is in docs/decisions/0005-store-engine.md. When WO_DATA is a
// postgresql:// URI, durable tables are runtime/src/pg/'s instead, behind
// the same functions and semantics (docs/decisions/0056-postgresql-store.md).
//
// One store per process. wo_db_boot (or wo_db_open) runs once before `main`
// with the program's schema; every other function may then be called from
// any thread. Classes are named by their index in that schema, fields by
// their index in the class, as the compiler laid them out.
//
// Values cross as 64-bit words, one per field, as in wo_runtime.h: Int,
// Bool, Timestamp, Id and `ref` as int64 (a ref is the target row's id; the
// nil of `?ref` is 0), Float as its IEEE bits, Text/Bytes as a WoText* /
// WoBytes*, `multi`/`map` as a WoList* / WoMap* (NULL = nil). Nullable
// scalars use WO_NIL_SCALAR and WO_NIL_FLOAT_BITS. Inputs are borrowed: the
// store copies Text/Bytes and containers (element by element) into storage of
// its own, so nothing it holds is shared with the caller. Outputs are fresh: a
// Text/Bytes/container read is an owned object, a list of ids an owned
// `multi Int`.
//
// Traps are raised as by wo_trap_msg at `site` (which may be NULL):
//   DB (5)      `no such row`, `no such class`, `no such field`,
//               `no such index`, `database engine not initialized`,
//               `nested transaction`, `value too large for the table store`,
//               `transaction too large for the table store`
//   UNIQUE (10) `unique constraint violated: <table>.<field>` (composite
//               indexes: `<table>.(<a>, <b>)`); nothing was changed
//   FK (11)     `row is still referenced (restrict)` on delete;
//               `referenced row does not exist: <table>.<field>` when an
//               insert or update stores a non-nil ref to a missing row
//   OOM (4)     allocation failure
// A statement that traps has changed nothing, logged nothing and consumed no
// id. Never a trap: a failed write or fdatasync of the log. The process then
// prints one line to stderr and exits 74 (runtime.md §1.11), so RAM and disk
// never disagree about an acknowledged write.
#ifndef WO_DB_H
#define WO_DB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "wo_runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

// ---- schema (emitted by codegen as constant data) ---------------------------

// Field kinds. Int-shaped kinds are kept apart so that a retyped field is
// refused at start-up (§1.14) even when its storage is the same 8 bytes.
enum {
  WO_DB_INT = 1,
  WO_DB_BOOL = 2,
  WO_DB_FLOAT = 3,
  WO_DB_TEXT = 4,
  WO_DB_BYTES = 5,
  WO_DB_TIMESTAMP = 6,
  WO_DB_ID = 7,
  WO_DB_REF = 8,           // `ref C` / `?ref C`: the target row's id
  WO_DB_MULTI = 9,         // `multi T` (WoList*), T one of INT..ID: elem_kind
  WO_DB_MAP = 10           // `map<K, V>` (WoMap*): K (Int-shaped or TEXT) in elem_kind, V (INT..ID) in value_kind
};

enum { WO_DB_NULLABLE = 1 };   // WoDbField.flags: a `?T` field (nil per wo_runtime.h)

typedef struct WoDbField {
  const char* name;
  uint32_t kind;           // WO_DB_*
  uint32_t flags;          // WO_DB_NULLABLE
  int32_t ref_class;       // WO_DB_REF: index of the target class in the schema; else -1
  uint32_t elem_kind;      // WO_DB_MULTI: the element kind; WO_DB_MAP: the key kind; else 0
  uint32_t value_kind;     // WO_DB_MAP: the value kind; else 0
} WoDbField;

enum { WO_DB_UNIQUE = 1 };     // WoDbIndex.flags

// A declared index: `index: [a, b]` (flags 0) or `@unique` (WO_DB_UNIQUE,
// one column). Every index supports equality probes and ordered scans.
typedef struct WoDbIndex {
  uint32_t flags;
  uint32_t ncols;          // >= 1
  const uint32_t* cols;    // field indexes, in key order
} WoDbIndex;

// WoDbClass.flags. A class without WO_DB_TABLE is a plain class used with
// `insert` (§1.2): RAM only, never logged, never part of the start-up rules.
enum {
  WO_DB_TABLE = 1,         // `@table`
  WO_DB_VOLATILE = 2,      // `durable: false`
  WO_DB_RESIDENT_KEYS = 4  // `resident: keys` (rows are still kept in RAM; see the decision note)
};

typedef struct WoDbClass {
  const char* name;        // the storage name: `name:` or else the class name; unique
  uint32_t flags;
  uint32_t nfields;
  const WoDbField* fields;
  uint32_t nindexes;
  const WoDbIndex* indexes;
} WoDbClass;

typedef struct WoDbSchema {
  uint32_t nclasses;
  const WoDbClass* classes;
} WoDbSchema;

// ---- start-up and shut-down --------------------------------------------------

typedef struct WoDbConfig {
  const char* data;          // WO_DATA (a directory, a log file or a postgresql:// URI), or NULL
  const char* ephemeral;     // WO_EPHEMERAL, or NULL
  int64_t checkpoint_bytes;  // compaction floor in bytes; <= 0: 4 MiB
  int64_t checkpoint_ratio;  // compaction ratio; < 0: 3; 0: ratio term off
  bool wal_stats;            // print the `walstats` line at wo_db_close
  bool quiet;                // no notices on stderr (ephemeral mode, migration lines)
} WoDbConfig;

// Opens the store: checks the schema, applies the start-up rules of §1.8,
// resolves the data location (§1.9), migrates and replays the log (§1.12,
// §1.14). A file the store did not write (no store header, not a log of the
// earlier format), one from a newer format, or a log another process has
// open is refused untouched (docs/decisions/0013-store-files-and-durability.md).
// Returns 0, or 2 for a refusal with one line (no newline) in `err`
// (truncated to `errlen`; `err` may be NULL). Does not exit. The schema is
// copied. Traps nothing; fails if a store is already open. A store of at
// least 65,536 rows returns before its indexes are built (queries answer
// meanwhile, writes wait; docs/decisions/0070): a unique key held by two
// rows is found then, and the process exits 2 with the refusal on stderr.
int wo_db_open(const WoDbSchema* schema, const WoDbConfig* config, char* err, size_t errlen);

// What a program calls before `main`: wo_db_open with the configuration read
// from WO_DATA, WO_EPHEMERAL, WO_CHECKPOINT_BYTES, WO_CHECKPOINT_RATIO and
// WO_WAL_STATS; a refusal prints `wo: <reason>` to stderr and exits 2.
void wo_db_boot(const WoDbSchema* schema);

// Closes the store: aborts a transaction still open on this thread, writes
// the walstats line if asked, closes the log and frees every row. Other
// threads must have stopped using the store. A no-op when none is open.
void wo_db_close(void);

// Blocks until every write already applied and staged is durable (a no-op
// without a log). wo_start calls it once the actors have ended: a write whose
// fiber was unwound at the program's end while it waited for its fdatasync
// (never acknowledged) still reaches the log, as every applied write must.
void wo_db_flush(void);

// Returns once commit `seq` is durable, parking the calling fiber or
// blocking the calling thread (the scheduler's durable barrier, decision
// 0045). A no-op without a store.
void wo_db_wait_durable(uint64_t seq);
// Asks the store's log writer for a round covering commit `seq` and returns
// without waiting (the scheduler, for an actor's held messages); without a
// log writer thread it waits instead.
void wo_db_want_durable(uint64_t seq);

// Compacts the log now (§1.13) instead of waiting for the size trigger.
// Returns false when there is no log, a transaction is open, or the
// compaction failed (the old log stays valid then). For tests and tools.
bool wo_db_checkpoint(void);

// ---- writes --------------------------------------------------------------------
// Each returns once its record is on disk (durable table, not inside a
// transaction), sharing one fdatasync with concurrent committers.

// `insert C { ... }`: `values` holds one word per field (borrowed). Returns
// the new row's id: 1, 2, 3, ... per class, never reused (also across
// checkpoints and restarts); a trapping insert consumes none, an insert in a
// transaction that aborts burns its id. Traps UNIQUE, FK (missing ref
// target), DB, OOM.
int64_t wo_db_insert(uint32_t cls, const uint64_t* values, const WoSite* site);

// `row.field = value` (value borrowed). Logged as the whole row. Traps DB
// `no such row`, UNIQUE (the row is untouched), FK (missing ref target).
void wo_db_set(uint32_t cls, int64_t id, uint32_t field, uint64_t value, const WoSite* site);

// `delete row`. Traps DB `no such row` (deleting twice is a fault) and FK
// `row is still referenced (restrict)` when any ref field of any row
// (durable or not, the row itself included) holds this id.
void wo_db_delete(uint32_t cls, int64_t id, const WoSite* site);

// ---- reads ---------------------------------------------------------------------

// `row.field`: the word; a Text/Bytes comes back as an owned copy (NULL for
// nil). Traps DB `no such row`.
uint64_t wo_db_get(uint32_t cls, int64_t id, uint32_t field, const WoSite* site);
// Whether the row exists. Never traps (an unknown class is false).
bool wo_db_exists(uint32_t cls, int64_t id);
// Live rows of the class.
int64_t wo_db_count(uint32_t cls, const WoSite* site);

// Every id of the class in ascending id order, as an owned `multi Int`
// (a query's source; the caller filters with its `where` guards).
WoList* wo_db_scan(uint32_t cls, const WoSite* site);

// Ids whose `field` equals `key` (same word convention as the field; Floats
// compare by the total order, so -0.0 == 0.0), ascending. A probe of an
// index on that single column when one exists (hash for @unique, ordered
// otherwise), else a scan: the answer never depends on the indexes. Used for
// `where x.f == k` and for backlinks (`c.invoices` = probe of Invoice.customer).
WoList* wo_db_probe(uint32_t cls, uint32_t field, uint64_t key, const WoSite* site);
// The first id of wo_db_probe, or 0: `take 1` and unique lookups without a list.
int64_t wo_db_find(uint32_t cls, uint32_t field, uint64_t key, const WoSite* site);
// The length of wo_db_probe: `len(row.backlink)`.
int64_t wo_db_probe_count(uint32_t cls, uint32_t field, uint64_t key, const WoSite* site);
// Equality probe of declared index number `index` (composite allowed):
// `keys` holds one word per index column.
WoList* wo_db_probe_index(uint32_t cls, uint32_t index, const uint64_t* keys, const WoSite* site);

// wo_db_range flags.
enum {
  WO_DB_LO = 1,            // `lo` is a lower bound
  WO_DB_LO_OPEN = 2,       //   exclusive
  WO_DB_HI = 4,            // `hi` is an upper bound
  WO_DB_HI_OPEN = 8,       //   exclusive
  WO_DB_DESC = 16          // descending keys
};

// Ids ordered by `field` (`order by`), optionally bounded by lo/hi, at most
// `limit` (< 0: all). Keys order as §1.6 says: Int signed, Text/Bytes
// bytewise with a proper prefix first, Float by the total order (NaN last);
// a nil of a `?T` field sorts before every value. Stable: equal keys keep
// ascending id order, in DESC too. Walks an index on that single column
// when there is one, else scans and sorts.
WoList* wo_db_range(uint32_t cls, uint32_t field, uint64_t lo, uint64_t hi, uint32_t flags,
                    int64_t limit, const WoSite* site);

// Stable in-place sort of `ids` (a `multi Int` of rows of `cls`, e.g. a
// filtered query) by `field`, in the order of wo_db_range. Traps DB
// `no such row` for an id that is not a row.
void wo_db_sort(uint32_t cls, WoList* ids, uint32_t field, bool desc, const WoSite* site);

// Stable in-place sort of `ids` by `keys` (one key per id, same length: a
// computed `order by` key, language.md §13.2), in the order of wo_db_range:
// `kind` is the keys' WO_DB_* kind (INT/BOOL/TIMESTAMP/ID/REF as int64,
// FLOAT bits, TEXT/BYTES objects) and `nullable` says a nil key (per
// wo_runtime.h) sorts first. Needs no open store; traps BOUNDS when the
// lengths differ.
void wo_db_sort_keys(WoList* ids, WoList* keys, uint32_t kind, bool nullable, bool desc, const WoSite* site);

// ---- transactions (runtime.md §2.2) --------------------------------------------
// Lowering: wo_tx_begin at the opening brace; the body and wo_tx_commit are
// invoked with a landing pad that calls wo_tx_abort and resumes the unwind.
// While a transaction is open its thread holds the store: other threads'
// statements (reads too) wait until it commits or aborts, so no one sees
// uncommitted rows. The transaction belongs to the calling thread (see
// wo_tx_detach for fibers).

// Opens a transaction. Traps DB `nested transaction` if one is open here.
void wo_tx_begin(const WoSite* site);
// Writes the block's records as one checksummed frame with one fdatasync
// (none if it wrote no durable row) and returns when they are durable.
// A no-op when no transaction is open. May trap DB/OOM before anything is
// written; the landing pad then aborts.
void wo_tx_commit(const WoSite* site);
// Undoes every insert, update and delete of the open transaction in RAM,
// indexes included, and closes it. The ids the block's inserts took are
// burnt, not given back: the next insert gets a fresh id, so a handle kept
// from the block never names a later row (docs/decisions/0080). Never
// traps; a no-op when none is open.
void wo_tx_abort(void);
bool wo_tx_active(void);
// For a fiber scheduler: take the calling thread's open transaction (NULL
// if none) before switching fibers, and give it back to the thread the
// fiber resumes on. A fiber must not wait on another fiber of its own thread
// while it holds a transaction (the store would wait forever).
void* wo_tx_detach(void);
void wo_tx_attach(void* tx);

#ifdef __cplusplus
}
#endif
#endif
