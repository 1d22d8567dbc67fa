// The table store's WAL encoding: CRC-32, frames (plain and GROUP), row
// bodies and the schema head, each encoded and decoded back.
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>

#include "runtime/src/db/model.h"
#include "runtime/src/db/crc32.h"
#include "runtime/src/db/frame.h"
#include "runtime/src/db/row.h"
#include "tests/db/db_test_support.h"

using namespace wo::db;

namespace {

const uint8_t* bytes(const std::string& s) { return reinterpret_cast<const uint8_t*>(s.data()); }

std::string payload(uint8_t kind, uint32_t cls, uint64_t row, const std::string& body) {
  std::string p;
  put_u8(p, kind);
  put_u32(p, cls);
  put_u64(p, row);
  return p + body;
}

ClassDef sample_class() {
  ClassDef c;
  c.name = "things";
  c.flags = WO_DB_TABLE;
  c.fields = {{"n", Kind::Int, false, -1, ""},
              {"x", Kind::Float, false, -1, ""},
              {"s", Kind::Text, true, -1, ""},
              {"b", Kind::Bytes, false, -1, ""}};
  return c;
}

}  // namespace

TEST_CASE("crc32 matches the IEEE check value and continues across pieces") {
  CHECK(crc32(0, "123456789", 9) == 0xCBF43926u);
  CHECK(crc32(0, "", 0) == 0u);
  CHECK(crc32(crc32(0, "1234", 4), "56789", 5) == 0xCBF43926u);
  std::string big(1000, 'q');
  CHECK(crc32(crc32(0, big.data(), 333), big.data() + 333, 667) == crc32(0, big.data(), 1000));
}

TEST_CASE("crc32c matches the Castagnoli check value, continues, and the SSE4.2 path equals the table") {
  CHECK(crc32c(0, "123456789", 9) == 0xE3069283u);
  CHECK(crc32c_portable(0, "123456789", 9) == 0xE3069283u);
  CHECK(crc32c(0, "", 0) == 0u);
  CHECK(crc32c(crc32c(0, "1234", 4), "56789", 5) == 0xE3069283u);
  std::string big(5000, '\0');
  for (size_t i = 0; i < big.size(); ++i) big[i] = static_cast<char>(i * 167 + (i >> 5));
  for (size_t off : {0, 1, 3, 7})
    for (size_t n : {0, 1, 7, 8, 9, 15, 16, 63, 64, 65, 4093})
      CHECK(crc32c(0, big.data() + off, n) == crc32c_portable(0, big.data() + off, n));
}

TEST_CASE("a plain frame is len, crc, payload, mark and reads back") {
  std::string p = payload(kInsert, 3, 7, "body");
  std::string f;
  append_frame(f, p);
  REQUIRE(f.size() == p.size() + kFrameOverhead);
  CHECK(load_u32(f.data()) == p.size());
  CHECK(load_u32(f.data() + 4) == crc32c(0, p.data(), p.size()));  // format 3: CRC-32C
  CHECK(load_u32(f.data() + 8 + p.size()) == 0x574F4C31u);
  std::string_view got;
  size_t next = 0;
  REQUIRE(read_frame(bytes(f), f.size(), 0, &got, &next));
  CHECK(got == p);
  CHECK(next == f.size());
}

TEST_CASE("read_frame refuses short, zero, damaged and unmarked frames") {
  std::string f;
  append_frame(f, payload(kRemove, 1, 2, ""));
  std::string_view got;
  size_t next;
  for (size_t cut = 0; cut < f.size(); ++cut) CHECK_FALSE(read_frame(bytes(f), cut, 0, &got, &next));
  std::string zero(32, '\0');
  CHECK_FALSE(read_frame(bytes(zero), zero.size(), 0, &got, &next));
  for (size_t i = 0; i < f.size(); ++i) {  // any single damaged byte is caught
    std::string g = f;
    g[i] = static_cast<char>(g[i] ^ 0x40);
    CHECK_FALSE(read_frame(bytes(g), g.size(), 0, &got, &next));
  }
}

