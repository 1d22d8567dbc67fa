// json.encode / json.decode (builtins.md §11, language.md §10.9), driven by
// the WoTypeDesc constants codegen emits. docs/decisions/0006-json.md.
//
// Encode walks the value and writes compact JSON: objects in field order,
// maps in insertion order (Int keys as quoted decimals), Float through the
// language's renderer (non-finite -> null), nil -> null, Bytes -> base64,
// json.Value verbatim. Strings escape `"`, `\` and control bytes; bytes >= 0x80
// pass through.
//
// Decode is a recursive-descent parser (RFC 8259 grammar, strict) that builds
// the target value directly, no intermediate tree. Any syntax error or
// mismatch with the target type makes the whole result nil; partial results
// are released. Rules: unknown keys skipped; a repeated key: the last wins;
// an absent key leaves a nullable field nil and fails the decode for any
// other field; `null` only for nullable targets (and json.Value, which keeps
// it raw); Int takes integer-shaped numbers within int64 only; Float any
// number; Bool only true/false; Bytes a strict base64 string; \uXXXX to
// UTF-8 (surrogate pairs combined, a lone surrogate is malformed).
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "base64.h"
#include "float_render.h"
#include "../core/heap.h"
#include "json_internal.h"
#include "../core/trap.h"
#include "wo_db.h"

namespace wo::json {

bool is_heap_type(const WoTypeDesc* t) {
  switch (t->kind) {
    case WO_TY_INT:
    case WO_TY_FLOAT:
    case WO_TY_BOOL: return false;
    case WO_TY_NULLABLE: return is_heap_type(t->elem);
    default: return true;
  }
}

int64_t elem_kind_of(const WoTypeDesc* t) {
  switch (t->kind) {
    case WO_TY_INT:
    case WO_TY_BOOL: return WO_ELEM_SCALAR;
    case WO_TY_FLOAT: return WO_ELEM_FLOAT;
    case WO_TY_TEXT:
    case WO_TY_JSON_VALUE: return WO_ELEM_TEXT;
    case WO_TY_BYTES: return WO_ELEM_BYTES;
    case WO_TY_NULLABLE: return elem_kind_of(t->elem);
    default: return WO_ELEM_HEAP;
  }
}

uint64_t nil_word(const WoTypeDesc* t) {
  if (t->kind == WO_TY_NULLABLE) t = t->elem;
  switch (t->kind) {
    case WO_TY_INT:
    case WO_TY_BOOL: return static_cast<uint64_t>(WO_NIL_SCALAR);
    case WO_TY_FLOAT: return WO_NIL_FLOAT_BITS;
    default: return 0;
  }
}

}  // namespace wo::json

namespace {

using wo::json::elem_kind_of;
using wo::json::field_index;
using wo::json::is_heap_type;
using wo::json::kMaxDecodeDepth;
using wo::json::nil_word;
using wo::json::preset_nil_fields;
using wo::json::store_field;

constexpr int kMaxEncodeDepth = 1000;

uint64_t load_word(const void* p) {
  uint64_t w;
  std::memcpy(&w, p, sizeof w);
  return w;
}

// ---- encode -------------------------------------------------------------------

struct Encoder {
  std::string out;
  const WoSite* site;
  int depth = 0;

  void enter() {
    if (++depth > kMaxEncodeDepth) [[unlikely]]
      wo::raise(3, site, nullptr);
  }

  void string(const char* s, size_t n) {
    static const char kHex[] = "0123456789abcdef";
    out += '"';
    size_t run = 0;  // bytes copied as they are, flushed in one append
    for (size_t i = 0; i < n; ++i) {
      auto c = static_cast<unsigned char>(s[i]);
      if (c >= 0x20 && c != '"' && c != '\\') {
        ++run;
        continue;
      }
      out.append(s + i - run, run);
      run = 0;
      switch (c) {
        case '"': out += "\\\""; break;
        case '\\': out += "\\\\"; break;
        case '\n': out += "\\n"; break;
        case '\r': out += "\\r"; break;
        case '\t': out += "\\t"; break;
        case '\b': out += "\\b"; break;
        case '\f': out += "\\f"; break;
        default:
          out += "\\u00";
          out += kHex[c >> 4];
          out += kHex[c & 15];
      }
    }
    out.append(s + n - run, run);
    out += '"';
  }

