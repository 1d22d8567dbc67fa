// json.encode / json.decode through WoTypeDesc (builtins.md §11,
// language.md §10.9, docs/decisions/0006-json.md).
#include <doctest/doctest.h>

#include <cmath>
#include <cstddef>
#include <limits>
#include <string>

#include "runtime/src/builtins/json_internal.h"
#include "support.h"

using namespace wotest;

namespace {

const WoSite kSite{"serialise", 64, nullptr, 0};

// ---- descriptors, as codegen would emit them -------------------------------------
const WoTypeDesc kInt{WO_TY_INT, nullptr, nullptr, nullptr, 0, nullptr};
const WoTypeDesc kFloat{WO_TY_FLOAT, nullptr, nullptr, nullptr, 0, nullptr};
const WoTypeDesc kBool{WO_TY_BOOL, nullptr, nullptr, nullptr, 0, nullptr};
const WoTypeDesc kText{WO_TY_TEXT, nullptr, nullptr, nullptr, 0, nullptr};
const WoTypeDesc kBytes{WO_TY_BYTES, nullptr, nullptr, nullptr, 0, nullptr};
const WoTypeDesc kRaw{WO_TY_JSON_VALUE, nullptr, nullptr, nullptr, 0, nullptr};
const WoTypeDesc kNInt{WO_TY_NULLABLE, &kInt, nullptr, nullptr, 0, nullptr};
const WoTypeDesc kNFloat{WO_TY_NULLABLE, &kFloat, nullptr, nullptr, 0, nullptr};
const WoTypeDesc kNBool{WO_TY_NULLABLE, &kBool, nullptr, nullptr, 0, nullptr};
const WoTypeDesc kNText{WO_TY_NULLABLE, &kText, nullptr, nullptr, 0, nullptr};
const WoTypeDesc kNRaw{WO_TY_NULLABLE, &kRaw, nullptr, nullptr, 0, nullptr};
const WoTypeDesc kListInt{WO_TY_LIST, &kInt, nullptr, nullptr, 0, nullptr};
const WoTypeDesc kListText{WO_TY_LIST, &kText, nullptr, nullptr, 0, nullptr};
const WoTypeDesc kListFloat{WO_TY_LIST, &kFloat, nullptr, nullptr, 0, nullptr};
const WoTypeDesc kListBool{WO_TY_LIST, &kBool, nullptr, nullptr, 0, nullptr};
const WoTypeDesc kMapTextInt{WO_TY_MAP, &kText, &kInt, nullptr, 0, nullptr};
const WoTypeDesc kMapIntText{WO_TY_MAP, &kInt, &kText, nullptr, 0, nullptr};

// typedef Tagged = { tag: Text, w: Float, ok: ?Bool }   (language.md §10.9)
struct Tagged {
  WoHeader h;
  WoText* tag;
  double w;
  int64_t ok;
};
void tagged_destroy(void* p) { wo_release(static_cast<Tagged*>(p)->tag); }
const WoFieldDesc kTaggedFields[] = {
    {"tag", &kText, offsetof(Tagged, tag)},
    {"w", &kFloat, offsetof(Tagged, w)},
    {"ok", &kNBool, offsetof(Tagged, ok)},
};
const WoClassDesc kTaggedClass{"Tagged", sizeof(Tagged), tagged_destroy, 3, kTaggedFields};
const WoTypeDesc kTagged{WO_TY_CLASS, nullptr, nullptr, &kTaggedClass, 0, nullptr};

// typedef Settings = { port: Int, ?motd: Text }   (language.md §10.9)
struct Settings {
  WoHeader h;
  int64_t port;
  WoText* motd;
};
void settings_destroy(void* p) { wo_release(static_cast<Settings*>(p)->motd); }
const WoFieldDesc kSettingsFields[] = {
    {"port", &kInt, offsetof(Settings, port)},
    {"motd", &kNText, offsetof(Settings, motd)},
};
const WoClassDesc kSettingsClass{"Settings", sizeof(Settings), settings_destroy, 2, kSettingsFields};
const WoTypeDesc kSettings{WO_TY_CLASS, nullptr, nullptr, &kSettingsClass, 0, nullptr};
const WoTypeDesc kNSettings{WO_TY_NULLABLE, &kSettings, nullptr, nullptr, 0, nullptr};
const WoTypeDesc kListSettings{WO_TY_LIST, &kSettings, nullptr, nullptr, 0, nullptr};

// A class with every kind of field; Bool fields are one byte (as LLVM lays
// out an i1 field), so two of them sit side by side.
struct All {
  WoHeader h;
  int64_t n;
  double f;
  bool b1;
  bool b2;
  int64_t nn;  // ?Int
  double nf_pad_unused;
  uint64_t nf;  // ?Float (bits)
  WoText* t;
  WoBytes* by;
  WoList* xs;
  WoMap* m;
  Settings* inner;  // ?Settings
  WoText* raw;      // json.Value
  WoList* names;
};
void all_destroy(void* p) {
  auto* a = static_cast<All*>(p);
  wo_release(a->t);
  wo_release(a->by);
  wo_release(a->xs);
  wo_release(a->m);
  wo_release(a->inner);
  wo_release(a->raw);
  wo_release(a->names);
}
const WoFieldDesc kAllFields[] = {
    {"n", &kInt, offsetof(All, n)},
    {"f", &kFloat, offsetof(All, f)},
    {"b1", &kBool, offsetof(All, b1)},
    {"b2", &kBool, offsetof(All, b2)},
    {"nn", &kNInt, offsetof(All, nn)},
    {"nf", &kNFloat, offsetof(All, nf)},
    {"t", &kText, offsetof(All, t)},
    {"by", &kBytes, offsetof(All, by)},
    {"xs", &kListInt, offsetof(All, xs)},
    {"m", &kMapTextInt, offsetof(All, m)},
    {"inner", &kNSettings, offsetof(All, inner)},
    {"raw", &kRaw, offsetof(All, raw)},
    {"names", &kListText, offsetof(All, names)},
};
const WoClassDesc kAllClass{"All", sizeof(All), all_destroy, 13, kAllFields};
const WoTypeDesc kAll{WO_TY_CLASS, nullptr, nullptr, &kAllClass, 0, nullptr};

// A recursive class: Node { v: Int, next: ?Node }.
struct Node {
  WoHeader h;
  int64_t v;
  Node* next;
};
void node_destroy(void* p) { wo_release(static_cast<Node*>(p)->next); }
extern const WoTypeDesc kNNode;
const WoFieldDesc kNodeFields[] = {
    {"v", &kInt, offsetof(Node, v)},
    {"next", &kNNode, offsetof(Node, next)},
};
const WoClassDesc kNodeClass{"Node", sizeof(Node), node_destroy, 2, kNodeFields};
const WoTypeDesc kNode{WO_TY_CLASS, nullptr, nullptr, &kNodeClass, 0, nullptr};
const WoTypeDesc kNNode{WO_TY_NULLABLE, &kNode, nullptr, nullptr, 0, nullptr};

// ---- helpers ----------------------------------------------------------------------

std::string encode_slot(const void* p, const WoTypeDesc* t) {
  OText r(wo_json_encode(p, t, &kSite));
  return str(r);
}

template <class T>
std::string encode(const T& v, const WoTypeDesc* t) {
  return encode_slot(&v, t);
}

uint64_t decode(std::string_view s, const WoTypeDesc* t) {
  OText in(text(s));
  return wo_json_decode(in, t);
}

template <class T>
T* decode_obj(std::string_view s, const WoTypeDesc* t) {
  return reinterpret_cast<T*>(decode(s, t));
}

double as_f(uint64_t w) { return fval(w); }

Tagged* make_tagged(std::string_view tag, double w, int64_t ok) {
  auto* r = static_cast<Tagged*>(wo_alloc(sizeof(Tagged), tagged_destroy));
  r->tag = text(tag);
  r->w = w;
  r->ok = ok;
  return r;
}

}  // namespace