TEST_CASE("seal_frame makes a lone record a plain frame and several a GROUP") {
  std::string one(kStageReserve, '\0');
  size_t at = begin_record(one, kInsert, 1, 5);
  one += "abc";
  end_record(one, at);
  std::string_view f1 = seal_frame(one, 1);
  std::string_view p;
  size_t next;
  REQUIRE(read_frame(reinterpret_cast<const uint8_t*>(f1.data()), f1.size(), 0, &p, &next));
  CHECK(p == payload(kInsert, 1, 5, "abc"));

  std::string many(kStageReserve, '\0');
  for (uint64_t id = 1; id <= 3; ++id) end_record(many, begin_record(many, kRemove, 2, id));
  std::string_view f3 = seal_frame(many, 3);
  REQUIRE(read_frame(reinterpret_cast<const uint8_t*>(f3.data()), f3.size(), 0, &p, &next));
  Reader r(p);
  CHECK(r.u8() == kGroup);
  CHECK(r.u32() == 0);
  REQUIRE(r.u64() == 3);
  for (uint64_t id = 1; id <= 3; ++id) {
    uint32_t len = r.u32();
    CHECK(r.bytes(len) == payload(kRemove, 2, id, ""));
  }
  CHECK(r.done());
}

TEST_CASE("find_valid_frame_after tells a torn tail from damage in the middle") {
  std::string log;
  append_frame(log, payload(kInsert, 0, 1, "first"));
  size_t second = log.size();
  append_frame(log, payload(kInsert, 0, 2, "second"));
  size_t at = 0;
  CHECK_FALSE(find_valid_frame_after(bytes(log), log.size(), second, &at));  // nothing after the last
  std::string damaged = log;
  damaged[10] ^= 1;  // inside the first frame's payload
  REQUIRE(find_valid_frame_after(bytes(damaged), damaged.size(), 0, &at));
  CHECK(at == second);
  std::string torn = log.substr(0, log.size() - 3) + std::string(100, '\0');
  CHECK_FALSE(find_valid_frame_after(bytes(torn), torn.size(), second, &at));
}

TEST_CASE("a row body round-trips bit-exactly, nil and empty blobs included") {
  ClassDef c = sample_class();
  double negzero = -0.0, nan = std::nan("7");
  uint64_t nz, nn;
  std::memcpy(&nz, &negzero, 8);
  std::memcpy(&nn, &nan, 8);
  for (uint64_t fbits : {nz, nn, uint64_t{0x7FF0000000000000}}) {
    std::string s("with\0zero", 9);
    uint64_t slots[4] = {uint64_t(-5), fbits, blob_word(s.data(), s.size()), blob_word(nullptr, 0)};
    std::string body;
    encode_row(body, c, slots);
    CHECK(body.size() == encoded_row_size(c, slots));
    Reader r(body);
    Row* row = decode_row(r, c, c, {0, 1, 2, 3});
    REQUIRE(row);
    CHECK(r.done());
    CHECK(row->slots()[0] == uint64_t(-5));
    CHECK(row->slots()[1] == fbits);
    CHECK(std::string(as_blob(row->slots()[2])->bytes(), as_blob(row->slots()[2])->len) == s);
    CHECK(as_blob(row->slots()[3])->len == 0);
    row_free(c, row);
    blob_free(slots[2]);
    blob_free(slots[3]);
  }
  uint64_t nil_slots[4] = {1, 0, 0, blob_word("b", 1)};  // s is nil
  std::string body;
  encode_row(body, c, nil_slots);
  Reader r(body);
  Row* row = decode_row(r, c, c, {0, 1, 2, 3});
  REQUIRE(row);
  CHECK(row->slots()[2] == 0);
  row_free(c, row);
  blob_free(nil_slots[3]);
}

