// transaction { } (runtime.md §2.2): begin takes the store's gate for this
// thread, statements apply to RAM at once (read-your-writes) and log into
// the transaction, commit stages the block as one unit and waits for its
// one fdatasync, abort walks the undo log backwards. The ids the block's
// inserts took are burnt, not given back (docs/decisions/0080): a handle
// kept from the block must never name a later row.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "../core/trap.h"
#include "common/traps.h"
#include "engine.h"
#include "frame.h"
#include "txn.h"

namespace wo::db {

void Engine::begin(const WoSite* site) {
  if (current_tx()) raise(static_cast<int64_t>(TrapCode::DB), site, "nested transaction");
  auto tx = std::make_unique<Tx>();
  note_thread();  // mu_ without lock_write: counted for solo access all the same (decision 0069)
  {
    std::unique_lock lk(mu_);
    wait_gate(lk);  // no transaction of its own: returns when none is open
    owner_ = tx.get();
  }
  set_current_tx(tx.release());
}

namespace {

// Frees what the undo log still owns once it can no longer be needed.
void discard(const Store& store, Tx& tx) {
  for (Undo& u : tx.undo) {
    const ClassDef& c = store.table(u.cls).def();
    if (u.op == Undo::Delete) row_free(c, u.row);
    if (u.op == Undo::Update) word_free(c.fields[u.field], u.old);
  }
  tx.undo.clear();
}

}  // namespace

void Engine::commit(const WoSite* site) {
  Tx* tx = current_tx();
  if (!tx) return;
  uint64_t seq = 0;
  note_thread();
  {
    std::unique_lock lk(mu_);
    end_deferral(*tx, true);  // may trap OOM: the transaction is still open then
    if (tx->nrec) {
      if (tx->records.size() + head_.size() + kStageReserve + kFrameOverhead > kMaxFrame)
        raise(static_cast<int64_t>(TrapCode::DB), site, "transaction too large for the table store");
      seq = stage_unit(tx->records, tx->nrec);  // may trap OOM: the transaction is still open then
    }
    release_gate();
  }
  gate_.notify_all();
  set_current_tx(nullptr);
  discard(store_, *tx);
  delete tx;
  if (seq) commit_->wait(seq);
}

void Engine::defer_ordered(Tx& tx, Table& t) {
  if (t.defer_ordered) return;
  bool ordered = false;
  for (const TableIndex& ix : t.indexes) ordered = ordered || ix.ordered_ready;
  if (!ordered) return;
  tx.deferred.push_back(&t);  // may trap OOM: nothing has changed yet
  t.defer_ordered = true;
}

void Engine::end_deferral(Tx& tx, bool settle) {
  for (Table* t : tx.deferred) {
    if (settle) t->settle_ordered();
    t->defer_ordered = false;
  }
  if (settle) tx.deferred.clear();
}

void Engine::undo(Tx& tx) {
  for (size_t i = tx.undo.size(); i-- > 0;) {
    Undo& u = tx.undo[i];
    Table& t = store_.table(u.cls);
    const ClassDef& c = t.def();
    switch (u.op) {
      case Undo::Insert:  // newest first; the ids stay taken: t.next_id does not go back
        for (uint64_t k = u.old; k-- > 0;) store_.destroy(t, u.id + static_cast<int64_t>(k));
        break;
      case Undo::Update:
        word_free(c.fields[u.field], store_.set_field(t, u.id, u.field, u.old));
        break;
      case Undo::Delete:
        store_.attach(t, u.id, u.row);  // the original id, its index entries, its refs
        std::free(u.row);                // its words were copied (its blobs are the table's now)
        break;
    }
    tx.undo.pop_back();  // ownership went back to the store
  }
}

// The burnt ids on their way to the log: one NEXT_ID per durable table the
// block inserted into, staged as one unit that nobody waits for (nothing of
// the block is acknowledged); the next round writes it, at the latest the
// flush at the program's end or at close. A crash before that round forgets
// them, as it forgets the block. Best effort: a failure to stage (memory)
// leaves them burnt in RAM only.
void Engine::log_burnt_ids(const Tx& tx) {
  std::string recs;
  uint32_t n = 0;
  std::vector<uint32_t> seen;
  for (const Undo& u : tx.undo) {
    if (u.op != Undo::Insert || std::find(seen.begin(), seen.end(), u.cls) != seen.end()) continue;
    seen.push_back(u.cls);
    const Table& t = store_.table(u.cls);
    if (!logged(t)) continue;
    end_record(recs, begin_record(recs, kNextId, t.def().id, static_cast<uint64_t>(t.next_id)));
    n++;
  }
  if (n) stage_unit(recs, n);
}

void Engine::abort() noexcept {
  Tx* tx = current_tx();
  if (!tx) return;
  note_thread();
  try {
    std::unique_lock lk(mu_);
    try {
      log_burnt_ids(*tx);
    } catch (...) {  // an OOM trap: the ids stay burnt in RAM
    }
    end_deferral(*tx, false);  // undo's index changes apply at once
    undo(*tx);  // takes every deferred entry back with its insert or update: nothing is left to merge
    release_gate();
  } catch (...) {
    // Only allocation can fail here (an index node). RAM would then hold a
    // half-undone block: not a state to continue from.
    std::fputs("wo: out of memory while undoing a transaction\n", stderr);
    std::abort();
  }
  gate_.notify_all();
  set_current_tx(nullptr);
  delete tx;
}

void* Engine::detach() {
  Tx* tx = current_tx();
  set_current_tx(nullptr);
  return tx;
}

void Engine::attach(void* tx) { set_current_tx(static_cast<Tx*>(tx)); }

}  // namespace wo::db
