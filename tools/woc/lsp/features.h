// The language features of woc lsp, each a pure function of a document, the
// analysis of its program and the request's params, returning the JSON
// result the protocol expects (null when there is nothing to say).
#pragma once
#include <functional>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "tools/woc/lsp/analysis.h"

namespace wo::lsp {

using json = nlohmann::json;

struct Document {
  std::string uri;
  std::string path;  // normal_path of the file (or the URI itself for untitled documents)
  std::string text;
  int64_t version = 0;
  std::string root;  // the program it belongs to (program_root)
};

// textDocument/publishDiagnostics params for `doc` from its program's analysis.
json diagnostics_for(const Document& doc, const Analysis& a);

json hover(const Document& doc, const Analysis& a, const json& params);
json definition(const Document& doc, const Analysis& a, const json& params);
json document_symbols(const Document& doc, const Analysis& a);

// textDocument/formatting: one edit replacing the whole text with its
// canonical layout (format/format.h), [] when it already is; `error` is set
// (and null returned) when the text cannot be formatted (a syntax error).
json formatting(const Document& doc, std::string& error);

// Completion needs to re-analyse a patched copy of the text (the receiver
// before a `.` without the `.`): `reanalyze` does that with the other open
// documents still laid over the disk.
using Reanalyze = std::function<std::unique_ptr<Analysis>(const std::string& patched_text)>;
json completion(const Document& doc, const Analysis& a, const json& params, const Reanalyze& reanalyze);

}  // namespace wo::lsp
