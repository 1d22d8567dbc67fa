// See jit_symbolizer.h.
#include "tools/woc/jit_symbolizer.h"

#include <llvm/DebugInfo/DIContext.h>
#include <llvm/DebugInfo/DWARF/DWARFContext.h>
#include <llvm/Object/ObjectFile.h>
#include <llvm/Support/MemoryBuffer.h>

#include <map>
#include <memory>
#include <mutex>
#include <optional>

// gdb's JIT interface (https://sourceware.org/gdb/current/onlinedocs/gdb.html/JIT-Interface.html),
// defined by LLVM's OrcTargetProcess library that woc links.
extern "C" {
struct jit_code_entry {
  jit_code_entry* next_entry;
  jit_code_entry* prev_entry;
  const char* symfile_addr;
  uint64_t symfile_size;
};
struct jit_descriptor {
  uint32_t version;
  uint32_t action_flag;
  jit_code_entry* relevant_entry;
  jit_code_entry* first_entry;
};
extern jit_descriptor __jit_debug_descriptor;
}

namespace wo::driver {
namespace {

struct Parsed {
  std::unique_ptr<llvm::object::ObjectFile> object;  // relocatable, its sections at their load addresses
  std::unique_ptr<llvm::DWARFContext> dwarf;
};

std::mutex g_mu;
std::map<const jit_code_entry*, Parsed> g_parsed;  // each registered object, parsed once

Parsed* parsed(const jit_code_entry* e) {
  auto it = g_parsed.find(e);
  if (it != g_parsed.end()) return &it->second;
  Parsed& p = g_parsed[e];
  llvm::MemoryBufferRef buf(llvm::StringRef(e->symfile_addr, e->symfile_size), "jit");
  auto obj = llvm::object::ObjectFile::createObjectFile(buf);
  if (!obj) {
    llvm::consumeError(obj.takeError());
    return nullptr;
  }
  p.object = std::move(*obj);
  p.dwarf = llvm::DWARFContext::create(*p.object);
  return &p;
}

// The code section holding `pc`: a relocatable object's line table is kept per
// section, and a lookup must name the section (the cold code of a trap path
// may sit in a section of its own).
std::optional<uint64_t> section_of(const llvm::object::ObjectFile& obj, uint64_t pc) {
  for (const llvm::object::SectionRef& s : obj.sections())
    if (s.isText() && s.getAddress() <= pc && pc < s.getAddress() + s.getSize()) return s.getIndex();
  return std::nullopt;
}

}  // namespace

void jit_symbolize(uintptr_t pc, WoFrameFn frame, void* ctx) {
  std::lock_guard<std::mutex> lock(g_mu);
  llvm::DILineInfoSpecifier spec(llvm::DILineInfoSpecifier::FileLineInfoKind::AbsoluteFilePath,
                                 llvm::DILineInfoSpecifier::FunctionNameKind::ShortName);
  for (const jit_code_entry* e = __jit_debug_descriptor.first_entry; e; e = e->next_entry) {
    Parsed* p = parsed(e);
    if (!p) continue;
    std::optional<uint64_t> section = section_of(*p->object, pc);
    if (!section) continue;
    llvm::DIInliningInfo frames = p->dwarf->getInliningInfoForAddress({pc, *section}, spec);
    for (uint32_t i = 0; i < frames.getNumberOfFrames(); ++i) {
      const llvm::DILineInfo& f = frames.getFrame(i);
      frame(ctx, f.FunctionName.c_str(), f.FileName.c_str(), f.Line);
    }
    return;
  }
}

}  // namespace wo::driver
