// The engine's view of what every store back end shares (runtime/src/store/):
// the schema, the value codec, container values, migration plans and the
// order of values. The engine speaks of them as its own (`Field`, `Schema`,
// `Reader`, `plan_migration`...): they were its own before the PostgreSQL
// store needed them too, and writing `store::` before each would say
// nothing the folder does not.
#pragma once
#include "../store/codec.h"
#include "../store/migrate.h"
#include "../store/order.h"
#include "../store/schema.h"
#include "../store/value.h"

namespace wo::db {
using namespace wo::store;  // NOLINT(google-build-using-namespace): see above
}  // namespace wo::db