TEST_CASE("encode: the language.md §10.9 example, compact and in field order") {
  Owned<Tagged> r(make_tagged("a", 0.5, WO_NIL_SCALAR));
  CHECK(encode(r.get(), &kTagged) == R"({"tag":"a","w":0.5,"ok":null})");
  r->ok = 1;
  CHECK(encode(r.get(), &kTagged) == R"({"tag":"a","w":0.5,"ok":true})");
  r->ok = 0;
  r->w = 42.0;
  CHECK(encode(r.get(), &kTagged) == R"({"tag":"a","w":42.0,"ok":false})");
}

TEST_CASE("encode scalars: Int decimal, Bool true/false, Float renderer, non-finite null") {
  CHECK(encode(int64_t{0}, &kInt) == "0");
  CHECK(encode(int64_t{-42}, &kInt) == "-42");
  CHECK(encode(INT64_MIN, &kInt) == "-9223372036854775808");
  CHECK(encode(true, &kBool) == "true");
  CHECK(encode(false, &kBool) == "false");
  CHECK(encode(int64_t{1}, &kBool) == "true");  // a Bool in a 64-bit slot
  CHECK(encode(9.99, &kFloat) == "9.99");
  CHECK(encode(0.25, &kFloat) == "0.25");
  CHECK(encode(0.1 + 0.2, &kFloat) == "0.30000000000000004");
  CHECK(encode(-0.0, &kFloat) == "-0.0");
  CHECK(encode(1e21, &kFloat) == "1e+21");
  CHECK(encode(1.5e-7, &kFloat) == "1.5e-07");
  CHECK(encode(std::numeric_limits<double>::infinity(), &kFloat) == "null");
  CHECK(encode(-std::numeric_limits<double>::infinity(), &kFloat) == "null");
  CHECK(encode(std::nan(""), &kFloat) == "null");
  CHECK(encode(-std::nan(""), &kFloat) == "null");
}

