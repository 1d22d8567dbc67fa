// The heap of a `woc build` process: one arena on transparent huge pages.
#pragma once

namespace wo::driver {

// Called at the start of main for `woc build -O0` only: one arena serves
// one compiling thread well, but -O1..-O3 builds of large programs optimise
// and generate code on several threads (docs/decisions/0063, 0067), which
// would then share one arena's lock; `run` keeps the C library's default
// heap for the program it runs. See build_memory.cpp.
void use_huge_page_heap();

}  // namespace wo::driver
