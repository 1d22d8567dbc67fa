// Little-endian byte encoding for WAL payloads: appenders onto a std::string
// and a bounds-checked Reader that turns every overrun into a sticky error
// (a record that passes its CRC but does not decode is corruption, §1.12).
#pragma once
#include <bit>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace wo::store {

static_assert(std::endian::native == std::endian::little, "the WAL codec assumes a little-endian host");

inline void put_u8(std::string& o, uint8_t v) { o.push_back(static_cast<char>(v)); }
inline void put_u32(std::string& o, uint32_t v) { o.append(reinterpret_cast<const char*>(&v), 4); }
inline void put_u64(std::string& o, uint64_t v) { o.append(reinterpret_cast<const char*>(&v), 8); }
inline void put_str(std::string& o, std::string_view s) {
  put_u32(o, static_cast<uint32_t>(s.size()));
  o.append(s);
}
inline void patch_u32(std::string& o, size_t at, uint32_t v) { std::memcpy(o.data() + at, &v, 4); }
inline void patch_u64(std::string& o, size_t at, uint64_t v) { std::memcpy(o.data() + at, &v, 8); }

inline uint32_t load_u32(const void* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}
inline uint64_t load_u64(const void* p) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}

class Reader {
 public:
  Reader(const void* p, size_t n) : p_(static_cast<const uint8_t*>(p)), n_(n) {}
  explicit Reader(std::string_view s) : Reader(s.data(), s.size()) {}

  bool ok() const { return ok_; }
  bool done() const { return ok_ && pos_ == n_; }
  size_t pos() const { return pos_; }

  uint8_t u8() { return take(1) ? p_[pos_ - 1] : 0; }
  uint32_t u32() { return take(4) ? load_u32(p_ + pos_ - 4) : 0; }
  uint64_t u64() { return take(8) ? load_u64(p_ + pos_ - 8) : 0; }
  std::string_view bytes(size_t n) {
    if (!take(n)) return {};
    return {reinterpret_cast<const char*>(p_ + pos_ - n), n};
  }
  std::string str() { return std::string(bytes(u32())); }

 private:
  bool take(size_t n) {
    if (!ok_ || n > n_ - pos_) {
      ok_ = false;
      return false;
    }
    pos_ += n;
    return true;
  }
  const uint8_t* p_;
  size_t n_;
  size_t pos_ = 0;
  bool ok_ = true;
};

}  // namespace wo::store