TEST_CASE("encode nullables: nil is null for every kind, including ?Bool and ?Float") {
  CHECK(encode(WO_NIL_SCALAR, &kNInt) == "null");
  CHECK(encode(int64_t{0}, &kNInt) == "0");
  CHECK(encode(WO_NIL_SCALAR, &kNBool) == "null");
  CHECK(encode(int64_t{0}, &kNBool) == "false");
  CHECK(encode(WO_NIL_FLOAT_BITS, &kNFloat) == "null");
  CHECK(encode(fslot(1.5), &kNFloat) == "1.5");
  CHECK(encode(fslot(std::nan("")), &kNFloat) == "null");  // a computed NaN in a ?Float
  WoText* none = nullptr;
  CHECK(encode(none, &kNText) == "null");
  Settings* s = nullptr;
  CHECK(encode(s, &kNSettings) == "null");
}

TEST_CASE("encode strings: escapes for \", \\ and control bytes; other bytes verbatim") {
  OText t(wo_text_new("q\"b\\s/\n\r\t\b\f\x01\x1f\x7f \xc3\xa9\0", 18));
  CHECK(encode(t.get(), &kText) == "\"q\\\"b\\\\s/\\n\\r\\t\\b\\f\\u0001\\u001f\x7f \xc3\xa9\\u0000\"");
  OText e(text(""));
  CHECK(encode(e.get(), &kText) == "\"\"");
}

TEST_CASE("encode Bytes as padded base64, json.Value verbatim") {
  OBytes b(bytes("hi!?"));
  CHECK(encode(b.get(), &kBytes) == "\"aGkhPw==\"");
  OBytes e(bytes(""));
  CHECK(encode(e.get(), &kBytes) == "\"\"");
  OText raw(text(R"({"a": [1, 2]})"));
  CHECK(encode(raw.get(), &kRaw) == R"({"a": [1, 2]})");
}

