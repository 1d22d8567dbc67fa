// uri.h.
#include "tools/woc/lsp/uri.h"

#include <cctype>

namespace wo::lsp {

bool is_file_uri(const std::string& uri) { return uri.rfind("file://", 0) == 0; }

std::string uri_to_path(const std::string& uri) {
  std::string s = uri.substr(7);
  size_t slash = s.find('/');  // drop an authority (file://host/path)
  s = slash == std::string::npos ? "/" : s.substr(slash);
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size() && std::isxdigit((unsigned char)s[i + 1]) &&
        std::isxdigit((unsigned char)s[i + 2])) {
      out.push_back((char)std::stoi(s.substr(i + 1, 2), nullptr, 16));
      i += 2;
    } else {
      out.push_back(s[i]);
    }
  }
  return out;
}

std::string path_to_uri(const std::string& path) {
  if (path.empty() || path[0] != '/') return path;  // untitled:… documents keep their URI as path
  static const char* hex = "0123456789ABCDEF";
  std::string out = "file://";
  for (unsigned char c : path) {
    if (std::isalnum(c) || c == '/' || c == '-' || c == '_' || c == '.' || c == '~') {
      out.push_back((char)c);
    } else {
      out.push_back('%');
      out.push_back(hex[c >> 4]);
      out.push_back(hex[c & 15]);
    }
  }
  return out;
}

}  // namespace wo::lsp
