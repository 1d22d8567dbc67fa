// libpq, loaded with dlopen("libpq.so.5") on first use: a program that never
// names PostgreSQL neither pays libpq's start-up cost nor needs it installed.
// The types and constants come from libpq-fe.h (libpq-dev, build time only);
// the functions are called through this table.
#pragma once
#include <libpq-fe.h>

#include <string>

namespace wo::pg {

struct Libpq {
  decltype(&::PQconnectStartParams) connectStartParams;
  decltype(&::PQconnectPoll) connectPoll;
  decltype(&::PQstatus) status;
  decltype(&::PQerrorMessage) errorMessage;
  decltype(&::PQfinish) finish;
  decltype(&::PQsocket) socket;
  decltype(&::PQsetnonblocking) setnonblocking;
  decltype(&::PQsendPrepare) sendPrepare;
  decltype(&::PQsendQueryPrepared) sendQueryPrepared;
  decltype(&::PQsendQuery) sendQuery;
  decltype(&::PQflush) flush;
  decltype(&::PQconsumeInput) consumeInput;
  decltype(&::PQisBusy) isBusy;
  decltype(&::PQgetResult) getResult;
  decltype(&::PQresultStatus) resultStatus;
  decltype(&::PQresultErrorField) resultErrorField;
  decltype(&::PQresultErrorMessage) resultErrorMessage;
  decltype(&::PQclear) clear;
  decltype(&::PQntuples) ntuples;
  decltype(&::PQgetvalue) getvalue;
  decltype(&::PQgetlength) getlength;
  decltype(&::PQgetisnull) getisnull;
  decltype(&::PQcmdTuples) cmdTuples;
  decltype(&::PQtransactionStatus) transactionStatus;
  decltype(&::PQsetNoticeProcessor) setNoticeProcessor;
};

// The table, loading libpq the first time (thread-safe). NULL when it cannot
// be loaded; `why` then says so in one line.
const Libpq* libpq(std::string* why);

}  // namespace wo::pg