TEST_CASE("encode lists and maps: arrays; objects in insertion order, Int keys quoted") {
  OList xs(wo_list_new(WO_ELEM_INT, 0));
  CHECK(encode(xs.get(), &kListInt) == "[]");
  for (int64_t v : {3, -1, 0}) wo_list_push(xs, islot(v));
  CHECK(encode(xs.get(), &kListInt) == "[3,-1,0]");
  OList fs(wo_list_new(WO_ELEM_FLOAT, 0));
  wo_list_push(fs, fslot(1.0));
  wo_list_push(fs, fslot(std::nan("")));
  CHECK(encode(fs.get(), &kListFloat) == "[1.0,null]");
  OList bs(wo_list_new(WO_ELEM_INT, 0));
  wo_list_push(bs, 1);
  wo_list_push(bs, 0);
  CHECK(encode(bs.get(), &kListBool) == "[true,false]");

  OMap m(wo_map_new(WO_ELEM_TEXT, WO_ELEM_INT));
  CHECK(encode(m.get(), &kMapTextInt) == "{}");
  for (auto [k, v] : {std::pair<const char*, int64_t>{"z", 1}, {"a", 2}, {"m\"", 3}}) {
    OText key(text(k));
    wo_map_set(m, pslot(key.get()), islot(v), &kSite);
  }
  CHECK(encode(m.get(), &kMapTextInt) == R"({"z":1,"a":2,"m\"":3})");
  OMap im(wo_map_new(WO_ELEM_INT, WO_ELEM_TEXT));
  wo_map_set(im, islot(-5), pslot(text("neg")), &kSite);
  wo_map_set(im, islot(10), pslot(text("ten")), &kSite);
  CHECK(encode(im.get(), &kMapIntText) == R"({"-5":"neg","10":"ten"})");
}

TEST_CASE("decode the language.md §10.9 example, and its nil cases") {
  Owned<Settings> s(decode_obj<Settings>(R"({"port": 8081, "motd": "hi"})", &kSettings));
  REQUIRE(s.get());
  CHECK(s->port == 8081);
  REQUIRE(s->motd);
  CHECK(str(s->motd) == "hi");
  Owned<Settings> s2(decode_obj<Settings>(R"( {"port":1} )", &kSettings));
  REQUIRE(s2.get());
  CHECK(s2->motd == nullptr);  // absent key: the nullable field stays nil
  Owned<Settings> s3(decode_obj<Settings>(R"({"motd":null,"port":2,"extra":{"deep":[1,{"x":null}]}})", &kSettings));
  REQUIRE(s3.get());
  CHECK(s3->port == 2);
  CHECK(s3->motd == nullptr);
  // malformed or not fitting: nil, never a trap
  for (const char* bad : {"", "{", "{\"port\":1", "{\"port\":1,}", "[1]", "null", "{\"port\":\"1\"}",
                          "{\"port\":1.5}", "{\"port\":2e3}", "{\"port\":1E0}", "{\"port\":-}", "{\"port\":01}",
                          "{\"port\":1} x", "{\"port\":1}{}", "{port:1}", "{'port':1}", "{\"port\":null}",
                          "{\"motd\":\"x\"}", "{\"port\":1,\"motd\":5}", "{\"port\":9223372036854775808}",
                          "{\"port\":1 \"motd\":\"x\"}", "{\"port\":1,,\"motd\":\"x\"}", "{\"port\":true}",
                          "\xef\xbb\xbf{\"port\":1}"}) {
    CAPTURE(bad);
    CHECK(decode(bad, &kSettings) == 0);
  }
}

TEST_CASE("decode numbers: Int integer-shaped within int64; Float any number") {
  CHECK(static_cast<int64_t>(decode("0", &kInt)) == 0);
  CHECK(static_cast<int64_t>(decode("-0", &kInt)) == 0);
  CHECK(static_cast<int64_t>(decode(" 42 ", &kInt)) == 42);
  CHECK(static_cast<int64_t>(decode("-9223372036854775808", &kInt)) == INT64_MIN);
  CHECK(static_cast<int64_t>(decode("9223372036854775807", &kInt)) == INT64_MAX);
  for (const char* bad : {"9223372036854775808", "-9223372036854775809", "1.0", "2e3", "1E2", "+1", "01", ".5",
                          "1.", "-", "0x10", "NaN", "Infinity", "1 2", "\"1\""})
    CHECK(static_cast<int64_t>(decode(bad, &kInt)) == WO_NIL_SCALAR);
  CHECK(as_f(decode("42", &kFloat)) == 42.0);
  CHECK(as_f(decode("-0.25", &kFloat)) == -0.25);
  CHECK(as_f(decode("2.5e-3", &kFloat)) == 0.0025);
  CHECK(as_f(decode("1E+2", &kFloat)) == 100.0);
  CHECK(as_f(decode("0.30000000000000004", &kFloat)) == 0.1 + 0.2);
  CHECK(std::isinf(as_f(decode("1e999", &kFloat))));
  for (const char* bad : {"1.", ".5", "1e", "1e+", "-", "+1", "NaN", "null", "true", "01.5"})
    CHECK(decode(bad, &kFloat) == WO_NIL_FLOAT_BITS);
}

