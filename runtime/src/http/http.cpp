// net.read_request / net.write_response (the HTTP ABI of issue 9). Placeholder
// so programs type-check and link while the llhttp layer is written.
#include "../heap.h"
#include "wo_runtime.h"

namespace {
void destroy_raw_request(void* self) {
  auto* r = static_cast<WoRawRequest*>(self);
  wo_release(r->method);
  wo_release(r->target);
  wo_release(r->headers);
  wo_release(r->body);
  wo_release(r->rest);
  wo_release(r->error);
}
}  // namespace

extern "C" {

WoRawRequest* wo_net_read_request(int64_t, WoText*, int64_t, int64_t, const WoSite*) {
  auto* r = static_cast<WoRawRequest*>(wo_alloc(sizeof(WoRawRequest), destroy_raw_request));
  wo::OwnedGuard guard(r);
  r->status = 400;
  r->method = wo::text_from("", 0);
  r->target = wo::text_from("", 0);
  r->headers = wo_map_new(WO_ELEM_TEXT, WO_ELEM_TEXT);
  r->body = wo::text_from("", 0);
  r->rest = wo::text_from("", 0);
  r->error = wo::text_from("not implemented yet", 19);
  guard.disown();
  return r;
}

bool wo_net_write_response(int64_t, int64_t, WoMap*, WoText*, bool, bool, int64_t, const WoSite*) { return false; }

}  // extern "C"
