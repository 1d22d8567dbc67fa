// json.decode's fast path: simdjson's On-Demand API (Debian libsimdjson-dev)
// reads objects, lists and maps straight into the target value, 1.5x our
// recursive-descent parser on the json kernel's document (bench/libs,
// docs/decisions/0054). It must never give an answer ours would not:
//
// - Anything it reports as an error (bad syntax, a number or string it will
//   not read, invalid UTF-8, which our grammar passes through) makes it
//   decline; json.cpp then runs our decoder, which decides.
// - On-Demand skips values it is not asked for without checking their
//   scalars (`tru`, `01`): every value we do not read ourselves (an unknown
//   key's value, a json.Value) is checked by our own grammar (skip_value)
//   from its first byte, at the depth it sits at.
// - Our limits and rules are applied as json.cpp applies them: the nesting
//   limit, the last of repeated keys wins, absent keys, the `?Int` nil word,
//   Int map keys, strict base64 for Bytes; and nothing may follow the root.
//
// Built for the baseline x86-64 (simdjson's portable kernel: no CPU
// dispatch needed); the parser of a thread is reused for texts up to 1 MiB.
#include <simdjson.h>

#include <cstring>
#include <string>
#include <vector>

#include "base64.h"
#include "../core/heap.h"
#include "json_internal.h"

namespace wo::json {
namespace {

namespace sj = simdjson::ondemand;

struct Fast {
  const char* end;  // of the padded copy's text (its padding excluded)
  int depth = 0;

  // Deeper documents are declined to our decoder (which allows
  // kMaxDecodeDepth): On-Demand's frames are large, and 512 levels of this
  // recursion overflowed an 8 MiB stack in ASan builds (a fiber's is smaller).
  static constexpr int kMaxFastDepth = 64;
  bool enter() { return ++depth <= kMaxFastDepth; }

  // A value we do not read (skipped or kept raw) checked by our grammar; its
  // raw text when `raw` is given. What follows it must be a `,` or the
  // `closer` of the container it is in: On-Demand's own skip would step over
  // a value that our grammar ends early (`01`, `"k":` for `{"k":`).
  bool judged(sj::value& v, char closer, std::string_view* raw) {
    std::string_view tok = v.raw_json_token();  // peeks: the value is left unread
    const char* after = skip_value(tok.data(), end, depth);
    if (!after) return false;
    const char* q = after;
    while (q < end && (*q == ' ' || *q == '\t' || *q == '\n' || *q == '\r')) ++q;
    if (q == end || (*q != ',' && *q != closer)) return false;
    if (raw) *raw = std::string_view(tok.data(), static_cast<size_t>(after - tok.data()));
    return true;
  }

  static void store(char* field, const WoTypeDesc* t, uint64_t w) { store_field(field, t, w); }

  // `closer`: the `}` or `]` of the container v is in.
  bool value(sj::value v, const WoTypeDesc* t, uint64_t& out, char closer) {
    if (t->kind == WO_TY_NULLABLE) {
      bool null;
      if (v.is_null().get(null)) return false;
      if (null) {
        out = nil_word(t->elem);
        return true;
      }
      if (!value(v, t->elem, out, closer)) return false;
      return is_heap_type(t->elem) || out != nil_word(t->elem);  // the `?Int` -(2^62): ours refuses it
    }
    switch (t->kind) {
      case WO_TY_INT: {
        int64_t i;
        if (v.get_int64().get(i)) return false;
        out = static_cast<uint64_t>(i);
        return !t->cls;  // a row's id: json.cpp decides whether the row exists
      }
      case WO_TY_FLOAT: {
        double d;
        if (v.get_double().get(d)) return false;
        std::memcpy(&out, &d, sizeof d);
        return true;
      }
      case WO_TY_BOOL: {
        bool b;
        if (v.get_bool().get(b)) return false;
        out = b;
        return true;
      }
      case WO_TY_TEXT: {
        std::string_view s;
        if (v.get_string().get(s)) return false;
        out = reinterpret_cast<uint64_t>(text_from(s.data(), s.size()));
        return true;
      }
      case WO_TY_BYTES: {
        std::string_view s;
        std::string raw;
        if (v.get_string().get(s) || !base64_decode_to(s.data(), s.size(), raw)) return false;
        out = reinterpret_cast<uint64_t>(text_from(raw.data(), raw.size()));
        return true;
      }
      case WO_TY_JSON_VALUE: {
        std::string_view raw;
        if (!judged(v, closer, &raw)) return false;
        out = reinterpret_cast<uint64_t>(text_from(raw.data(), raw.size()));
        return true;
      }
      case WO_TY_CLASS: return object(v, t->cls, out);
      case WO_TY_LIST: return list(v, t->elem, out);
      case WO_TY_MAP: return map(v, t->elem, t->value, out);
      default: return false;
    }
  }

