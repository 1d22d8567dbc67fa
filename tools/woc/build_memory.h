// The heap of a `woc build` process: one arena on transparent huge pages.
#pragma once

namespace wo::driver {

// Called at the start of main for `woc build` only (not `run`: the program
// it runs keeps the C library's default heap). See build_memory.cpp.
void use_huge_page_heap();

}  // namespace wo::driver