  // A @table row (docs/decisions/0088): an object of its id and its stored
  // columns, read through the store like `row.field` (a deleted row traps as
  // that does).
  // A row named inside a row's columns (a `ref`, a `multi` of rows) stays
  // its id, so rows that refer to each other cannot recurse.
  int rows_open = 0;
  void row(int64_t id, const WoTypeDesc* t) {
    enter();
    ++rows_open;
    const auto table = static_cast<uint32_t>(t->nvariants);
    const WoClassDesc* c = t->cls;
    out += '{';
    bool comma = c->size != 0;  // `size` 1: the id leads as "id" (no column has that name)
    if (comma) {
      out += "\"id\":";
      int_(id);
    }
    for (int64_t i = 0; i < c->nfields; ++i) {
      const WoFieldDesc& f = c->fields[i];
      if (comma) out += ',';
      comma = true;
      string(f.name, std::strlen(f.name));
      out += ':';
      uint64_t w = wo_db_get(table, id, static_cast<uint32_t>(f.offset), site);
      bool optional_ref = f.type->kind == WO_TY_NULLABLE && f.type->elem->kind == WO_TY_INT && f.type->elem->cls;
      if (optional_ref && w == 0) {  // the store's nil of a `?ref` is id 0
        out += "null";
        continue;
      }
      value(&w, f.type);
      if (is_heap_type(f.type)) wo_release(reinterpret_cast<void*>(w));  // wo_db_get's copy
    }
    out += '}';
    --rows_open;
    --depth;
  }

  void int_(int64_t v) {
    char buf[24];
    int n = std::snprintf(buf, sizeof buf, "%lld", static_cast<long long>(v));
    out.append(buf, static_cast<size_t>(n));
  }

  void float_(double f) {
    if (!std::isfinite(f)) {
      out += "null";
      return;
    }
    char buf[48];
    out.append(buf, wo::render_float(f, buf));
  }

  // The value of type t stored at p (a field, a slot, a list/map slot).
  void value(const void* p, const WoTypeDesc* t) {
    switch (t->kind) {
      case WO_TY_INT:
        if (t->cls && rows_open == 0) return row(static_cast<int64_t>(load_word(p)), t);
        return int_(static_cast<int64_t>(load_word(p)));
      case WO_TY_FLOAT: {
        double d;
        std::memcpy(&d, p, sizeof d);
        return float_(d);
      }
      case WO_TY_BOOL: out += *static_cast<const unsigned char*>(p) ? "true" : "false"; return;
      case WO_TY_NULLABLE: {
        uint64_t w = load_word(p);
        if (w == nil_word(t->elem)) {
          out += "null";
          return;
        }
        return value(p, t->elem);
      }
      default: break;
    }
    const void* obj = reinterpret_cast<const void*>(load_word(p));
    if (!obj) {
      out += "null";
      return;
    }
    switch (t->kind) {
      case WO_TY_TEXT: {
        auto* s = static_cast<const WoText*>(obj);
        return string(s->bytes, static_cast<size_t>(s->len));
      }
      case WO_TY_BYTES: {
        auto* b = static_cast<const WoBytes*>(obj);
        out += '"';
        wo::base64_encode_to(b->bytes, static_cast<size_t>(b->len), out);
        out += '"';
        return;
      }
      case WO_TY_JSON_VALUE: {
        auto* s = static_cast<const WoText*>(obj);
        if (s->len == 0)
          out += "null";
        else
          out.append(s->bytes, static_cast<size_t>(s->len));
        return;
      }
      case WO_TY_CLASS: {
        enter();
        const WoClassDesc* c = t->cls;
        out += '{';
        for (int64_t i = 0; i < c->nfields; ++i) {
          const WoFieldDesc& f = c->fields[i];
          if (i) out += ',';
          string(f.name, std::strlen(f.name));
          out += ':';
          value(static_cast<const char*>(obj) + f.offset, f.type);
        }
        out += '}';
        --depth;
        return;
      }
      case WO_TY_LIST: {
        enter();
        auto* xs = static_cast<const WoList*>(obj);
        out += '[';
        for (int64_t i = 0; i < xs->len; ++i) {
          if (i) out += ',';
          value(&xs->data[i], t->elem);
        }
        out += ']';
        --depth;
        return;
      }
      case WO_TY_MAP: {
        enter();
        auto* m = const_cast<WoMap*>(static_cast<const WoMap*>(obj));
        out += '{';
        uint64_t k, v;
        bool first = true;
        for (int64_t pos = wo_map_iter(m, 0, &k, &v); pos >= 0; pos = wo_map_iter(m, pos + 1, &k, &v)) {
          if (!first) out += ',';
          first = false;
          if (t->elem->kind == WO_TY_INT) {
            out += '"';
            int_(static_cast<int64_t>(k));
            out += '"';
          } else {
            auto* s = reinterpret_cast<const WoText*>(k);
            string(s->bytes, static_cast<size_t>(s->len));
          }
          out += ':';
          value(&v, t->value);
        }
        out += '}';
        --depth;
        return;
      }
      default: out += "null"; return;
    }
  }
};

// ---- decode -------------------------------------------------------------------

struct Decoder {
  const char* p;
  const char* end;
  int depth = 0;

