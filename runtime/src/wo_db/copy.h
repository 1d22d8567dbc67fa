// WO_COPY_TO: copies the embedded store of WO_DATA into a PostgreSQL
// database with the same ids instead of running `main` (copy.cpp).
#pragma once
#include "wo_db.h"

namespace wo::wo_db {

// 0 when every durable table was copied (a line on stdout says how much);
// 2 with a `wo: copy-store: …` line on stderr when refused or failed.
int copy_store(const WoDbSchema* schema, const WoDbConfig* config, const char* to);

}  // namespace wo::wo_db
