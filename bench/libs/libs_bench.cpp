// Libraries against our hand-written code (issue 12 item 5): json.decode
// (our recursive-descent decoder) against its simdjson On-Demand fast path
// (runtime/src/builtins/json_simd.cpp) building the same values, base64 against
// OpenSSL's EVP_EncodeBlock/EVP_DecodeBlock, the WAL frame CRC (IEEE,
// slicing-by-4) against CRC-32C (SSE4.2 `crc32`, runtime CPU check).
//
//   libs_bench            median of 5 runs of each, thread CPU time; one line
//                         per contest: `name: ours X, lib Y, ratio R -> kept: ...`
//   libs_bench --check    no timing: every pair must compute the same answer
//                         (exit 1 and a line per disagreement otherwise)
//
// Built against libwo_runtime.a and the runtime's internal headers: where the
// library won and the runtime now uses it, "lib" is the runtime's code and
// "ours" the hand-written code it replaced (kept here as the baseline). The JSON document is the one of
// bench/kernels/json (100,000 records in a Batch, ~6 MB).

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <functional>
#include <string>
#include <vector>

#include "runtime/src/builtins/base64.h"
#include "runtime/src/builtins/json_internal.h"
#include "runtime/src/core/heap.h"
#include "runtime/src/db/crc32.h"
#include "wo_runtime.h"

namespace {

bool g_check = false;
int g_fail = 0;

double cpu_now() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

// Medians of 5 runs of `a` and of `b` (each run repeats it `reps` times),
// in seconds per call. The runs alternate, first one side then the other
// (ABBA...), so a change of load on this shared machine, or what one side
// leaves in the allocator, weighs on both alike.
std::pair<double, double> median5(int reps, const std::function<void()>& a, const std::function<void()>& b) {
  std::vector<double> ta, tb;
  auto run = [&](const std::function<void()>& f, std::vector<double>& t) {
    double t0 = cpu_now();
    for (int i = 0; i < reps; ++i) f();
    t.push_back((cpu_now() - t0) / reps);
  };
  for (int r = 0; r < 5; ++r) {
    if (r % 2 == 0) {
      run(a, ta);
      run(b, tb);
    } else {
      run(b, tb);
      run(a, ta);
    }
  }
  std::sort(ta.begin(), ta.end());
  std::sort(tb.begin(), tb.end());
  return {ta[2], tb[2]};
}

void agree(const char* what, bool ok) {
  if (!ok) {
    std::printf("DISAGREE: %s\n", what);
    ++g_fail;
  }
}

// One contest line; throughput in MB/s (bytes per call / seconds per call).
// `kept` is what the runtime uses now (the library, since each won when it
// was measured: docs/perf/libraries.md); `met` when that is still the faster here.
void report(const char* name, double bytes, double ours_s, double lib_s, const char* lib_name) {
  double ours = bytes / ours_s / 1e6, lib = bytes / lib_s / 1e6;
  std::printf("%s: ours %.0f MB/s, lib %.0f MB/s, ratio %.2fx (aim: keep the faster) -> kept: %s %s\n", name, ours, lib,
              lib / ours, lib_name, lib >= ours ? "met" : "MISSED");
}

// ---- CRC ----------------------------------------------------------------------

void crc_contests() {
  std::vector<unsigned char> buf(1 << 20);
  uint64_t x = 88172645463325252ull;
  for (auto& b : buf) b = static_cast<unsigned char>((x ^= x << 13, x ^= x >> 7, x ^= x << 17));
  if (g_check) {
    agree("crc32c check value", wo::db::crc32c(0, "123456789", 9) == 0xE3069283u);
    agree("crc32c hw == table", wo::db::crc32c(0, buf.data(), buf.size()) ==
                                    wo::db::crc32c_portable(0, buf.data(), buf.size()));
    for (size_t n : {0, 1, 7, 8, 9, 63, 64, 65, 4095})
      agree("crc32c hw == table (short)",
            wo::db::crc32c(0, buf.data() + 3, n) == wo::db::crc32c_portable(0, buf.data() + 3, n));
    agree("crc32c continues", wo::db::crc32c(wo::db::crc32c(0, buf.data(), 333), buf.data() + 333, 667) ==
                                  wo::db::crc32c(0, buf.data(), 1000));
    return;
  }
  for (size_t n : {size_t{64}, size_t{4096}, size_t{1} << 20}) {
    int reps = static_cast<int>(std::max<size_t>(1, (64u << 20) / n / 4));
    volatile uint32_t sink = 0;
    auto [ours, lib] = median5(
        reps, [&] { sink = sink + wo::db::crc32(0, buf.data(), n); },
        [&] { sink = sink + wo::db::crc32c(0, buf.data(), n); });
    char name[64];
    std::snprintf(name, sizeof name, "crc %s", n == 64 ? "64 B" : n == 4096 ? "4 KB" : "1 MB");
    report(name, static_cast<double>(n), ours, lib, "crc32c (sse4.2)");
  }
}

// ---- base64 -------------------------------------------------------------------

// Our hand-written base64 as it was before OpenSSL replaced it (runtime
// commit 2710d5b, runtime/src/builtins/bytes.cpp), kept here as the baseline: the
// runtime's base64.h is now OpenSSL's EVP_EncodeBlock/EVP_DecodeBlock behind
// our strict rules, so "lib" below is what woc programs run.
const char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

int b64_value(unsigned char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '+') return 62;
  if (c == '/') return 63;
  return -1;
}

