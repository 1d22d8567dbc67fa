// The power-loss disk model (see disk_model.h).
#include "disk_model.h"

#include <algorithm>
#include <cstring>
#include <fstream>
#include <sstream>

namespace disk_model {
namespace {

constexpr size_t kSector = 512;

class Cursor {
 public:
  explicit Cursor(std::string_view s) : s_(s) {}
  bool has(size_t n) const { return n <= s_.size() - pos_; }
  template <class T>
  T get() {
    T v{};
    std::memcpy(&v, s_.data() + pos_, sizeof v);
    pos_ += sizeof v;
    return v;
  }
  std::string rest() { return std::string(s_.substr(pos_)); }
  std::string take(size_t n) {
    std::string v(s_.substr(pos_, n));
    pos_ += n;
    return v;
  }

 private:
  std::string_view s_;
  size_t pos_ = 0;
};

}  // namespace

const char* variant_name(Variant v) {
  switch (v) {
    case Variant::Synced: return "synced only";
    case Variant::All: return "all pending";
    case Variant::Prefix: return "a prefix of the pending writes";
    case Variant::Scattered: return "scattered sectors";
  }
  return "?";
}

Disk::Disk(const std::map<std::string, std::string>& files) {
  for (const auto& [name, bytes] : files) {
    inodes_.push_back(Inode{bytes, bytes});
    names_[name] = static_cast<int>(inodes_.size() - 1);
  }
  synced_names_ = names_;
}

bool Disk::replay_journal(const std::string& path, std::string* err) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string all = ss.str();
  auto bad = [&](const std::string& why) {
    *err = "journal " + path + ": " + why;
    return false;
  };
  size_t at = 0;
  while (at < all.size()) {
    if (all.size() - at < 4) return bad("truncated record size");
    uint32_t size;
    std::memcpy(&size, all.data() + at, 4);
    if (size == 0 || size > all.size() - at - 4) return bad("truncated record");
    Cursor c(std::string_view(all).substr(at + 4, size));
    at += 4 + size;
    char type = c.get<char>();
    events_ += type != 'O' && type != 'C';
    renames_ += type == 'R';
    auto ino_of = [&](int32_t fd) -> int {
      auto it = fds_.find(fd);
      return it == fds_.end() ? -1 : it->second;
    };
    switch (type) {
      case 'O': {
        if (!c.has(7)) return bad("short open");
        int32_t fd = c.get<int32_t>();
        bool created = c.get<char>(), truncated = c.get<char>(), is_dir = c.get<char>();
        std::string name = c.rest();
        if (is_dir) {
          fds_[fd] = -2;
          break;
        }
        int ino;
        if (created) {
          events_++;
          inodes_.push_back(Inode{});
          ino = static_cast<int>(inodes_.size() - 1);
          names_[name] = ino;
          pending_.push_back(Op{Op::Link, ino, 0, "", name, ""});
        } else {
          auto it = names_.find(name);
          if (it == names_.end()) return bad("open of " + name + ", which the model does not have");
          ino = it->second;
        }
        if (truncated) {
          inodes_[ino].cur.clear();
          pending_.push_back(Op{Op::Trunc, ino, 0, "", "", ""});
        }
        fds_[fd] = ino;
        break;
      }
      case 'C':
        if (!c.has(4)) return bad("short close");
        fds_.erase(c.get<int32_t>());
        break;
      case 'W': {
        if (!c.has(17)) return bad("short write");
        int ino = ino_of(c.get<int32_t>());
        uint64_t off = c.get<uint64_t>();
        bool zero = c.get<char>();
        uint32_t len = c.get<uint32_t>();
        if (ino < 0) return bad("write to an unknown file");
        if (!zero && !c.has(len)) return bad("short write data");
        Op op{Op::Write, ino, off, zero ? std::string(len, '\0') : c.take(len), "", ""};
        apply_data(inodes_[ino].cur, op, op.bytes.size());
        pending_.push_back(std::move(op));
        break;
      }
      case 'T': {
        if (!c.has(12)) return bad("short truncate");
        int ino = ino_of(c.get<int32_t>());
        if (ino < 0) return bad("truncate of an unknown file");
        Op op{Op::Trunc, ino, c.get<uint64_t>(), "", "", ""};
        apply_data(inodes_[ino].cur, op, 0);
        pending_.push_back(std::move(op));
        break;
      }
      case 'S': {
        if (!c.has(4)) return bad("short sync");
        int ino = ino_of(c.get<int32_t>());
        if (ino < 0) return bad("sync of an unknown file");
        inodes_[ino].synced = inodes_[ino].cur;
        std::erase_if(pending_, [&](const Op& o) { return is_data(o) && o.ino == ino; });
        break;
      }
      case 'D':
        synced_names_ = names_;
        std::erase_if(pending_, [](const Op& o) { return !is_data(o); });
        break;
      case 'R': {
        if (!c.has(4)) return bad("short rename");
        uint32_t la = c.get<uint32_t>();
        if (!c.has(la)) return bad("short rename name");
        Op op{Op::Rename, -1, 0, "", c.take(la), ""};
        op.to = c.rest();
        if (!names_.count(op.name)) return bad("rename of " + op.name + ", which the model does not have");
        apply_name(names_, op);
        pending_.push_back(std::move(op));
        break;
      }
      case 'U': {
        Op op{Op::Unlink, -1, 0, "", c.rest(), ""};
        apply_name(names_, op);
        pending_.push_back(std::move(op));
        break;
      }
      default: return bad(std::string("unknown record type ") + type);
    }
  }
  return true;
}

