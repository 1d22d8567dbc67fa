// file:// URIs <-> paths (RFC 8089 as editors send them: percent-encoded
// UTF-8). Other schemes (untitled:) are kept as they are and never touch
// the disk.
#pragma once
#include <string>

namespace wo::lsp {

bool is_file_uri(const std::string& uri);
std::string uri_to_path(const std::string& uri);   // file URIs only
std::string path_to_uri(const std::string& path);  // a path that is already a URI stays as it is

}  // namespace wo::lsp
