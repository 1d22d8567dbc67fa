// Benchmark kernel `json`: a JSON encode/decode round trip with nlohmann-json
// (header only; Debian package nlohmann-json3-dev). Builds 100,000 records
// (int64, double, string, bool and a vector<int64_t> of 0 to 4 elements),
// converts the list to a JSON document wrapped in {"recs": [...]} and dumps
// it compactly (one ~8 MB text), parses the text back and converts it to a
// vector of records, and sums their fields. Prints the byte length of the
// JSON text, the number of decoded records and the checksum.
// Same work as main.wo and main.cr. ordered_json keeps keys in declaration
// order (plain nlohmann::json sorts them). The doubles are multiples of 0.25
// below 25,000, whose shortest round-trip text nlohmann prints as .wo and
// Crystal do (with ".0" on integral values).
#include <cstdint>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

using nlohmann::ordered_json;

struct Rec {
  int64_t id;
  double score;
  std::string name;
  bool ok;
  std::vector<int64_t> tags;
};

static void to_json(ordered_json& j, const Rec& r) {
  j = ordered_json{{"id", r.id}, {"score", r.score}, {"name", r.name}, {"ok", r.ok}, {"tags", r.tags}};
}

static void from_json(const ordered_json& j, Rec& r) {
  j.at("id").get_to(r.id);
  j.at("score").get_to(r.score);
  j.at("name").get_to(r.name);
  j.at("ok").get_to(r.ok);
  j.at("tags").get_to(r.tags);
}

int main() {
  const int64_t n = 100000;
  std::vector<Rec> recs;
  for (int64_t i = 0; i < n; i++) {
    std::vector<int64_t> tags;
    for (int64_t j = 0; j < i % 5; j++) tags.push_back(i * 7 + j);
    recs.push_back(Rec{i, double(i) * 0.25, "r\"" + std::to_string(i), i % 3 == 0, std::move(tags)});
  }
  std::string text = ordered_json{{"recs", recs}}.dump();
  std::printf("%zu\n", text.size());

  std::vector<Rec> back;
  try {
    back = ordered_json::parse(text).at("recs").get<std::vector<Rec>>();
  } catch (const std::exception&) {
    std::printf("decode failed\n");
    return 0;
  }
  int64_t sum = 0;
  for (const auto& r : back) {
    sum += r.id + (int64_t)(r.score * 4.0) + (int64_t)r.name.size();
    if (r.ok) sum += 1;
    for (int64_t t : r.tags) sum += t;
  }
  std::printf("%zu\n%lld\n", back.size(), (long long)sum);
  return 0;
}
