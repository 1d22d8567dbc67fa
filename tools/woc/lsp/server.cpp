// The message loop and lifecycle of woc lsp (server.h): JSON-RPC 2.0
// requests and notifications, the open documents, and one analysis per
// program that is redone whenever one of its open documents changes.
#include "tools/woc/lsp/server.h"

#include <cstring>
#include <iostream>
#include <map>
#include <set>
#include <vector>

#include "tools/woc/lsp/features.h"
#include "tools/woc/lsp/text.h"
#include "tools/woc/lsp/transport.h"
#include "tools/woc/lsp/uri.h"

namespace wo::lsp {
namespace {

// JSON-RPC and LSP error codes.
enum ErrorCode {
  ParseError = -32700,
  InvalidRequest = -32600,
  MethodNotFound = -32601,
  InvalidParams = -32602,
  InternalError = -32603,
  ServerNotInitialized = -32002,
  RequestFailed = -32803,
};

class Server {
 public:
  Server(Transport& t, std::string version) : io_(t), version_(std::move(version)) {}

  // Returns the exit status once the loop should end, or -1 to go on.
  int handle(const std::string& body) {
    json msg = json::parse(body, nullptr, false);
    if (msg.is_discarded()) {
      error(nullptr, ParseError, "the message is not valid JSON");
      return -1;
    }
    if (!msg.is_object() || !msg.contains("method") || !msg["method"].is_string()) {
      // A response to a request of ours (we send none) or junk.
      if (msg.is_object() && (msg.contains("result") || msg.contains("error"))) return -1;
      bool has_id = msg.is_object() && msg.contains("id") && (msg["id"].is_string() || msg["id"].is_number_integer());
      error(has_id ? msg["id"] : json(nullptr), InvalidRequest,
            "a request needs a \"method\" string");
      return -1;
    }
    std::string method = msg["method"];
    bool is_request = msg.contains("id");
    json id = is_request ? msg["id"] : json(nullptr);
    if (is_request && !id.is_string() && !id.is_number_integer()) {
      error(nullptr, InvalidRequest, "\"id\" must be a number or a string");
      return -1;
    }
    json params = msg.contains("params") ? msg["params"] : json::object();
    try {
      return dispatch(method, is_request, id, params);
    } catch (const json::exception& e) {
      // Missing or mistyped params: the request fails, the server goes on.
      if (is_request) error(id, InvalidParams, std::string("invalid params: ") + e.what());
    } catch (const std::exception& e) {
      if (is_request) error(id, InternalError, e.what());
    }
    return -1;
  }

  int end_of_input() const { return shut_down_ ? 0 : 1; }

  void bad_frame(const std::string& why) { error(nullptr, ParseError, why); }

 private:
  Transport& io_;
  std::string version_;
  bool initialized_ = false;
  bool shut_down_ = false;
  std::map<std::string, Document> docs_;                         // by URI
  std::map<std::string, std::unique_ptr<Analysis>> analyses_;    // by program root

  void send(json msg) {
    msg["jsonrpc"] = "2.0";
    io_.write(msg.dump(-1, ' ', false, json::error_handler_t::replace));
  }
  void reply(const json& id, json result) { send(json{{"id", id}, {"result", std::move(result)}}); }
  void error(const json& id, int code, const std::string& message) {
    send(json{{"id", id}, {"error", json{{"code", code}, {"message", message}}}});
  }
  void notify(const std::string& method, json params) {
    send(json{{"method", method}, {"params", std::move(params)}});
  }