  void ws() {
    while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')) ++p;
  }
  bool eat(char c) {
    ws();
    if (p < end && *p == c) {
      ++p;
      return true;
    }
    return false;
  }
  bool literal(const char* word) {
    size_t n = std::strlen(word);
    if (static_cast<size_t>(end - p) < n || std::memcmp(p, word, n) != 0) return false;
    p += n;
    return true;
  }
  bool at(char c) {
    ws();
    return p < end && *p == c;
  }

  // A number token; *is_int when it has neither fraction nor exponent.
  bool number(const char** start, bool* is_int) {
    ws();
    *start = p;
    *is_int = true;
    if (p < end && *p == '-') ++p;
    if (p >= end) return false;
    if (*p == '0') {
      ++p;
    } else if (*p >= '1' && *p <= '9') {
      while (p < end && *p >= '0' && *p <= '9') ++p;
    } else {
      return false;
    }
    if (p < end && *p == '.') {
      *is_int = false;
      ++p;
      if (p >= end || *p < '0' || *p > '9') return false;
      while (p < end && *p >= '0' && *p <= '9') ++p;
    }
    if (p < end && (*p == 'e' || *p == 'E')) {
      *is_int = false;
      ++p;
      if (p < end && (*p == '+' || *p == '-')) ++p;
      if (p >= end || *p < '0' || *p > '9') return false;
      while (p < end && *p >= '0' && *p <= '9') ++p;
    }
    return true;
  }

  static int hex4(const char* s) {
    int v = 0;
    for (int i = 0; i < 4; ++i) {
      char c = s[i];
      int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
      if (d < 0) return -1;
      v = v * 16 + d;
    }
    return v;
  }

  static void utf8(std::string& out, uint32_t cp) {
    if (cp < 0x80) {
      out += static_cast<char>(cp);
    } else if (cp < 0x800) {
      out += static_cast<char>(0xC0 | (cp >> 6));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
      out += static_cast<char>(0xE0 | (cp >> 12));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
      out += static_cast<char>(0xF0 | (cp >> 18));
      out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    }
  }