void hand_encode(const char* data, size_t n, std::string& out) {
  auto* p = reinterpret_cast<const unsigned char*>(data);
  out.reserve(out.size() + (n + 2) / 3 * 4);
  size_t i = 0;
  for (; i + 3 <= n; i += 3) {
    uint32_t v = (uint32_t{p[i]} << 16) | (uint32_t{p[i + 1]} << 8) | p[i + 2];
    out += kAlphabet[v >> 18];
    out += kAlphabet[(v >> 12) & 63];
    out += kAlphabet[(v >> 6) & 63];
    out += kAlphabet[v & 63];
  }
  if (n - i == 1) {
    uint32_t v = uint32_t{p[i]} << 16;
    out += kAlphabet[v >> 18];
    out += kAlphabet[(v >> 12) & 63];
    out += "==";
  } else if (n - i == 2) {
    uint32_t v = (uint32_t{p[i]} << 16) | (uint32_t{p[i + 1]} << 8);
    out += kAlphabet[v >> 18];
    out += kAlphabet[(v >> 12) & 63];
    out += kAlphabet[(v >> 6) & 63];
    out += '=';
  }
}

bool hand_decode(const char* data, size_t n, std::string& out) {
  if (n % 4 != 0) return false;
  auto* p = reinterpret_cast<const unsigned char*>(data);
  out.reserve(out.size() + n / 4 * 3);
  for (size_t i = 0; i < n; i += 4) {
    bool last = i + 4 == n;
    int pad = 0;
    if (last && p[i + 3] == '=') pad = p[i + 2] == '=' ? 2 : 1;
    int v[4];
    for (int k = 0; k < 4 - pad; ++k)
      if ((v[k] = b64_value(p[i + k])) < 0) return false;
    uint32_t w = (uint32_t(v[0]) << 18) | (uint32_t(v[1]) << 12);
    if (pad < 2) w |= uint32_t(v[2]) << 6;
    if (pad < 1) w |= uint32_t(v[3]);
    out += static_cast<char>(w >> 16);
    if (pad < 2) out += static_cast<char>((w >> 8) & 0xFF);
    if (pad < 1) out += static_cast<char>(w & 0xFF);
  }
  return true;
}

// --check: the two decoders agree on every string of length 4 over these
// bytes (alphabet, padding, whitespace, and other non-alphabet bytes) and on
// 200,000 random ones of length 8 and 12.
void base64_agreement() {
  const char cs[] = {'A', 'Q', 'z', '/', '+', '=', ' ', '\n', '\r', '\t', '-', '_', '.', '\0', '\x80', '\xff'};
  const size_t k = sizeof cs;
  uint64_t x = 0x9E3779B97F4A7C15ull;
  int disagree = 0;
  for (size_t len : {4, 8, 12}) {
    size_t total = len == 4 ? k * k * k * k : 200000;
    for (size_t it = 0; it < total; ++it) {
      std::string s(len, '\0');
      uint64_t v = len == 4 ? it : (x ^= x << 13, x ^= x >> 7, x ^= x << 17);
      for (size_t i = 0; i < len; ++i, v /= k) s[i] = cs[v % k];
      std::string a, b;
      bool ra = hand_decode(s.data(), s.size(), a), rb = wo::base64_decode_to(s.data(), s.size(), b);
      if (ra != rb || (ra && a != b)) ++disagree;
    }
  }
  agree("base64 decoders on every short string", disagree == 0);
}

