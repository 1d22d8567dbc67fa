// Benchmark kernel `alloc`: builds and drops 3,000,000 small objects (a
// struct with an int64, a double and a std::string field), each one heap
// allocated with std::make_unique and pushed into a short std::vector batch;
// every 100 objects the batch is summed into a checksum and cleared, which
// deletes the 100 objects. Prints the checksum and the number of batches.
// Same work as main.wo and main.cr. The tags are short enough for the
// std::string small-string buffer, so copying one allocates nothing (as a
// .wo Text copy and a Crystal String reference allocate nothing).
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

struct Obj {
  int64_t id;
  double w;
  std::string tag;
  Obj(int64_t i, double f, const std::string& t) : id(i), w(f), tag(t) {}
};

int main() {
  const int64_t n = 3000000;
  const std::vector<std::string> tags = {"alpha", "beta", "gamma", "delta"};
  std::vector<std::unique_ptr<Obj>> batch;
  int64_t sum = 0, batches = 0;
  for (int64_t i = 0; i < n; i++) {
    batch.push_back(std::make_unique<Obj>(i, double(i) * 0.5 + 0.25, tags[i % 4]));
    if (batch.size() == 100) {
      for (const auto& o : batch) sum += o->id * 3 + (int64_t)o->w + (int64_t)o->tag.size();
      batch.clear();
      batches += 1;
    }
  }
  std::printf("%lld\n%lld\n", (long long)sum, (long long)batches);
  return 0;
}
