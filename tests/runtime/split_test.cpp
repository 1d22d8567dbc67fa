// split, split_ws, join (builtins.md §3).
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "runtime/src/core/trap.h"
#include "support.h"

using namespace wotest;
using V = std::vector<std::string>;

namespace {

const WoSite kSite{"parse", 17, nullptr, 0};

V split(std::string_view t, std::string_view sep) {
  OText a(text(t)), s(text(sep));
  OList xs(wo_split(a, s, &kSite));
  CHECK(xs->elem_kind == WO_ELEM_TEXT);
  return texts(xs);
}

V split_ws(std::string_view t) {
  OText a(text(t));
  OList xs(wo_split_ws(a));
  CHECK(xs->elem_kind == WO_ELEM_TEXT);
  return texts(xs);
}

std::string join(const V& parts, std::string_view sep) {
  OList xs(wo_list_new(WO_ELEM_TEXT, 0));
  for (const auto& p : parts) wo_list_push(xs, reinterpret_cast<uint64_t>(text(p)));
  OText s(text(sep));
  OText r(wo_join(xs, s));
  return str(r);
}

}  // namespace

TEST_CASE("split keeps empty pieces, including a trailing one") {
  CHECK(split("a,b,c", ",") == V{"a", "b", "c"});
  CHECK(split("a,", ",") == V{"a", ""});
  CHECK(split("", ",") == V{""});
  CHECK(split(",a", ",") == V{"", "a"});
  CHECK(split("a,,b", ",") == V{"a", "", "b"});
  CHECK(split(",", ",") == V{"", ""});
  CHECK(split("abc", ",") == V{"abc"});
  CHECK(split("a::b::", "::") == V{"a", "b", ""});
  CHECK(split("a:::b", "::") == V{"a", ":b"});
  CHECK(split("GET /items?id=42 HTTP/1.1", " ") == V{"GET", "/items?id=42", "HTTP/1.1"});
}

TEST_CASE("split with an empty separator traps BOUNDS at the call site") {
  OText a(text("abc")), e(text(""));
  try {
    wo_split(a, e, &kSite);
    FAIL("no trap");
  } catch (const wo::Trap& t) {
    CHECK(t.code == 6);
    CHECK(t.msg == "split: empty separator");
    CHECK(t.method == "parse");
    CHECK(t.line == 17);
  }
}

TEST_CASE("split_ws: whitespace-separated tokens, never empty pieces") {
  CHECK(split_ws("  a b\t\tc\n") == V{"a", "b", "c"});
  CHECK(split_ws("x") == V{"x"});
  CHECK(split_ws("").empty());
  CHECK(split_ws(" \t\r\n").empty());
  CHECK(split_ws("a\r\nb") == V{"a", "b"});
}

TEST_CASE("join puts sep between elements") {
  CHECK(join({"a", "b", "c"}, ",") == "a,b,c");
  CHECK(join({}, ",") == "");
  CHECK(join({"x"}, ", ") == "x");
  CHECK(join({"", ""}, "-") == "-");
  CHECK(join({"anchor", "bolt"}, "") == "anchorbolt");
}

TEST_CASE("split then join round-trips") {
  OText t(text("k=v&&x=1&")), sep(text("&"));
  OList xs(wo_split(t, sep, &kSite));
  OText back(wo_join(xs, sep));
  CHECK(str(back) == "k=v&&x=1&");
}