TEST_CASE("decode Bool and nullables: null is nil, distinct from every value") {
  CHECK(decode("true", &kBool) == 1);
  CHECK(decode("false", &kBool) == 0);
  for (const char* bad : {"1", "0", "\"true\"", "True", "tru", "null"})
    CHECK(static_cast<int64_t>(decode(bad, &kBool)) == WO_NIL_SCALAR);
  CHECK(static_cast<int64_t>(decode("null", &kNInt)) == WO_NIL_SCALAR);
  CHECK(static_cast<int64_t>(decode("0", &kNInt)) == 0);
  CHECK(static_cast<int64_t>(decode("null", &kNBool)) == WO_NIL_SCALAR);
  CHECK(decode("false", &kNBool) == 0);
  CHECK(decode("null", &kNFloat) == WO_NIL_FLOAT_BITS);
  CHECK(as_f(decode("0", &kNFloat)) == 0.0);
  CHECK(decode("null", &kNText) == 0);
  CHECK(decode("nul", &kNText) == 0);
}

TEST_CASE("decode strings: escapes, \\u to UTF-8, surrogate pairs; raw control bytes rejected") {
  auto dec_text = [](std::string_view s) -> std::string {
    OText t(reinterpret_cast<WoText*>(decode(s, &kText)));
    return t.get() ? str(t) : "<nil>";
  };
  CHECK(dec_text(R"("plain")") == "plain");
  CHECK(dec_text(R"("")") == "");
  CHECK(dec_text(R"("q\"b\\s\/n\n\r\t\b\f")") == "q\"b\\s/n\n\r\t\b\f");
  CHECK(dec_text(R"("\u0041\u00e9\u20AC")") == "A\xc3\xa9\xe2\x82\xac");
  CHECK(dec_text(R"("\u0000")") == std::string("\0", 1));
  CHECK(dec_text(R"("\ud83d\ude00")") == "\xf0\x9f\x98\x80");
  CHECK(dec_text("\"\xc3\xa9 \xff\"") == "\xc3\xa9 \xff");  // bytes >= 0x80 pass through
  for (const char* bad : {R"("\ud83d")", R"("\ude00")", R"("\ud83d\u0041")", R"("\u12")", R"("\u12G4")",
                          R"("\x")", R"("\)", "\"a\nb\"", "\"a\tb\"", "\"open", "'single'", "\"a\" \"b\""})
    CHECK(dec_text(bad) == "<nil>");
}

TEST_CASE("decode Bytes from base64; malformed base64 makes the whole decode nil") {
  OBytes b(reinterpret_cast<WoBytes*>(decode(R"("aGkhPw==")", &kBytes)));
  REQUIRE(b.get());
  CHECK(str(b.get()) == "hi!?");
  OBytes e(reinterpret_cast<WoBytes*>(decode(R"("")", &kBytes)));
  REQUIRE(e.get());
  CHECK(e->len == 0);
  CHECK(decode(R"("aGk")", &kBytes) == 0);
  CHECK(decode(R"("aG!=")", &kBytes) == 0);
  CHECK(decode("null", &kBytes) == 0);
}

TEST_CASE("decode json.Value keeps the raw slice; null is kept raw unless the field is nullable") {
  OText r(reinterpret_cast<WoText*>(decode(R"(  {"a": [1, {"b": null}]} )", &kRaw)));
  REQUIRE(r.get());
  CHECK(str(r) == R"({"a": [1, {"b": null}]})");
  OText n(reinterpret_cast<WoText*>(decode("null", &kRaw)));
  REQUIRE(n.get());
  CHECK(str(n) == "null");
  CHECK(decode("null", &kNRaw) == 0);
  CHECK(decode(R"({"a":})", &kRaw) == 0);
}