  // A string token, unescaped into `out` (cleared first).
  bool string(std::string& out) {
    out.clear();
    ws();
    if (p >= end || *p != '"') return false;
    ++p;
    for (;;) {
      const char* run = p;
      while (p < end && *p != '"' && *p != '\\' && static_cast<unsigned char>(*p) >= 0x20) ++p;
      out.append(run, static_cast<size_t>(p - run));
      if (p >= end || static_cast<unsigned char>(*p) < 0x20) return false;
      if (*p == '"') {
        ++p;
        return true;
      }
      ++p;  // backslash
      if (p >= end) return false;
      char e = *p++;
      switch (e) {
        case '"': out += '"'; break;
        case '\\': out += '\\'; break;
        case '/': out += '/'; break;
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'n': out += '\n'; break;
        case 'r': out += '\r'; break;
        case 't': out += '\t'; break;
        case 'u': {
          if (end - p < 4) return false;
          int cp = hex4(p);
          if (cp < 0) return false;
          p += 4;
          if (cp >= 0xDC00 && cp <= 0xDFFF) return false;  // lone low surrogate
          if (cp >= 0xD800 && cp <= 0xDBFF) {
            if (end - p < 6 || p[0] != '\\' || p[1] != 'u') return false;
            int lo = hex4(p + 2);
            if (lo < 0xDC00 || lo > 0xDFFF) return false;
            p += 6;
            utf8(out, 0x10000 + ((static_cast<uint32_t>(cp) - 0xD800) << 10) + (static_cast<uint32_t>(lo) - 0xDC00));
          } else {
            utf8(out, static_cast<uint32_t>(cp));
          }
          break;
        }
        default: return false;
      }
    }
  }

  // Skips one value of any shape, checking its syntax.
  bool skip() {
    ws();
    if (p >= end) return false;
    switch (*p) {
      case '{': {
        if (++depth > kMaxDecodeDepth) return false;
        ++p;
        std::string key;
        if (!eat('}')) {
          do {
            if (!string(key) || !eat(':') || !skip()) return false;
          } while (eat(','));
          if (!eat('}')) return false;
        }
        --depth;
        return true;
      }
      case '[': {
        if (++depth > kMaxDecodeDepth) return false;
        ++p;
        if (!eat(']')) {
          do {
            if (!skip()) return false;
          } while (eat(','));
          if (!eat(']')) return false;
        }
        --depth;
        return true;
      }
      case '"': {
        std::string s;
        return string(s);
      }
      case 't': return literal("true");
      case 'f': return literal("false");
      case 'n': return literal("null");
      default: {
        const char* start;
        bool is_int;
        return number(&start, &is_int);
      }
    }
  }

  // One value of type t as an owned word (Bool as 0/1); false on any mismatch,
  // with nothing left allocated.
  bool value(const WoTypeDesc* t, uint64_t& out) {
    ws();
    if (p >= end) return false;
    if (t->kind == WO_TY_NULLABLE) {
      if (*p == 'n') {
        if (!literal("null")) return false;
        out = nil_word(t->elem);
        return true;
      }
      if (!value(t->elem, out)) return false;
      // -(2^62) in a `?Int` would read as null: it does not fit the type
      // (docs/decisions/0015), like a number outside int64.
      return is_heap_type(t->elem) || out != nil_word(t->elem);
    }
    switch (t->kind) {
      case WO_TY_INT:
        if (!t->cls) return integer(out);
        // A @table row is its id (or an object naming it), and only a row
        // that exists (decision 0088).
        if (*p == '{' ? !row_object(t->cls->size != 0, out) : !integer(out)) return false;
        return wo_db_exists(static_cast<uint32_t>(t->nvariants), static_cast<int64_t>(out));
      case WO_TY_FLOAT: {
        const char* s;
        bool is_int;
        if (!number(&s, &is_int)) return false;
        std::string tok(s, static_cast<size_t>(p - s));
        double d = std::strtod(tok.c_str(), nullptr);  // "C" locale: woc programs never change it
        std::memcpy(&out, &d, sizeof d);
        return true;
      }
      case WO_TY_BOOL:
        if (literal("true")) return out = 1, true;
        if (literal("false")) return out = 0, true;
        return false;
      case WO_TY_TEXT: {
        std::string s;
        if (!string(s)) return false;
        out = reinterpret_cast<uint64_t>(wo::text_from(s.data(), s.size()));
        return true;
      }
      case WO_TY_BYTES: {
        std::string s, raw;
        if (!string(s) || !wo::base64_decode_to(s.data(), s.size(), raw)) return false;
        out = reinterpret_cast<uint64_t>(wo::text_from(raw.data(), raw.size()));
        return true;
      }
      case WO_TY_JSON_VALUE: {
        const char* start = p;
        if (!skip()) return false;
        out = reinterpret_cast<uint64_t>(wo::text_from(start, static_cast<size_t>(p - start)));
        return true;
      }
      case WO_TY_CLASS: return object(t->cls, out);
      case WO_TY_LIST: return list(t->elem, out);
      case WO_TY_MAP: return map(t->elem, t->value, out);
      default: return false;
    }
  }

