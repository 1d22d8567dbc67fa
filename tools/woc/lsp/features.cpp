// Diagnostics, hover, definition, document symbols and completion
// (features.h). Positions go through LineIndex (UTF-16 columns); what a
// position means comes from sema/query.h.
#include "tools/woc/lsp/features.h"

#include <algorithm>
#include <set>

#include "common/namespaces.h"
#include "format/format.h"
#include "sema/builtins.h"
#include "sema/query.h"
#include "sema/types.h"
#include "tools/woc/lsp/text.h"
#include "tools/woc/lsp/uri.h"

namespace wo::lsp {
namespace {

// LSP enums (specification 3.17).
enum SymbolKind { SkClass = 5, SkMethod = 6, SkField = 8, SkEnum = 10, SkInterface = 11, SkFunction = 12,
                  SkConstant = 14, SkStruct = 23, SkEnumMember = 22 };
enum CompletionKind { CkMethod = 2, CkFunction = 3, CkField = 5, CkVariable = 6, CkClass = 7, CkModule = 9,
                      CkKeyword = 14 };

bool ident_byte(unsigned char c) { return std::isalnum(c) || c == '_' || c >= 0x80; }

json position_json(const LineIndex& idx, uint32_t offset) {
  Position p = idx.position(offset);
  return json{{"line", p.line}, {"character", p.character}};
}

json range_json(const LineIndex& idx, uint32_t begin, uint32_t end) {
  return json{{"start", position_json(idx, begin)}, {"end", position_json(idx, end)}};
}

// How far the thing reported at `offset` reaches: a whole word, a whole text
// literal on its line, or one character (none at a line end).
uint32_t extent_end(std::string_view text, uint32_t offset) {
  if (offset >= text.size()) return (uint32_t)text.size();
  unsigned char c = text[offset];
  uint32_t i = offset;
  if (ident_byte(c)) {
    while (i < text.size() && ident_byte(text[i])) ++i;
    return i;
  }
  if (c == '"') {
    for (i = offset + 1; i < text.size() && text[i] != '\n'; ++i) {
      if (text[i] == '\\') { ++i; continue; }
      if (text[i] == '"') return i + 1;
    }
    return i;
  }
  if (c == '\n' || c == '\r') return offset;
  return std::min<uint32_t>(offset + utf8_len(c), (uint32_t)text.size());
}

uint32_t offset_of(const LineIndex& idx, const json& params) {
  const json& p = params.at("position");
  return idx.offset(Position{p.at("line").get<uint32_t>(), p.at("character").get<uint32_t>()});
}

// A Loc in any file of the program as an LSP Location over the word there.
json location_json(const Analysis& a, const Loc& loc) {
  const SourceFile& f = a.sources.get(loc.file);
  LineIndex idx(f.text);
  return json{{"uri", path_to_uri(f.path)}, {"range", range_json(idx, loc.offset, extent_end(f.text, loc.offset))}};
}

std::string hover_text(const sema::PositionInfo& pi) {
  if (pi.sym) {
    std::string s = sema::describe(*pi.sym);
    if (pi.sym->kind == sema::SymKind::Builtin && pi.type) s += " -> " + sema::type_name(pi.type);
    return s;
  }
  if (pi.cls && pi.cls->sym) return sema::describe(*pi.cls->sym);
  if (pi.type) {
    if (pi.type->kind == sema::TypeKind::Union) return "union " + sema::type_name(pi.type);
    if (pi.type->kind == sema::TypeKind::Interface) return "interface " + sema::type_name(pi.type);
    return sema::type_name(pi.type);
  }
  return "";
}

// Where the thing at a position is declared (line 0: nowhere in source).
Loc declaration(const sema::PositionInfo& pi) {
  if (pi.sym) return sema::declaration_of(*pi.sym);
  if (pi.cls && pi.cls->sym) return sema::declaration_of(*pi.cls->sym);
  if (pi.type && pi.type->kind == sema::TypeKind::Union && pi.type->uni->decl) return pi.type->uni->decl->span.begin;
  if (pi.type && pi.type->kind == sema::TypeKind::Interface && pi.type->iface->decl)
    return pi.type->iface->decl->span.begin;
  return Loc{};
}

const ast::File* file_ast(const Analysis& a, uint32_t fid) {
  for (auto& m : a.program.modules)
    for (auto& f : m->files)
      if (f->file_id == fid) return f.get();
  return nullptr;
}

json symbol_json(const LineIndex& idx, const std::string& name, int kind, const Span& name_span, uint32_t begin,
                 uint32_t end, std::string detail = "") {
  begin = std::min(begin, name_span.begin.offset);
  end = std::max(end, name_span.begin.offset + name_span.len);
  json s{{"name", name},
         {"kind", kind},
         {"range", range_json(idx, begin, end)},
         {"selectionRange", range_json(idx, name_span.begin.offset, name_span.begin.offset + name_span.len)},
         {"children", json::array()}};
  if (!detail.empty()) s["detail"] = detail;
  return s;
}

uint32_t span_end(const Span& s) { return s.begin.offset + s.len; }

json fn_symbol(const LineIndex& idx, const ast::FnDecl& f, int kind) {
  uint32_t b = f.span.len ? f.span.begin.offset : f.sig.span.begin.offset;
  uint32_t e = f.span.len ? span_end(f.span) : span_end(f.sig.span);
  return symbol_json(idx, f.sig.name, kind, f.sig.span, b, e, f.is_static ? "static" : "");
}

json item(const std::string& label, int kind, const std::string& detail = "") {
  json j{{"label", label}, {"kind", kind}};
  if (!detail.empty()) j["detail"] = detail;
  return j;
}

// Fields and methods of a receiver of type `t` (`static_only`: the receiver
// is a class name, `C.`).
void members_of(const sema::Type* t, bool static_only, json& items) {
  if (!t) return;
  t = t->base();
  if (t->kind == sema::TypeKind::Class && t->cls) {
    if (!static_only)
      for (auto& f : t->cls->fields) items.push_back(item(f.name, CkField, sema::type_name(f.type)));
    for (auto& m : t->cls->methods)
      if (m->is_static == static_only) items.push_back(item(m->name, CkMethod, sema::describe(*m->sym)));
  } else if (t->kind == sema::TypeKind::Interface && t->iface && !static_only) {
    for (auto& m : t->iface->methods) items.push_back(item(m.name, CkMethod, sema::describe(*m.sym)));
  }
}

}  // namespace

json diagnostics_for(const Document& doc, const Analysis& a) {
  LineIndex idx(doc.text);
  json list = json::array();
  if (!a.io_error.empty()) {
    list.push_back(json{{"range", range_json(idx, 0, 0)}, {"severity", 1}, {"source", "woc"}, {"message", a.io_error}});
    return json{{"uri", doc.uri}, {"version", doc.version}, {"diagnostics", list}};
  }
  std::optional<uint32_t> fid = a.file_of(doc.path);
  std::string elsewhere;  // the first error of another file: sema waits for every file to parse
  for (const Diagnostic& d : a.diags.sorted()) {
    bool error = diag_severity(d.code) == Severity::Error;
    if (!fid || d.loc.file != *fid) {
      if (error && elsewhere.empty() && d.loc.file < a.sources.size())
        elsewhere = a.sources.get(d.loc.file).path + ":" + std::to_string(d.loc.line) + ":" +
                    std::to_string(d.loc.col) + ": " + diag_code_text(d.code) + " " + d.message;
      continue;
    }
    // The construct the renderer underlines when the stage gave one (a
    // binary expression, a call), else the word at the caret.
    bool spanned = d.span.len > 0 && d.span.begin.file == d.loc.file;
    uint32_t from = spanned ? d.span.begin.offset : d.loc.offset;
    uint32_t to = spanned ? d.span.begin.offset + d.span.len : extent_end(doc.text, d.loc.offset);
    std::string message = d.message;
    for (const std::string& h : d.help) message += "\nhelp: " + h;
    json j{{"range", range_json(idx, from, to)},
           {"severity", error ? 1 : 2},
           {"code", diag_code_text(d.code)},
           {"source", "woc"},
           {"message", message}};
    json related = json::array();
    for (const Related& r : d.related)
      if (r.loc.line != 0 && r.loc.file < a.sources.size())
        related.push_back(json{{"location", location_json(a, r.loc)}, {"message", r.label}});
    if (!related.empty()) j["relatedInformation"] = related;
    list.push_back(std::move(j));
  }
  if (list.empty() && !elsewhere.empty())
    list.push_back(json{{"range", range_json(idx, 0, 0)},
                        {"severity", 1},
                        {"source", "woc"},
                        {"message", "another file of this program has errors: " + elsewhere}});
  return json{{"uri", doc.uri}, {"version", doc.version}, {"diagnostics", list}};
}

json hover(const Document& doc, const Analysis& a, const json& params) {
  LineIndex idx(doc.text);
  uint32_t off = offset_of(idx, params);  // bad params fail even when there is nothing to say
  std::optional<uint32_t> fid = a.file_of(doc.path);
  if (!a.info || !fid) return nullptr;
  sema::PositionInfo pi = sema::info_at(*a.info, *fid, off);
  std::string text = pi.found ? hover_text(pi) : "";
  if (text.empty()) return nullptr;
  return json{{"contents", json{{"kind", "markdown"}, {"value", "```wo\n" + text + "\n```"}}},
              {"range", range_json(idx, pi.span.begin.offset, span_end(pi.span))}};
}

json definition(const Document& doc, const Analysis& a, const json& params) {
  LineIndex idx(doc.text);
  uint32_t off = offset_of(idx, params);
  std::optional<uint32_t> fid = a.file_of(doc.path);
  if (!a.info || !fid) return nullptr;
  sema::PositionInfo pi = sema::info_at(*a.info, *fid, off);
  if (!pi.found) return nullptr;
  Loc loc = declaration(pi);
  if (loc.line == 0 || loc.file >= a.sources.size()) return nullptr;
  return location_json(a, loc);
}

json document_symbols(const Document& doc, const Analysis& a) {
  json out = json::array();
  std::optional<uint32_t> fid = a.file_of(doc.path);
  const ast::File* f = fid ? file_ast(a, *fid) : nullptr;
  if (!f) return out;
  LineIndex idx(doc.text);
  // A symbol that covers only its own name span (a field, a variant, a
  // constant, an interface's method).
  auto leaf = [&](const std::string& name, int kind, const Span& s) {
    return symbol_json(idx, name, kind, s, s.begin.offset, span_end(s));
  };
  // A declaration with members: its range runs to the end of the last one.
  struct Member {
    json symbol;
    Span span;
  };
  auto group = [&](const std::string& name, int kind, const Span& span, std::vector<Member> members) {
    uint32_t e = span_end(span);
    json kids = json::array();
    for (Member& m : members) {
      e = std::max(e, span_end(m.span));
      kids.push_back(std::move(m.symbol));
    }
    json s = symbol_json(idx, name, kind, span, span.begin.offset, e);
    s["children"] = std::move(kids);
    out.push_back(std::move(s));
  };
  for (auto& c : f->classes) {
    std::vector<Member> members;
    for (auto& fd : c->fields) members.push_back({leaf(fd.name, SkField, fd.span), fd.span});
    for (auto& m : c->methods) members.push_back({fn_symbol(idx, *m, SkMethod), m->span});
    group(c->name, SkClass, c->span, std::move(members));
  }
  for (auto& r : f->records) {
    std::vector<Member> members;
    for (auto& fd : r->fields) members.push_back({leaf(fd.name, SkField, fd.span), fd.span});
    group(r->name, SkStruct, r->span, std::move(members));
  }
  for (auto& u : f->unions) {
    std::vector<Member> members;
    for (auto& v : u->variants) members.push_back({leaf(v.name, SkEnumMember, v.span), v.span});
    group(u->name, SkEnum, u->span, std::move(members));
  }
  for (auto& i : f->interfaces) {
    std::vector<Member> members;
    for (auto& m : i->methods) members.push_back({leaf(m.name, SkMethod, m.span), m.span});
    group(i->name, SkInterface, i->span, std::move(members));
  }
  for (auto& fn : f->fns) out.push_back(fn_symbol(idx, *fn, SkFunction));
  for (auto& k : f->consts) out.push_back(leaf(k.name, SkConstant, k.span));
  // Editors show the outline in this order; the AST groups by kind.
  std::stable_sort(out.begin(), out.end(), [](const json& x, const json& y) {
    auto key = [](const json& s) {
      return std::make_pair(s["range"]["start"]["line"].get<uint32_t>(), s["range"]["start"]["character"].get<uint32_t>());
    };
    return key(x) < key(y);
  });
  return out;
}

json formatting(const Document& doc, std::string& error) {
  // One canonical layout (decision 0037): the editor's tabSize/insertSpaces do not apply.
  format::Result r = format::format_source(doc.text, doc.path);
  if (!r.ok) {
    error = r.error.empty() ? "the document cannot be formatted" : r.error;
    return nullptr;
  }
  if (r.text == doc.text) return json::array();
  LineIndex idx(doc.text);
  return json::array({json{{"range", range_json(idx, 0, (uint32_t)doc.text.size())}, {"newText", r.text}}});
}

json completion(const Document& doc, const Analysis& a, const json& params, const Reanalyze& reanalyze) {
  LineIndex idx(doc.text);
  uint32_t off = offset_of(idx, params);
  const std::string& t = doc.text;
  uint32_t word = off;
  while (word > 0 && ident_byte(t[word - 1])) --word;
  std::string prefix = t.substr(word, off - word);
  json items = json::array();

  if (word > 0 && t[word - 1] == '.' && !(word > 1 && t[word - 2] == '.')) {  // `..` is concatenation
    uint32_t dot = word - 1;
    uint32_t recv = dot;
    while (recv > 0 && ident_byte(t[recv - 1])) --recv;
    std::string recv_name = t.substr(recv, dot - recv);
    bool before_is_member = recv > 0 && t[recv - 1] == '.';
    if (!before_is_member && is_stdlib_namespace(recv_name)) {
      std::set<std::string_view> seen;
      for (const sema::BuiltinSig& b : sema::builtin_table())
        if (b.ns == recv_name && seen.insert(b.name).second)
          items.push_back(item(std::string(b.name), CkFunction, "builtin " + recv_name + "." + std::string(b.name)));
    } else {
      // The receiver's type: analyse the text without `.prefix`, where the
      // receiver is a whole expression (the text being typed rarely parses).
      std::string patched = t.substr(0, dot) + t.substr(off);
      std::unique_ptr<Analysis> pa = reanalyze(patched);
      std::optional<uint32_t> fid = pa ? pa->file_of(doc.path) : std::nullopt;
      const ast::Expr* e = pa && pa->info && fid ? sema::expr_ending_at(*pa->info, *fid, dot) : nullptr;
      if (e) {
        bool is_class_name = e->kind == ast::ExprKind::Name && e->sym && e->sym->kind == sema::SymKind::Class;
        members_of(is_class_name ? e->sym->cls->type : e->type, is_class_name, items);
      }
    }
  } else {
    for (const char* kw : {
#define TOKEN(id, s)
#define KEYWORD(id, s) s,
#include "frontend/tokens.def"
#undef TOKEN
#undef KEYWORD
         })
      items.push_back(item(kw, CkKeyword));
    std::set<std::string_view> seen;
    for (const sema::BuiltinSig& b : sema::builtin_table())
      if (b.ns.empty() && seen.insert(b.name).second)
        items.push_back(item(std::string(b.name), CkFunction, "builtin"));
    for (std::string_view ns : kStdlibNamespaces) items.push_back(item(std::string(ns), CkModule, "standard-library namespace"));
    if (a.info) {
      for (auto& f : a.info->fns)
        if (f->module.empty()) items.push_back(item(f->name, CkFunction, sema::describe(*f->sym)));
      for (auto& c : a.info->classes)
        if (c->module.empty() && !c->predeclared) items.push_back(item(c->name, CkClass, sema::describe(*c->sym)));
    }
  }
  json filtered = json::array();
  for (auto& i : items)
    if (i["label"].get<std::string>().rfind(prefix, 0) == 0) filtered.push_back(i);
  return json{{"isIncomplete", false}, {"items", filtered}};
}

}  // namespace wo::lsp