TEST_CASE("decode every field kind, then encode it back") {
  const char* in =
      R"({"n":-7,"f":3,"b1":true,"b2":false,"nn":null,"nf":2.5,"t":"x\u00e9","by":"AAE=",)"
      R"("xs":[1,2,3],"m":{"b":2,"a":1,"b":20},"inner":{"port":80},"raw":[true, null],"names":["p","q"],)"
      R"("unknown":{"k":[1,2,{"z":"\u0041"}]}})";
  Owned<All> a(decode_obj<All>(in, &kAll));
  REQUIRE(a.get());
  CHECK(a->n == -7);
  CHECK(a->f == 3.0);
  CHECK(a->b1 == true);
  CHECK(a->b2 == false);
  CHECK(a->nn == WO_NIL_SCALAR);
  CHECK(fval(a->nf) == 2.5);
  CHECK(str(a->t) == "x\xc3\xa9");
  CHECK(str(a->by) == std::string("\0\1", 2));
  CHECK(a->xs->elem_kind == WO_ELEM_INT);
  CHECK(a->xs->len == 3);
  CHECK(a->m->len == 2);  // a repeated key: the last value wins, first position kept
  CHECK(a->m->key_kind == WO_ELEM_TEXT);
  CHECK(encode(a->m, &kMapTextInt) == R"({"b":20,"a":1})");
  REQUIRE(a->inner);
  CHECK(a->inner->port == 80);
  CHECK(a->inner->motd == nullptr);
  CHECK(str(a->raw) == "[true, null]");
  CHECK(a->names->elem_kind == WO_ELEM_TEXT);
  CHECK(texts(a->names) == std::vector<std::string>{"p", "q"});
  CHECK(encode(a.get(), &kAll) ==
        R"({"n":-7,"f":3.0,"b1":true,"b2":false,"nn":null,"nf":2.5,"t":"x)"
        "\xc3\xa9"
        R"(","by":"AAE=","xs":[1,2,3],"m":{"b":20,"a":1},"inner":{"port":80,"motd":null},"raw":[true, null],"names":["p","q"]})");
}

TEST_CASE("decode: absent non-nullable fields (scalar, list, map) fail the decode") {
  CHECK(decode(R"({"w":1.0,"ok":null})", &kTagged) == 0);  // no "tag"
  Owned<Tagged> t(decode_obj<Tagged>(R"({"tag":"x","w":1})", &kTagged));
  REQUIRE(t.get());
  CHECK(t->ok == WO_NIL_SCALAR);  // absent ?Bool: the scalar nil, not 0
  CHECK(decode(R"({"n":1})", &kAll) == 0);
}

TEST_CASE("decode a repeated class field: the last value wins, the first is released") {
  Owned<Tagged> t(decode_obj<Tagged>(R"({"tag":"first","w":1,"tag":"second"})", &kTagged));
  REQUIRE(t.get());
  CHECK(str(t->tag) == "second");
}

TEST_CASE("decode lists and maps at the top level; Int map keys are strict decimals") {
  OList xs(reinterpret_cast<WoList*>(decode("[ 1 , -2 ,3 ]", &kListInt)));
  REQUIRE(xs.get());
  CHECK(xs->len == 3);
  CHECK(static_cast<int64_t>(xs->data[1]) == -2);
  OList e(reinterpret_cast<WoList*>(decode("[]", &kListInt)));
  REQUIRE(e.get());
  CHECK(e->len == 0);
  for (const char* bad : {"[1,]", "[,1]", "[1 2]", "[1", "[\"a\"]", "[null]", "{}"}) CHECK(decode(bad, &kListInt) == 0);
  OList objs(reinterpret_cast<WoList*>(decode(R"([{"port":1},{"port":2,"motd":"m"}])", &kListSettings)));
  REQUIRE(objs.get());
  CHECK(objs->elem_kind == WO_ELEM_HEAP);
  CHECK(reinterpret_cast<Settings*>(objs->data[1])->port == 2);
  CHECK(decode(R"([{"port":1},{"motd":"m"}])", &kListSettings) == 0);  // one bad element: all nil

  OMap im(reinterpret_cast<WoMap*>(decode(R"({"-5":"neg","10":"ten","0":"zero"})", &kMapIntText)));
  REQUIRE(im.get());
  CHECK(im->len == 3);
  CHECK(im->val_kind == WO_ELEM_TEXT);
  CHECK(str(tslot(wo_map_get(im, islot(-5), &kSite))) == "neg");
  for (const char* bad : {R"({"+5":"x"})", R"({" 5":"x"})", R"({"05":"x"})", R"({"5.0":"x"})", R"({"":"x"})",
                          R"({"a":"x"})", R"({"-":"x"})", R"({"9223372036854775808":"x"})", R"({"1":1})"})
    CHECK(decode(bad, &kMapIntText) == 0);
}

