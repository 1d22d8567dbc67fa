// Internal hooks between the cycle collector (gc.cpp) and the containers:
// lists and maps report their heap slots so cycles through them are found.
#pragma once
#include "wo_runtime.h"

namespace wo {
void list_trace(void* list, WoVisit visit, void* ctx);
void map_trace(void* map, WoVisit visit, void* ctx);
bool is_list_destroy(void (*destroy)(void*));
bool is_map_destroy(void (*destroy)(void*));
}  // namespace wo