  static void store(char* field, const WoTypeDesc* t, uint64_t w) { store_field(field, t, w); }

  // An integer-shaped JSON number that fits int64.
  bool integer(uint64_t& out) {
    const char* s;
    bool is_int;
    if (!number(&s, &is_int) || !is_int) return false;
    bool neg = *s == '-';
    uint64_t mag = 0;
    const uint64_t limit = neg ? uint64_t{1} << 63 : (uint64_t{1} << 63) - 1;
    for (const char* q = s + neg; q < p; ++q) {
      uint64_t d = static_cast<uint64_t>(*q - '0');
      if (mag > (limit - d) / 10) return false;
      mag = mag * 10 + d;
    }
    out = neg ? 0 - mag : mag;
    return true;
  }

  // A row written as json.encode writes one: the object's "id" names it
  // (the other keys are skipped: decoding never writes the store). Without
  // `id_key` (a column is called `id`) no key names the row.
  bool row_object(bool id_key, uint64_t& out) {
    if (!eat('{')) return false;
    if (++depth > kMaxDecodeDepth) return false;
    bool found = false;
    std::string key;
    if (!eat('}')) {
      do {
        if (!string(key) || !eat(':')) return false;
        if (id_key && key == "id") {
          ws();
          if (!integer(out)) return false;
          found = true;
        } else if (!skip()) {
          return false;
        }
      } while (eat(','));
      if (!eat('}')) return false;
    }
    --depth;
    return found;
  }

  bool object(const WoClassDesc* c, uint64_t& out) {
    if (!eat('{')) return false;
    if (++depth > kMaxDecodeDepth) return false;
    auto* obj = static_cast<char*>(wo_alloc(c->size, c->destroy));
    wo::OwnedGuard guard(obj);
    std::vector<bool> seen(static_cast<size_t>(c->nfields), false);
    preset_nil_fields(obj, c);
    std::string key;
    if (!eat('}')) {
      do {
        if (!string(key) || !eat(':')) return false;
        int64_t fi = field_index(c, key);
        if (fi < 0) {
          if (!skip()) return false;
          continue;
        }
        const WoFieldDesc& f = c->fields[fi];
        uint64_t w;
        if (!value(f.type, w)) return false;
        char* at = obj + f.offset;
        if (seen[static_cast<size_t>(fi)] && is_heap_type(f.type)) wo_release(reinterpret_cast<void*>(load_word(at)));
        store(at, f.type, w);
        seen[static_cast<size_t>(fi)] = true;
      } while (eat(','));
      if (!eat('}')) return false;
    }
    for (int64_t i = 0; i < c->nfields; ++i)
      if (!seen[static_cast<size_t>(i)] && c->fields[i].type->kind != WO_TY_NULLABLE) return false;
    --depth;
    out = reinterpret_cast<uint64_t>(guard.disown());
    return true;
  }

  bool list(const WoTypeDesc* elem, uint64_t& out) {
    if (!eat('[')) return false;
    if (++depth > kMaxDecodeDepth) return false;
    WoList* xs = wo_list_new(elem_kind_of(elem), 0);
    wo::OwnedGuard guard(xs);
    if (!eat(']')) {
      do {
        uint64_t w;
        if (!value(elem, w)) return false;
        wo_list_push(xs, w);
      } while (eat(','));
      if (!eat(']')) return false;
    }
    --depth;
    out = reinterpret_cast<uint64_t>(guard.disown());
    return true;
  }