TEST_CASE("decode a recursive type; nesting depth is bounded (nil, not a crash)") {
  Owned<Node> n(decode_obj<Node>(R"({"v":1,"next":{"v":2,"next":{"v":3}}})", &kNode));
  REQUIRE(n.get());
  REQUIRE(n->next);
  REQUIRE(n->next->next);
  CHECK(n->next->next->v == 3);
  CHECK(n->next->next->next == nullptr);
  CHECK(encode(n.get(), &kNode) == R"({"v":1,"next":{"v":2,"next":{"v":3,"next":null}}})");
  std::string deep;
  for (int i = 0; i < 100000; ++i) deep += "[";
  CHECK(decode(deep, &kRaw) == 0);
  std::string nodes;
  for (int i = 0; i < 600; ++i) nodes += R"({"v":1,"next":)";
  nodes += "null";
  for (int i = 0; i < 600; ++i) nodes += "}";
  CHECK(decode(nodes, &kNode) == 0);  // deeper than 512 levels
}

TEST_CASE("encode of a cyclic (traced) object traps STACK instead of overflowing") {
  auto* a = static_cast<Node*>(wo_alloc(sizeof(Node), nullptr));  // no destroy: the cycle is broken by hand
  a->v = 1;
  a->next = a;
  wo::Trap t = trapped([&] { encode(a, &kNode); });
  CHECK(t.code == 3);
  CHECK(t.method == "serialise");
  CHECK(t.line == 64);
  wo_release(a);
}

TEST_CASE("round trip: decode(encode(v)) == v for a Float with many digits and odd text") {
  Owned<Tagged> r(make_tagged(std::string_view("\x01\"\\\xff\0z", 6), -1.2345678901234567e-300, 1));
  std::string j = encode(r.get(), &kTagged);
  Owned<Tagged> back(decode_obj<Tagged>(j, &kTagged));
  REQUIRE(back.get());
  CHECK(str(back->tag) == str(r->tag));
  CHECK(back->w == r->w);
  CHECK(back->ok == 1);
}

// ---- the simdjson fast path (runtime/src/builtins/json_simd.cpp, docs/decisions/0054) --------

namespace {

// The fast path either declines or gives exactly our decoder's answer
// (compared through json.encode); returns whether it accepted.
bool fast_agrees(std::string_view doc, const WoTypeDesc* t) {
  uint64_t ours = wo::json::decode_ours(doc.data(), doc.size(), t);
  uint64_t fast = 0;
  bool took = wo::json::decode_simd(doc.data(), doc.size(), t, fast);
  if (took) {
    CHECK_MESSAGE(ours != 0, "simdjson accepted what ours refuses: " << doc);
    if (ours) CHECK_MESSAGE(encode_slot(&fast, t) == encode_slot(&ours, t), doc);
    wo_release(reinterpret_cast<void*>(fast));
  }
  wo_release(reinterpret_cast<void*>(ours));
  return took;
}

const char* const kAllDoc =
    R"({"n":-12,"f":2.5e-3,"b1":true,"b2":false,"nn":null,"nf":1,"t":"h\u00e9\"\\n\ud83d\ude00","by":"Zm9vYg==",)"
    R"("xs":[1,-0,3],"m":{"a":1,"b":2,"a":3},"inner":{"port":80,"motd":null,"x":[1,{"y":[]}]},)"
    R"("raw":{"k":[1,2.5,{"z":null}]} ,"names":["x","y"],"zz":[[[]],{"q":"\/"}],"n":7})";

}  // namespace