void base64_contests() {
  if (g_check) base64_agreement();
  for (size_t n : {size_t{1024}, size_t{1} << 20}) {
    std::string raw(n, '\0');
    for (size_t i = 0; i < n; ++i) raw[i] = static_cast<char>(i * 131 + (i >> 7));
    std::string a, b, ra, rb;
    hand_encode(raw.data(), raw.size(), a);
    wo::base64_encode_to(raw.data(), raw.size(), b);
    if (g_check) {
      agree("base64 encode", a == b);
      agree("base64 decode hand-written", hand_decode(a.data(), a.size(), ra) && ra == raw);
      agree("base64 decode openssl", wo::base64_decode_to(b.data(), b.size(), rb) && rb == raw);
      continue;
    }
    int reps = static_cast<int>(std::max<size_t>(1, (32u << 20) / n / 4));
    auto [ours, lib] = median5(
        reps,
        [&] {
          std::string e, d;
          hand_encode(raw.data(), raw.size(), e);
          hand_decode(e.data(), e.size(), d);
        },
        [&] {
          std::string e, d;
          wo::base64_encode_to(raw.data(), raw.size(), e);
          wo::base64_decode_to(e.data(), e.size(), d);
        });
    report(n == 1024 ? "base64 enc+dec 1 KB" : "base64 enc+dec 1 MB", static_cast<double>(n), ours, lib,
           "openssl EVP_EncodeBlock/DecodeBlock");
  }
}

// ---- JSON ---------------------------------------------------------------------

// typedef Rec = { id: Int, score: Float, name: Text, ok: Bool, tags: multi Int }
// typedef Batch = { recs: multi Rec }      (bench/kernels/json/main.wo)
struct Rec {
  WoHeader h;
  int64_t id;
  double score;
  WoText* name;
  bool ok;
  WoList* tags;
};
struct Batch {
  WoHeader h;
  WoList* recs;
};
void rec_destroy(void* p) {
  wo_release(static_cast<Rec*>(p)->name);
  wo_release(static_cast<Rec*>(p)->tags);
}
void batch_destroy(void* p) { wo_release(static_cast<Batch*>(p)->recs); }

const WoTypeDesc kInt{WO_TY_INT, nullptr, nullptr, nullptr, 0, nullptr};
const WoTypeDesc kFloat{WO_TY_FLOAT, nullptr, nullptr, nullptr, 0, nullptr};
const WoTypeDesc kBool{WO_TY_BOOL, nullptr, nullptr, nullptr, 0, nullptr};
const WoTypeDesc kText{WO_TY_TEXT, nullptr, nullptr, nullptr, 0, nullptr};
const WoTypeDesc kListInt{WO_TY_LIST, &kInt, nullptr, nullptr, 0, nullptr};
const WoFieldDesc kRecFields[] = {
    {"id", &kInt, offsetof(Rec, id)},         {"score", &kFloat, offsetof(Rec, score)},
    {"name", &kText, offsetof(Rec, name)},    {"ok", &kBool, offsetof(Rec, ok)},
    {"tags", &kListInt, offsetof(Rec, tags)},
};
const WoClassDesc kRecClass{"Rec", sizeof(Rec), rec_destroy, 5, kRecFields};
const WoTypeDesc kRec{WO_TY_CLASS, nullptr, nullptr, &kRecClass, 0, nullptr};
const WoTypeDesc kListRec{WO_TY_LIST, &kRec, nullptr, nullptr, 0, nullptr};
const WoFieldDesc kBatchFields[] = {{"recs", &kListRec, offsetof(Batch, recs)}};
const WoClassDesc kBatchClass{"Batch", sizeof(Batch), batch_destroy, 1, kBatchFields};
const WoTypeDesc kBatch{WO_TY_CLASS, nullptr, nullptr, &kBatchClass, 0, nullptr};

