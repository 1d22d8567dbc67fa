// A transaction's private state (runtime.md §2.4): the undo log, one entry
// per RAM change (room reserved before the change, so recording it cannot
// fail after it), walked backwards by abort; and the block's WAL
// sub-records, staged as one unit only at commit (never in the shared
// stage, which another thread's commit could flush: §2.5.2).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "row.h"

namespace wo::db {

class Table;

struct Undo {
  enum Op : uint8_t { Insert, Update, Delete };
  Op op;
  uint32_t cls;
  uint32_t field;   // Update
  int64_t id;
  uint64_t old;     // Update: the previous word (owned: a blob stays alive for the undo);
                    // Insert: how many rows, ids id, id + 1, ... (a block's run of inserts
                    // into one table is one entry: 40 bytes a row were a sixth of the
                    // memory a one-transaction insert touched)
  Row* row;         // Delete: the detached row (owned)
};

struct Tx {
  std::vector<Undo> undo;
  std::vector<Table*> deferred;  // tables whose ordered entries wait for commit (Table::defer_ordered)
  std::string records;   // sub-records of the block's durable writes
  uint32_t nrec = 0;
};

}  // namespace wo::db