TEST_CASE("simdjson fast path: takes well-formed containers, with our answers") {
  CHECK(fast_agrees(kAllDoc, &kAll));
  CHECK(fast_agrees(" [1, 2 ,3]\n", &kListInt));
  CHECK(fast_agrees(R"({"-5":"a","0":"b"})", &kMapIntText));
  CHECK(fast_agrees(R"([{"port":1},{"port":2,"motd":"m"}])", &kListSettings));
  CHECK(fast_agrees(R"({"v":1,"next":{"v":2,"next":null}})", &kNode));
  CHECK(fast_agrees(R"([-0, 0.1, 18446744073709551616, 4.9e-324, 2.2250738585072011e-308, 1e-400])", &kListFloat));
  fast_agrees("[1e400]", &kListFloat);  // simdjson refuses it, ours reads +inf: declined
  CHECK(fast_agrees(R"({"port":1,"motd":"\u0000"})", &kSettings));
}

TEST_CASE("simdjson fast path: declines what ours refuses or reads differently") {
  for (std::string_view doc :
       {R"({"port":1,"x":tru})", R"({"port":1,"x":01})", R"({"port":1,"x":"\q"})", R"({"port":1} x)",
        R"({"port":1}})", R"({"port":1,"x":[1,}]})", R"({"port":1.0})", R"({"port":1e2})",
        R"({"port":9223372036854775808})", R"({"port":1,"port":"a"})", "{\"port\":1,\"motd\":\"a\nb\"}",
        "{\"port\":1,\"motd\":\"\xff\"}", R"({"port":1,"motd":"\ud800"})", R"({"motd":"m"})", "",
        R"([1,2)", R"(["a"])", R"({"1":"a","01":"b"})"}) {
    const WoTypeDesc* t = doc.size() && doc[0] == '[' ? &kListInt : doc.find("\"01\"") != doc.npos ? &kMapIntText : &kSettings;
    CHECK_FALSE_MESSAGE(fast_agrees(doc, t), doc);
  }
  // -(2^62) is the `?Int` nil word: not a value of the type (docs/decisions/0015).
  CHECK_FALSE(fast_agrees(R"({"n":1,"f":1,"b1":true,"b2":true,"nn":-4611686018427387904,"t":"",)"
                          R"("by":"","xs":[],"m":{},"inner":null,"raw":1,"names":[]})",
                          &kAll));
  std::string nodes;
  for (int i = 0; i < 600; ++i) nodes += R"({"v":1,"next":)";
  nodes += "null";
  for (int i = 0; i < 600; ++i) nodes += "}";
  CHECK_FALSE(fast_agrees(nodes, &kNode));  // deeper than 512 levels, as ours
}

TEST_CASE("simdjson fast path: every one-byte change, cut and insertion of a document agrees with ours") {
  const std::string base = kAllDoc;
  const char subs[] = {'"', '\\', ',', '}', ']', '{', '[', '0', 'e', '-', ' ', '\x01', '\x80', 'u', 'n', '.', ':', 'x'};
  int took = 0, total = 0;
  for (size_t i = 0; i < base.size(); ++i) {
    for (char c : subs) {
      std::string changed = base;
      changed[i] = c;
      took += fast_agrees(changed, &kAll);
      std::string inserted = base;
      inserted.insert(i, 1, c);
      took += fast_agrees(inserted, &kAll);
      total += 2;
    }
    took += fast_agrees(std::string_view(base).substr(0, i), &kAll);
    ++total;
  }
  // Two or three changes at once, at random (fixed seed), in this and in
  // documents of lists and maps.
  const std::string lists = R"([{"port":1,"motd":"a\"b","e":[{},[]]},{"port":-2,"skip":{"a":[1,"x",null]}}])";
  const std::string maps = R"({"1":"one","-2":"two\u0041","1":"again"})";
  uint64_t x = 0x2545F4914F6CDD1Dull;
  auto rnd = [&](size_t n) { return (x ^= x << 13, x ^= x >> 7, x ^= x << 17) % n; };
  for (int it = 0; it < 30000; ++it) {
    int which = static_cast<int>(rnd(3));
    std::string d = which == 0 ? base : which == 1 ? lists : maps;
    for (size_t k = 0, n = 2 + rnd(2); k < n; ++k) {
      size_t at = rnd(d.size());
      char c = subs[rnd(sizeof subs)];
      if (rnd(2)) d[at] = c; else d.insert(at, 1, c);
    }
    took += fast_agrees(d, which == 0 ? &kAll : which == 1 ? &kListSettings : &kMapIntText);
    ++total;
  }
  MESSAGE("the fast path took " << took << " of " << total << " variants");
  CHECK(took > 0);
}
