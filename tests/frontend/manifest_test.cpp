// The wo.toml / wo.lock reader (frontend/manifest.h, docs/decisions/0022):
// the TOML subset it accepts and the file:line of everything it refuses.
// Resolution (git, wo.lock writing) is tested end to end by
// tests/packages/packages-test.sh.
#include <doctest/doctest.h>

#include <string>

#include "frontend/manifest.h"

using namespace wo;

namespace {

std::string refused(const std::string& text) {
  Manifest m;
  std::string err;
  if (parse_manifest("wo.toml", text, m, err)) return "(accepted)";
  return err;
}

}  // namespace

TEST_CASE("manifest: the accepted subset") {
  Manifest m;
  std::string err;
  std::string text =
      "# comment line\r\n"
      "name = \"app\"   # trailing comment\r\n"
      "version = 'v1 # not a comment'\n"
      "\"kind\" = \"library\"\n"
      "\n"
      "[deps]\n"
      "a = { path = \"../a\" }\n"
      "b-c = {git=\"file:///x/y\",rev=\"v0.1.0\"}\n"
      "esc = { path = \"q\\\"\\\\\\tz\" }";  // no final newline
  REQUIRE_MESSAGE(parse_manifest("wo.toml", text, m, err), err);
  CHECK(m.name == "app");
  CHECK(m.version == "v1 # not a comment");
  CHECK(m.kind == "library");
  REQUIRE(m.deps.size() == 3);
  CHECK(m.deps[0].name == "a");
  CHECK(m.deps[0].path == "../a");
  CHECK(m.deps[0].line == 7);
  CHECK(m.deps[1].name == "b-c");
  CHECK(m.deps[1].git == "file:///x/y");
  CHECK(m.deps[1].rev == "v0.1.0");
  CHECK(m.deps[2].path == "q\"\\\tz");
}

TEST_CASE("manifest: the default kind is program; an empty file is a manifest") {
  Manifest m;
  std::string err;
  REQUIRE(parse_manifest("wo.toml", "", m, err));
  CHECK(m.kind == "program");
  CHECK(m.deps.empty());
}

TEST_CASE("manifest: refusals carry file:line") {
  CHECK(refused("kind = \"junk\"\n") ==
        "wo.toml:1: error WO-E109: unknown kind `junk` (valid: \"program\", the default, and \"library\")");
  CHECK(refused("\n\nkind = \"\"\n").rfind("wo.toml:3: error WO-E109", 0) == 0);
  CHECK(refused("name = \"a\"\nedition = \"x\"\n").rfind("wo.toml:2: unknown key `edition`", 0) == 0);
  CHECK(refused("[deps]\n[package]\n").rfind("wo.toml:2: unknown section [package]", 0) == 0);
  CHECK(refused("[deps]\n[deps]\n") == "wo.toml:2: section [deps] appears twice");
  CHECK(refused("[[deps]]\n").rfind("wo.toml:1: arrays of tables", 0) == 0);
  CHECK(refused("[deps\n") == "wo.toml:1: expected `]` to close the section header");
  CHECK(refused("name = \"a\" x\n") == "wo.toml:1: unexpected text after the value of `name`");
  CHECK(refused("name = 'a\n") == "wo.toml:1: unterminated string");
  CHECK(refused("name = \"a\\q\"\n").rfind("wo.toml:1: unsupported escape", 0) == 0);
  CHECK(refused("name = \"\"\"a\"\"\"\n").rfind("wo.toml:1: multi-line strings", 0) == 0);
  CHECK(refused("name = [\"a\"]\n") == "wo.toml:1: arrays are not supported");
  CHECK(refused("name =\n") == "wo.toml:1: expected a value");
  CHECK(refused("version = 1.5\n").rfind("wo.toml:1: `1.5` is not a value", 0) == 0);
  CHECK(refused("version = 3\n") == "wo.toml:1: `version` must be a string, not an integer");
  CHECK(refused("name = true\n") == "wo.toml:1: `name` must be a string, not a boolean");
  CHECK(refused("= \"a\"\n") == "wo.toml:1: expected `key = value`");
  CHECK(refused("[deps]\nx = { path = \"a\", path = \"b\" }\n") == "wo.toml:2: key `path` appears twice");
  CHECK(refused("[deps]\nx = { path = { a = \"b\" } }\n") == "wo.toml:2: nested inline tables are not supported");
  CHECK(refused("[deps]\nx = { path = \"a\"\n").rfind("wo.toml:2: expected `,` or `}`", 0) == 0);
  CHECK(refused("[deps]\nx = { }\n") == "wo.toml:2: dependency `x` needs `path` or `git`");
  CHECK(refused("[deps]\nx = { path = \"a\", git = \"b\" }\n").rfind("wo.toml:2: dependency `x` has both", 0) == 0);
  CHECK(refused("[deps]\nx = { git = \"b\" }\n").rfind("wo.toml:2: git dependency `x` needs an exact `rev`", 0) == 0);
  CHECK(refused("[deps]\nx = { git = \"--upload-pack=sh\", rev = \"v\" }\n").rfind("wo.toml:2: `git`/`rev`", 0) == 0);
  CHECK(refused("[deps]\nx = { git = \"u\", rev = \"-v\" }\n").rfind("wo.toml:2: `git`/`rev`", 0) == 0);
  CHECK(refused("[deps]\nx = { path = 3 }\n") == "wo.toml:2: `path` of dependency `x` must be a string, not an integer");
  CHECK(refused("[deps]\nx = { path = \"\" }\n") == "wo.toml:2: `path` of dependency `x` is empty");
  CHECK(refused("[deps]\n1x = { path = \"a\" }\n").rfind("wo.toml:2: `1x` is not a valid dependency name", 0) == 0);
  CHECK(refused("[deps]\nx = { commit = \"a\" }\n").rfind("wo.toml:2: unknown key `commit`", 0) == 0);
}

TEST_CASE("wo.lock: entries need git, rev and commit; nothing else is read") {
  Manifest lock;
  std::string err;
  REQUIRE(parse_lock("wo.lock", "# c\n[deps]\np = { git = \"u\", rev = \"v1\", commit = \"abc\" }\n", lock, err));
  REQUIRE(lock.deps.size() == 1);
  CHECK(lock.deps[0].commit == "abc");
  Manifest bad;
  CHECK_FALSE(parse_lock("wo.lock", "[deps]\np = { git = \"u\", rev = \"v1\" }\n", bad, err));
  CHECK(err == "wo.lock:2: lock entry `p` needs git, rev and commit");
  CHECK_FALSE(parse_lock("wo.lock", "name = \"x\"\n", bad, err));
  CHECK(err.rfind("wo.lock:1: ", 0) == 0);
  CHECK_FALSE(parse_lock("wo.lock", "[other]\n", bad, err));
  CHECK(err.rfind("wo.lock:1: unknown section", 0) == 0);
}