// The kernel's checksum over the decoded records.
int64_t checksum(const Batch* b) {
  int64_t sum = 0;
  for (int64_t i = 0; i < b->recs->len; ++i) {
    auto* r = reinterpret_cast<const Rec*>(b->recs->data[i]);
    sum += r->id + static_cast<int64_t>(std::trunc(r->score * 4.0)) + r->name->len + (r->ok ? 1 : 0);
    for (int64_t j = 0; j < r->tags->len; ++j) sum += static_cast<int64_t>(r->tags->data[j]);
  }
  return sum;
}

// The kernel's document (bench/kernels/json/main.wo, n records), written by
// json.encode itself.
std::string document(int n) {
  auto* b = static_cast<Batch*>(wo_alloc(sizeof(Batch), batch_destroy));
  b->recs = wo_list_new(WO_ELEM_HEAP, 0);
  for (int i = 0; i < n; ++i) {
    auto* r = static_cast<Rec*>(wo_alloc(sizeof(Rec), rec_destroy));
    r->id = i;
    r->score = i * 0.25;
    std::string name = "r\"" + std::to_string(i);
    r->name = wo::text_from(name.data(), name.size());
    r->ok = i % 3 == 0;
    r->tags = wo_list_new(WO_ELEM_SCALAR, 0);
    for (int j = 0; j < i % 5; ++j) wo_list_push(r->tags, static_cast<uint64_t>(i * 7 + j));
    wo_list_push(b->recs, reinterpret_cast<uint64_t>(r));
  }
  static const WoSite site{"libs_bench", 1, nullptr, 0};
  WoText* t = wo_json_encode(&b, &kBatch, &site);
  std::string s(t->bytes, static_cast<size_t>(t->len));
  wo_release(t);
  wo_release(b);
  return s;
}

void json_contest(int n) {
  std::string doc = document(n);
  WoText* text = wo::text_from(doc.data(), doc.size());
  int64_t ours_sum = 0, lib_sum = 0;
  auto ours_run = [&] {
    auto* b = reinterpret_cast<Batch*>(wo::json::decode_ours(text->bytes, static_cast<size_t>(text->len), &kBatch));
    ours_sum = b ? checksum(b) : -1;
    wo_release(b);
  };
  // What json.decode runs now: simdjson first (its padded copy of the text included).
  auto lib_run = [&] {
    auto* b = reinterpret_cast<Batch*>(wo_json_decode(text, &kBatch));
    lib_sum = b ? checksum(b) : -1;
    wo_release(b);
  };
  if (g_check) {
    ours_run();
    lib_run();
    int64_t want = 0;
    for (int i = 0; i < n; ++i) {
      want += i + i + static_cast<int64_t>(std::to_string(i).size()) + 2 + (i % 3 == 0 ? 1 : 0);
      for (int j = 0; j < i % 5; ++j) want += i * 7 + j;
    }
    agree("json checksum ours", ours_sum == want);
    agree("json checksum simdjson", lib_sum == want);
    uint64_t w = 0;
    agree("simdjson takes the kernel's document itself",
          wo::json::decode_simd(text->bytes, static_cast<size_t>(text->len), &kBatch, w));
    wo_release(reinterpret_cast<void*>(w));
    wo_release(text);
    return;
  }
  int reps = std::max(1, 300000 / n);
  auto [ours, lib] = median5(reps, ours_run, lib_run);
  agree("json checksums", ours_sum == lib_sum);
  char name[96];
  std::snprintf(name, sizeof name, "json.decode %dk records (%.0f KB)", n / 1000, static_cast<double>(doc.size()) / 1024);
  report(name, static_cast<double>(doc.size()), ours, lib, "simdjson on-demand");
  wo_release(text);
}

}  // namespace

int main(int argc, char** argv) {
  g_check = argc > 1 && std::strcmp(argv[1], "--check") == 0;
  if (argc > 1 && !g_check) {
    std::fprintf(stderr, "usage: libs_bench [--check]\n");
    return 2;
  }
  crc_contests();
  base64_contests();
  if (g_check) {
    json_contest(1000);
  } else {
    json_contest(1000);     // an HTTP body's size: the thread's parser is reused
    json_contest(100000);   // the json kernel's document: > 1 MiB, a parser of its own
  }
  if (g_check) std::printf(g_fail ? "libs_bench --check: %d disagreements\n" : "libs_bench --check: all agree\n", g_fail);
  return g_fail ? 1 : 0;
}