  // Int map keys are JSON strings holding a decimal int64 ("-12", not "+12",
  // " 12" or "012").
  static bool int_key(std::string_view s, uint64_t& out) {
    size_t i = s.size() && s[0] == '-' ? 1 : 0;
    if (i == s.size() || (s[i] == '0' && s.size() > i + 1)) return false;
    bool neg = i == 1;
    uint64_t mag = 0;
    const uint64_t limit = neg ? uint64_t{1} << 63 : (uint64_t{1} << 63) - 1;
    for (; i < s.size(); ++i) {
      if (s[i] < '0' || s[i] > '9') return false;
      uint64_t d = static_cast<uint64_t>(s[i] - '0');
      if (mag > (limit - d) / 10) return false;
      mag = mag * 10 + d;
    }
    out = neg ? 0 - mag : mag;
    return true;
  }

  bool map(const WoTypeDesc* key_t, const WoTypeDesc* val_t, uint64_t& out) {
    if (!eat('{')) return false;
    if (++depth > kMaxDecodeDepth) return false;
    bool int_keys = key_t->kind == WO_TY_INT;
    WoMap* m = wo_map_new(int_keys ? WO_ELEM_INT : WO_ELEM_TEXT, elem_kind_of(val_t));
    wo::OwnedGuard guard(m);
    std::string key;
    if (!eat('}')) {
      do {
        if (!string(key) || !eat(':')) return false;
        uint64_t k;
        if (int_keys) {
          if (!int_key(key, k)) return false;
        } else {
          k = reinterpret_cast<uint64_t>(wo::text_from(key.data(), key.size()));
        }
        wo::OwnedGuard key_guard(int_keys ? nullptr : reinterpret_cast<void*>(k));
        uint64_t w;
        if (!value(val_t, w)) return false;
        wo_map_set(m, k, w, nullptr);  // retains a Text key; ours is released by key_guard
      } while (eat(','));
      if (!eat('}')) return false;
    }
    --depth;
    out = reinterpret_cast<uint64_t>(guard.disown());
    return true;
  }
};

}  // namespace

namespace wo::json {

bool int_key(std::string_view s, uint64_t& out) { return Decoder::int_key(s, out); }

uint64_t decode_ours(const char* text, size_t len, const WoTypeDesc* type) {
  Decoder d{text, text + len};
  uint64_t w;
  if (!d.value(type, w)) return nil_word(type);
  d.ws();
  if (d.p != d.end) {
    if (is_heap_type(type)) wo_release(reinterpret_cast<void*>(w));
    return nil_word(type);
  }
  return w;
}

const char* skip_value(const char* p, const char* end, int depth) {
  Decoder d{p, end, depth};
  return d.skip() ? d.p : nullptr;
}

}  // namespace wo::json

extern "C" {

WoText* wo_json_encode(const void* value, const WoTypeDesc* type, const WoSite* site) {
  Encoder e{{}, site};
  e.value(value, type);
  return wo::text_from(e.out.data(), e.out.size());
}

uint64_t wo_json_decode(WoText* text, const WoTypeDesc* type) {
  wo::need(text);
  // Objects, lists and maps go through simdjson first (1.5x ours on the json
  // kernel's document, bench/libs); whatever it declines, ours decides.
  const WoTypeDesc* root = type->kind == WO_TY_NULLABLE ? type->elem : type;
  uint64_t fast;
  if ((root->kind == WO_TY_CLASS || root->kind == WO_TY_LIST || root->kind == WO_TY_MAP) &&
      wo::json::decode_simd(text->bytes, static_cast<size_t>(text->len), type, fast))
    return fast;
  return wo::json::decode_ours(text->bytes, static_cast<size_t>(text->len), type);
}

}  // extern "C"