void Disk::apply_data(std::string& file, const Op& op, size_t keep) {
  if (op.kind == Op::Trunc) {
    file.resize(op.off);
    return;
  }
  if (keep == 0) return;
  if (file.size() < op.off + keep) file.resize(op.off + keep, '\0');
  std::memcpy(file.data() + op.off, op.bytes.data(), keep);
}

void Disk::apply_name(std::map<std::string, int>& ns, const Op& op) {
  switch (op.kind) {
    case Op::Link: ns[op.name] = op.ino; break;
    case Op::Unlink: ns.erase(op.name); break;
    case Op::Rename: {
      auto it = ns.find(op.name);
      if (it == ns.end()) break;  // its create did not survive
      int ino = it->second;
      ns.erase(it);
      ns[op.to] = ino;
      break;
    }
    default: break;
  }
}

std::vector<std::pair<size_t, size_t>> Disk::prefix_cuts(size_t max) const {
  auto nonzero = [](const Op& op) {
    return op.kind == Op::Write && op.bytes.find_first_not_of('\0') != std::string::npos;
  };
  size_t bytes = 0;
  for (const Op& op : pending_) bytes += nonzero(op) ? op.bytes.size() : 0;
  size_t stride = std::max<size_t>(1, bytes / std::max<size_t>(1, max));
  std::vector<std::pair<size_t, size_t>> cuts;
  for (size_t k = 0; k < pending_.size(); ++k) {
    const Op& op = pending_[k];
    if (nonzero(op)) {
      for (size_t keep = 0; keep < op.bytes.size(); keep += stride) cuts.emplace_back(k, keep);
    } else {
      cuts.emplace_back(k, 0);
      if (op.kind == Op::Write) cuts.emplace_back(k, op.bytes.size() / 2);
    }
  }
  cuts.emplace_back(pending_.size(), 0);
  return cuts;
}

std::map<std::string, std::string> Disk::materialise_prefix(size_t k, size_t keep) const {
  std::map<std::string, int> ns = synced_names_;
  std::vector<std::string> content;
  for (const Inode& i : inodes_) content.push_back(i.synced);
  for (size_t i = 0; i <= k && i < pending_.size(); ++i) {
    const Op& op = pending_[i];
    size_t n = i < k ? op.bytes.size() : keep;
    if (is_data(op)) {
      if (i < k || op.kind == Op::Write) apply_data(content[op.ino], op, n);
    } else if (i < k) {
      apply_name(ns, op);
    }
  }
  std::map<std::string, std::string> out;
  for (const auto& [name, ino] : ns) out[name] = content[ino];
  return out;
}

std::map<std::string, std::string> Disk::materialise(Variant v, std::mt19937_64& rng) const {
  std::map<std::string, int> ns = synced_names_;
  std::vector<std::string> content;
  for (const Inode& i : inodes_) content.push_back(i.synced);
  auto apply = [&](const Op& op, size_t keep) {
    if (op.kind == Op::Write || op.kind == Op::Trunc) apply_data(content[op.ino], op, keep);
    else apply_name(ns, op);
  };
  const size_t n = pending_.size();
  switch (v) {
    case Variant::Synced: break;
    case Variant::All:
      for (const Op& op : pending_) apply(op, op.bytes.size());
      break;
    case Variant::Prefix: {
      size_t k = n ? rng() % (n + 1) : 0;
      for (size_t i = 0; i < k; ++i) apply(pending_[i], pending_[i].bytes.size());
      if (k < n && pending_[k].kind == Op::Write) apply(pending_[k], rng() % (pending_[k].bytes.size() + 1));
      break;
    }
    case Variant::Scattered: {
      size_t names = 0;
      for (const Op& op : pending_) names += !is_data(op);
      size_t keep_names = rng() % (names + 1);
      for (const Op& op : pending_) {
        if (op.kind == Op::Write) {
          // Sector by sector, aligned to the file's offsets.
          for (uint64_t at = op.off; at < op.off + op.bytes.size();) {
            uint64_t end = std::min<uint64_t>((at / kSector + 1) * kSector, op.off + op.bytes.size());
            if (rng() % 2) {
              Op piece{Op::Write, op.ino, at, op.bytes.substr(at - op.off, end - at), "", ""};
              apply(piece, piece.bytes.size());
            }
            at = end;
          }
        } else if (op.kind == Op::Trunc) {
          if (rng() % 2) apply(op, 0);
        } else if (keep_names > 0) {
          apply(op, 0);
          --keep_names;
        }
      }
      break;
    }
  }
  std::map<std::string, std::string> out;
  for (const auto& [name, ino] : ns) out[name] = content[ino];
  return out;
}

}  // namespace disk_model
