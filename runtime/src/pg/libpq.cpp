// dlopen of libpq.so.5 and its function table (libpq.h).
#include "libpq.h"

#include <dlfcn.h>

#include <mutex>

namespace wo::pg {
namespace {

Libpq g_pq;
bool g_ok = false;
std::string g_why;

template <class F>
bool sym(void* h, const char* name, F* out) {
  *out = reinterpret_cast<F>(::dlsym(h, name));
  if (*out) return true;
  g_why = std::string("libpq.so.5 has no ") + name;
  return false;
}

void load() {
  void* h = ::dlopen("libpq.so.5", RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    const char* e = ::dlerror();
    g_why = std::string("cannot load libpq.so.5 (install libpq5): ") + (e ? e : "not found");
    return;
  }
  g_ok = sym(h, "PQconnectStartParams", &g_pq.connectStartParams) &&
         sym(h, "PQconnectPoll", &g_pq.connectPoll) && sym(h, "PQstatus", &g_pq.status) &&
         sym(h, "PQerrorMessage", &g_pq.errorMessage) && sym(h, "PQfinish", &g_pq.finish) &&
         sym(h, "PQsocket", &g_pq.socket) && sym(h, "PQsetnonblocking", &g_pq.setnonblocking) &&
         sym(h, "PQsendPrepare", &g_pq.sendPrepare) && sym(h, "PQsendQueryPrepared", &g_pq.sendQueryPrepared) &&
         sym(h, "PQsendQuery", &g_pq.sendQuery) && sym(h, "PQflush", &g_pq.flush) &&
         sym(h, "PQconsumeInput", &g_pq.consumeInput) && sym(h, "PQisBusy", &g_pq.isBusy) &&
         sym(h, "PQgetResult", &g_pq.getResult) && sym(h, "PQresultStatus", &g_pq.resultStatus) &&
         sym(h, "PQresultErrorField", &g_pq.resultErrorField) &&
         sym(h, "PQresultErrorMessage", &g_pq.resultErrorMessage) && sym(h, "PQclear", &g_pq.clear) &&
         sym(h, "PQntuples", &g_pq.ntuples) && sym(h, "PQgetvalue", &g_pq.getvalue) &&
         sym(h, "PQgetlength", &g_pq.getlength) && sym(h, "PQgetisnull", &g_pq.getisnull) &&
         sym(h, "PQcmdTuples", &g_pq.cmdTuples) && sym(h, "PQtransactionStatus", &g_pq.transactionStatus) &&
         sym(h, "PQsetNoticeProcessor", &g_pq.setNoticeProcessor);
}

}  // namespace

const Libpq* libpq(std::string* why) {
  static std::once_flag once;
  std::call_once(once, load);
  if (!g_ok && why) *why = g_why;
  return g_ok ? &g_pq : nullptr;
}

}  // namespace wo::pg