  bool object(sj::value v, const WoClassDesc* c, uint64_t& out) {
    sj::object o;
    if (v.get_object().get(o) || !enter()) return false;
    auto* obj = static_cast<char*>(wo_alloc(c->size, c->destroy));
    OwnedGuard guard(obj);
    // Which fields were seen: a word for up to 64 fields, no allocation.
    uint64_t seen_bits = 0;
    std::vector<bool> seen_many(c->nfields > 64 ? static_cast<size_t>(c->nfields) : 0, false);
    auto seen = [&](int64_t i) { return c->nfields > 64 ? bool(seen_many[static_cast<size_t>(i)]) : (seen_bits >> i) & 1; };
    preset_nil_fields(obj, c);
    for (auto field : o) {
      std::string_view key;
      sj::value fv;
      if (field.unescaped_key().get(key) || field.value().get(fv)) return false;
      int64_t fi = field_index(c, key);
      if (fi < 0) {
        if (!judged(fv, '}', nullptr)) return false;
        continue;  // the iterator skips it
      }
      const WoFieldDesc& f = c->fields[fi];
      uint64_t w;
      if (!value(fv, f.type, w, '}')) return false;
      char* at = obj + f.offset;
      if (seen(fi) && is_heap_type(f.type)) {
        uint64_t old;
        std::memcpy(&old, at, sizeof old);
        wo_release(reinterpret_cast<void*>(old));
      }
      store(at, f.type, w);
      if (c->nfields > 64)
        seen_many[static_cast<size_t>(fi)] = true;
      else
        seen_bits |= uint64_t{1} << fi;
    }
    for (int64_t i = 0; i < c->nfields; ++i)
      if (!seen(i) && c->fields[i].type->kind != WO_TY_NULLABLE) return false;
    --depth;
    out = reinterpret_cast<uint64_t>(guard.disown());
    return true;
  }

  bool list(sj::value v, const WoTypeDesc* elem, uint64_t& out) {
    sj::array a;
    if (v.get_array().get(a) || !enter()) return false;
    WoList* xs = wo_list_new(elem_kind_of(elem), 0);
    OwnedGuard guard(xs);
    for (auto el : a) {
      sj::value ev;
      uint64_t w;
      if (el.get(ev) || !value(ev, elem, w, ']')) return false;
      wo_list_push(xs, w);
    }
    --depth;
    out = reinterpret_cast<uint64_t>(guard.disown());
    return true;
  }

  bool map(sj::value v, const WoTypeDesc* key_t, const WoTypeDesc* val_t, uint64_t& out) {
    sj::object o;
    if (v.get_object().get(o) || !enter()) return false;
    bool int_keys = key_t->kind == WO_TY_INT;
    WoMap* m = wo_map_new(int_keys ? WO_ELEM_INT : WO_ELEM_TEXT, elem_kind_of(val_t));
    OwnedGuard guard(m);
    for (auto field : o) {
      std::string_view key;
      sj::value fv;
      if (field.unescaped_key().get(key) || field.value().get(fv)) return false;
      uint64_t k;
      if (int_keys) {
        if (!int_key(key, k)) return false;
      } else {
        k = reinterpret_cast<uint64_t>(text_from(key.data(), key.size()));
      }
      OwnedGuard key_guard(int_keys ? nullptr : reinterpret_cast<void*>(k));
      uint64_t w;
      if (!value(fv, val_t, w, '}')) return false;
      wo_map_set(m, k, w, nullptr);  // retains a Text key; ours is released by key_guard
    }
    --depth;
    out = reinterpret_cast<uint64_t>(guard.disown());
    return true;
  }
};

constexpr size_t kKeepParserUpTo = size_t{1} << 20;

}  // namespace

bool decode_simd(const char* text, size_t len, const WoTypeDesc* type, uint64_t& out) {
  // A Text has no SIMDJSON_PADDING bytes after it: On-Demand reads a padded copy.
  simdjson::padded_string copy(text, len);
  thread_local sj::parser kept;
  sj::parser once;
  sj::parser& parser = len <= kKeepParserUpTo ? kept : once;  // no thread holds a big text's buffers
  sj::document doc;
  sj::value root;
  if (parser.iterate(copy).get(doc) || doc.get_value().get(root)) return false;
  Fast f{copy.data() + len};
  uint64_t w;
  if (!f.value(root, type, w, '\0')) return false;  // the root is a container: never judged
  // Nothing may follow the root (3.0.1 has no document::at_end).
  if (doc.current_location().error() != simdjson::OUT_OF_BOUNDS) {
    if (is_heap_type(type)) wo_release(reinterpret_cast<void*>(w));
    return false;
  }
  out = w;
  return true;
}

}  // namespace wo::json
