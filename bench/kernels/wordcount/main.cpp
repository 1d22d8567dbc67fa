// Benchmark kernel `wordcount`: a map-heavy word count over generated text.
// A vocabulary of 1,000 distinct words is built from 10 syllables; a linear
// congruential generator picks 2,000,000 of them (skewed towards the first
// words) into a text joined with spaces; the text is split back into
// std::string words and counted in a std::unordered_map<std::string,
// int64_t>. Prints the number of distinct words, the counts of four fixed
// words, and an order-independent checksum over every entry.
// Same work as main.wo and main.cr. The generator wraps like .wo Int: it is
// computed on uint64_t; `>>` on the int64_t is arithmetic, as in .wo.
#include <cstdint>
#include <cstdio>
#include <string>
#include <unordered_map>
#include <vector>

int main() {
  const std::vector<std::string> syl = {"ka", "lo", "mi", "ne", "ru", "sa", "ti", "vo", "we", "zu"};
  std::vector<std::string> vocab;
  for (int64_t k = 0; k < 1000; k++) {
    std::string w = syl[k % 10] + syl[(k / 10) % 10];
    if (k >= 100) w = w + syl[k / 100];
    vocab.push_back(w);
  }

  const int64_t n = 2000000;
  std::vector<std::string> parts;
  int64_t x = 12345;
  for (int64_t i = 0; i < n; i++) {
    x = (int64_t)((uint64_t)x * 6364136223846793005ULL + 1442695040888963407ULL);
    int64_t r = (x >> 33) & 2147483647;
    int64_t idx = ((r % 1000) * ((r >> 10) % 1000)) / 1000;
    parts.push_back(vocab[idx]);
  }
  // join(parts, " ")
  size_t total = 0;
  for (const auto& p : parts) total += p.size();
  std::string text;
  text.reserve(total + parts.size());
  for (size_t i = 0; i < parts.size(); i++) {
    if (i) text += ' ';
    text += parts[i];
  }

  // split(text, " ")
  std::vector<std::string> words;
  size_t start = 0;
  for (;;) {
    size_t sp = text.find(' ', start);
    if (sp == std::string::npos) {
      words.emplace_back(text, start);
      break;
    }
    words.emplace_back(text, start, sp - start);
    start = sp + 1;
  }

  std::unordered_map<std::string, int64_t> counts;
  for (const auto& w : words) {
    auto it = counts.find(w);
    if (it == counts.end())
      counts.emplace(w, 1);
    else
      it->second += 1;
  }

  std::printf("%zu\n%zu\n", text.size(), counts.size());
  std::printf("%lld\n", (long long)counts.at(vocab[0]));
  std::printf("%lld\n", (long long)counts.at(vocab[7]));
  std::printf("%lld\n", (long long)counts.at(vocab[123]));
  std::printf("%lld\n", (long long)counts.at(vocab[900]));
  int64_t sum = 0;
  for (const auto& [key, v] : counts) sum += v * v + (int64_t)key.size() * v;
  std::printf("%lld\n", (long long)sum);
  return 0;
}