  int dispatch(const std::string& method, bool is_request, const json& id, const json& params) {
    if (method == "exit") return shut_down_ ? 0 : 1;
    if (method == "initialize") {
      if (!is_request) return -1;
      if (initialized_) {
        error(id, InvalidRequest, "initialize was already sent");
        return -1;
      }
      initialized_ = true;
      reply(id, capabilities());
      return -1;
    }
    if (!initialized_) {
      if (is_request) error(id, ServerNotInitialized, "initialize first");
      return -1;
    }
    if (shut_down_) {
      if (is_request) error(id, InvalidRequest, "the server is shutting down");
      return -1;
    }
    if (!is_request) {
      if (method == "textDocument/didOpen") did_open(params.at("textDocument"));
      else if (method == "textDocument/didChange") did_change(params);
      else if (method == "textDocument/didClose") did_close(params.at("textDocument").at("uri"));
      else if (method == "workspace/didChangeWatchedFiles") refresh_all();  // a sibling file changed on disk
      // initialized, didSave, $/cancelRequest, …: nothing to do; unknown notifications are ignored.
      return -1;
    }
    if (method == "shutdown") {
      shut_down_ = true;
      reply(id, nullptr);
      return -1;
    }
    if (method == "textDocument/hover") return with_doc(id, params, hover);
    if (method == "textDocument/definition") return with_doc(id, params, definition);
    if (method == "textDocument/documentSymbol")
      return with_doc(id, params, [](const Document& d, const Analysis& a, const json&) { return document_symbols(d, a); });
    if (method == "textDocument/formatting") {
      const Document* d = doc_of(params);
      if (!d) return unknown_doc(id);
      std::string why;
      json edits = formatting(*d, why);
      if (!why.empty()) error(id, RequestFailed, why);
      else reply(id, edits);
      return -1;
    }
    if (method == "textDocument/completion") {
      const Document* d = doc_of(params);
      if (!d) return unknown_doc(id);
      reply(id, completion(*d, *analysis_of(*d), params, [&](const std::string& patched) {
              Document copy = *d;
              copy.text = patched;
              return analyze(copy.root, overlay(&copy));
            }));
      return -1;
    }
    error(id, MethodNotFound, "method not supported: " + method);
    return -1;
  }

  json capabilities() const {
    json caps{{"textDocumentSync", json{{"openClose", true}, {"change", 1}}},  // 1: full text
              {"hoverProvider", true},
              {"definitionProvider", true},
              {"documentSymbolProvider", true},
              {"documentFormattingProvider", true},
              {"completionProvider", json{{"triggerCharacters", json::array({"."})}}}};
    return json{{"capabilities", caps}, {"serverInfo", json{{"name", "woc"}, {"version", version_}}}};
  }

  template <class F>
  int with_doc(const json& id, const json& params, F&& feature) {
    const Document* d = doc_of(params);
    if (!d) return unknown_doc(id);
    reply(id, feature(*d, *analysis_of(*d), params));
    return -1;
  }

  int unknown_doc(const json& id) {
    error(id, InvalidParams, "the document is not open (send textDocument/didOpen first)");
    return -1;
  }

  const Document* doc_of(const json& params) {
    auto it = docs_.find(params.at("textDocument").at("uri").get<std::string>());
    return it == docs_.end() ? nullptr : &it->second;
  }

  const Analysis* analysis_of(const Document& d) {
    auto& a = analyses_[d.root];
    if (!a) a = analyze(d.root, overlay(nullptr));
    return a.get();
  }

  // The open documents' text by path; `replace` stands in for its own path.
  SourceOverlay overlay(const Document* replace) const {
    SourceOverlay o;
    for (auto& [uri, d] : docs_) o[d.path] = d.text;
    if (replace) o[replace->path] = replace->text;
    return o;
  }

  void did_open(const json& td) {
    Document d;
    d.uri = td.at("uri").get<std::string>();
    d.text = td.at("text").get<std::string>();
    d.version = td.value("version", 0);
    if (is_file_uri(d.uri)) {
      d.path = normal_path(uri_to_path(d.uri));
      d.root = program_root(d.path);
    } else {
      d.path = d.root = d.uri;  // untitled: a one-file program from memory
    }
    std::string root = d.root;
    docs_[d.uri] = std::move(d);
    refresh(root);
  }