TEST_CASE("decode_row maps log fields to program fields, dropping and zero-filling") {
  ClassDef from = sample_class();
  ClassDef to;
  to.name = "things";
  to.fields = {{"b", Kind::Bytes, false, -1, ""},
               {"n", Kind::Int, false, -1, ""},
               {"added", Kind::Int, true, -1, ""},
               {"t", Kind::Text, false, -1, ""}};
  uint64_t slots[4] = {42, 0, blob_word("gone", 4), blob_word("kept", 4)};
  std::string body;
  encode_row(body, from, slots);
  Reader r(body);
  Row* row = decode_row(r, from, to, {1, -1, -1, 0});
  REQUIRE(row);
  CHECK(row->slots()[1] == 42);
  CHECK(std::string(as_blob(row->slots()[0])->bytes(), 4) == "kept");
  CHECK(row->slots()[2] == static_cast<uint64_t>(WO_NIL_SCALAR));  // nullable: nil
  CHECK(as_blob(row->slots()[3])->len == 0);                       // Text: empty
  row_free(to, row);
  blob_free(slots[2]);
  blob_free(slots[3]);
  std::string cut = body.substr(0, body.size() - 1);
  Reader bad(cut);
  CHECK(decode_row(bad, from, to, {1, -1, -1, 0}) == nullptr);
}

TEST_CASE("the schema head lists the durable classes and decodes back") {
  dbtest::Schema s;
  int a = s.table("authors");
  s.field(a, "name", WO_DB_TEXT);
  s.index(a, {0}, true);
  int v = s.table("sessions", WO_DB_TABLE | WO_DB_VOLATILE);
  s.field(v, "who", WO_DB_REF, 0, a);
  int b = s.table("books");
  s.field(b, "title", WO_DB_TEXT);
  s.field(b, "author", WO_DB_REF, WO_DB_NULLABLE, a);
  s.field(b, "year", WO_DB_INT);
  s.index(b, {1, 2});
  Schema prog;
  std::string err;
  REQUIRE(schema_from_abi(s.get(), &prog, &err));
  std::string body;
  encode_schema(body, prog);
  Reader r(body);
  Schema back;
  REQUIRE(decode_schema(r, &back));
  REQUIRE(back.classes.size() == 2);  // the volatile table is not in the log
  CHECK(back.classes[0].name == "authors");
  CHECK(back.classes[1].name == "books");
  CHECK(back.classes[1].id == 2);
  CHECK(back.classes[1].fields[1].ref_table == "authors");
  CHECK(back.classes[1].fields[1].nullable);
  CHECK(back.classes[1].indexes[0].cols == std::vector<uint32_t>{1, 2});
  CHECK(type_name(back.classes[1].fields[1]) == "?ref authors");
  for (size_t cut = 0; cut < body.size(); ++cut) {
    Reader rc(body.data(), cut);
    CHECK_FALSE(decode_schema(rc, &back));
  }
}

TEST_CASE("schema_from_abi refuses malformed schemas") {
  std::string err;
  Schema out;
  dbtest::Schema dup;
  dup.table("t");
  dup.table("t");
  CHECK_FALSE(schema_from_abi(dup.get(), &out, &err));
  dbtest::Schema dangling;  // a durable table referring to a volatile one
  int v = dangling.table("v", WO_DB_TABLE | WO_DB_VOLATILE);
  int d = dangling.table("d");
  dangling.field(d, "r", WO_DB_REF, 0, v);
  CHECK_FALSE(schema_from_abi(dangling.get(), &out, &err));
  CHECK(err.find("non-durable") != std::string::npos);
  dbtest::Schema badcol;
  int t = badcol.table("t");
  badcol.field(t, "a", WO_DB_INT);
  badcol.index(t, {3});
  CHECK_FALSE(schema_from_abi(badcol.get(), &out, &err));
}
