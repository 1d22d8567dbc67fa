// Index building in bulk, for boot: replay puts rows into their tables
// without touching an index (a row may be replaced or removed many times in
// a log), then every index is built once from the final rows. A unique index
// is a hash map sized from the row count up front; the ordered side of a
// secondary index is one sort of all (key, id) entries instead of one
// insertion per row (per-row inserts into the ordered chunks made boot
// quadratic: 4.2 s of CPU for 1M rows). The indexes are independent, so
// they are built on up to two threads.
//
// This is the one seam between boot and the in-memory index structures
// (table.h, ordered.h): if those change, only this file follows.
#pragma once
#include <string>

#include "store.h"

namespace wo::db {

// Rebuilds every index of every table of `store` from its rows (the indexes
// must be empty: boot). false with *why naming the index, the table and the
// row when two rows share a unique key (the log is corrupt).
bool build_indexes(Store& store, std::string* why);

}  // namespace wo::db