  void did_change(const json& params) {
    const json& td = params.at("textDocument");
    auto it = docs_.find(td.at("uri").get<std::string>());
    if (it == docs_.end()) return;
    // We ask for full sync (the whole text per change); a client that sends
    // ranged edits anyway gets them applied in order.
    for (const json& c : params.at("contentChanges")) {
      std::string text = c.at("text").get<std::string>();
      if (!c.contains("range")) {
        it->second.text = std::move(text);
        continue;
      }
      LineIndex idx(it->second.text);
      auto at = [&](const json& p) {
        return idx.offset(Position{p.at("line").get<uint32_t>(), p.at("character").get<uint32_t>()});
      };
      uint32_t b = at(c.at("range").at("start")), e = at(c.at("range").at("end"));
      if (e < b) std::swap(b, e);
      it->second.text.replace(b, e - b, text);
    }
    it->second.version = td.value("version", it->second.version + 1);
    refresh(it->second.root);
  }

  void did_close(const json& uri) {
    auto it = docs_.find(uri.get<std::string>());
    if (it == docs_.end()) return;
    std::string root = it->second.root;
    notify("textDocument/publishDiagnostics", json{{"uri", it->first}, {"diagnostics", json::array()}});
    docs_.erase(it);
    analyses_.erase(root);
    for (auto& [u, d] : docs_)
      if (d.root == root) return refresh(root);  // the disk's text of the closed file now counts
  }

  void refresh_all() {
    std::set<std::string> roots;
    for (auto& [uri, d] : docs_) roots.insert(d.root);
    for (const std::string& r : roots) refresh(r);
  }

  // Re-analyses one program and publishes the diagnostics of each of its open documents.
  // A document its program leaves out (a file the loader skips, such as one
  // in a dot-directory) is analysed as a one-file program of its own.
  void refresh(const std::string& root) {
    auto& a = analyses_[root];
    a = analyze(root, overlay(nullptr));
    std::vector<std::string> alone;
    for (auto& [uri, d] : docs_) {
      if (d.root != root) continue;
      if (a->io_error.empty() && !a->file_of(d.path) && d.root != d.path && is_file_uri(uri)) {
        d.root = d.path;
        alone.push_back(d.path);
        continue;
      }
      notify("textDocument/publishDiagnostics", diagnostics_for(d, *a));
    }
    for (const std::string& r : alone) refresh(r);
  }
};

}  // namespace

int serve(std::FILE* in, std::FILE* out, const std::string& version) {
  Transport io(in, out);
  Server server(io, version);
  while (true) {
    Frame f = io.read();
    if (f.kind == Frame::Eof) return server.end_of_input();
    if (f.kind == Frame::BadHeader) {
      server.bad_frame(f.error);
      continue;
    }
    int status = server.handle(f.body);
    if (status >= 0) return status;
  }
}

int lsp_main(int argc, char** argv, const std::string& version) {
  for (int i = 2; i < argc; ++i) {
    if (std::strcmp(argv[i], "--help") == 0 || std::strcmp(argv[i], "-h") == 0) {
      std::cout << "Usage: woc lsp\n"
                   "\n"
                   "Runs the .wo language server: the Language Server Protocol over stdin and\n"
                   "stdout (Content-Length framing, UTF-16 positions), for editors such as\n"
                   "VS Code (editors/vscode). Diagnostics as you type, hover, go to definition,\n"
                   "document symbols, completion and formatting.\n"
                   "\n"
                   "  --stdio     talk over stdin/stdout: the only transport, so also the default\n"
                   "              (accepted because editor clients pass it)\n"
                   "  -h, --help  show this help\n"
                   "\n"
                   "Exit status: 0 after `shutdown` then `exit`; 1 if the input ends or `exit`\n"
                   "comes without `shutdown`.\n";
      return 0;
    }
    if (std::strcmp(argv[i], "--stdio") == 0) continue;  // what most clients pass; stdio is the only transport
    std::cerr << "woc: unknown option `" << argv[i] << "` for `woc lsp` (see woc lsp --help)\n";
    return 2;
  }
  return serve(stdin, stdout, version);
}

}  // namespace wo::lsp
