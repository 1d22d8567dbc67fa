// Index building in bulk (see bulk_index.h).
#include "bulk_index.h"

#include <atomic>
#include <exception>
#include <system_error>
#include <thread>
#include <vector>

namespace wo::db {
namespace {

struct Job {
  Table* table;
  TableIndex* index;
  std::string why;  // a unique key seen twice
  std::exception_ptr error;  // an OOM trap, rethrown on the calling thread
};

void build_unique(Table& t, TableIndex& ix, std::string* why) {
  ix.unique.clear();
  ix.unique.reserve(static_cast<size_t>(t.live()));
  std::string key;
  bool ok = true;
  t.each([&](int64_t id, Row* r) {
    if (!ok || t.key_has_nil(ix, r->slots())) return;
    t.key_of(ix, r->slots(), key);
    if (!ix.unique.try_emplace(key, id).second) {
      *why = "unique index " + ix.label + " violated (" + t.def().name + " id " + std::to_string(id) + ")";
      ok = false;
    }
  });
}

void run(Job& j) {
  try {
    if (j.index->def->unique)
      build_unique(*j.table, *j.index, &j.why);
    else
      j.table->build_ordered(*j.index);  // one sort (ordered.h)
  } catch (...) {
    j.error = std::current_exception();
  }
}

}  // namespace

bool build_indexes(Store& store, std::string* why) {
  std::vector<Job> jobs;
  for (size_t c = 0; c < store.size(); ++c) {
    Table& t = store.table(static_cast<uint32_t>(c));
    if (t.live() == 0) continue;
    for (TableIndex& ix : t.indexes) jobs.push_back(Job{&t, &ix, {}, {}});
  }
  // Shared by this thread and one helper (2 cores is the machine we measure
  // on; more helpers would only contend for memory bandwidth).
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t i; (i = next.fetch_add(1)) < jobs.size();) run(jobs[i]);
  };
  std::thread helper;
  if (jobs.size() > 1 && std::thread::hardware_concurrency() > 1) {
    try {
      helper = std::thread(work);
    } catch (const std::system_error&) {  // no thread: this one does it all
    }
  }
  work();
  if (helper.joinable()) helper.join();
  for (const Job& j : jobs)
    if (j.error) std::rethrow_exception(j.error);
  for (const Job& j : jobs)
    if (!j.why.empty()) {
      *why = j.why;
      return false;
    }
  return true;
}

}  // namespace wo::db
