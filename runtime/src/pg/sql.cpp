// SQL text shared by the statements and the DDL (store.h): quoting, the
// column type of each field kind, the names of indexes and constraints.
#include <cstdio>

#include "store.h"

namespace wo::pg {

std::string quote_ident(const std::string& s) {
  std::string o = "\"";
  for (char ch : s) o += ch == '"' ? std::string("\"\"") : std::string(1, ch);
  return o + "\"";
}

std::string quote_literal(const std::string& s) {
  std::string o = "'";
  for (char ch : s) o += ch == '\'' ? std::string("''") : std::string(1, ch);
  return o + "'";
}

const char* sql_type(const store::Field& f) {
  switch (f.kind) {
    case store::Kind::Bool: return "boolean";
    case store::Kind::Float: return "double precision";
    case store::Kind::Text:   // a byte string (NUL and any bytes, language.md), ordered bytewise
    case store::Kind::Bytes:
    case store::Kind::Multi:   // the engine's own encoding (store/value.h)
    case store::Kind::Map: return "bytea";
    default: return "bigint";  // Int, Timestamp, Id, ref
  }
}

const char* sql_cast(const store::Field& f) {
  switch (f.kind) {
    case store::Kind::Bool: return "::boolean";
    case store::Kind::Float: return "::double precision";
    case store::Kind::Text:
    case store::Kind::Bytes:
    case store::Kind::Multi:
    case store::Kind::Map: return "::bytea";
    default: return "::bigint";
  }
}

// wo_<table>_<cols>_<suffix>; past PostgreSQL's 63 bytes, a prefix and a hash.
std::string constraint_name(const std::string& table, const std::vector<std::string>& cols, const char* suffix) {
  std::string n = "wo_" + table;
  for (const std::string& c : cols) n += "_" + c;
  std::string tail = std::string("_") + suffix;
  if (n.size() + tail.size() <= 63) return n + tail;
  uint64_t h = 1469598103934665603ull;
  for (unsigned char ch : n) h = (h ^ ch) * 1099511628211ull;
  size_t keep = 40;
  while (keep > 0 && (static_cast<unsigned char>(n[keep]) & 0xC0) == 0x80) --keep;  // whole UTF-8 characters
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(h));
  return n.substr(0, keep) + "_" + hex + tail;
}

}  // namespace wo::pg
