// request_parser.h: llhttp callbacks that record spans, and the checks the
// HTTP ABI adds on top of llhttp's own (strict mode, no lenient flags).
#include "request_parser.h"

#include "texts.h"

namespace wo::http {

namespace {

bool name_is(const char* p, Span s, const char* lower) { return equals_lower(p + s.off, s.len, lower); }

}  // namespace

struct Callbacks {
  static RequestParser* self(llhttp_t* p) { return static_cast<RequestParser*>(p->data); }
  static int on_method(llhttp_t* p, const char* at, size_t n) {
    RequestParser* r = self(p);
    if (r->extend(&r->method_, &r->in_method_, at, n)) return 0;
    r->fail(400, "malformed request");
    return -1;
  }
  static int on_url(llhttp_t* p, const char* at, size_t n) {
    RequestParser* r = self(p);
    if (r->extend(&r->target_, &r->in_target_, at, n)) return 0;
    r->fail(400, "malformed request");
    return -1;
  }
  static int on_header_field(llhttp_t* p, const char* at, size_t n) {
    RequestParser* r = self(p);
    if (!r->in_name_) r->fields_->push_back(Field{});
    if (r->extend(&r->fields_->back().name, &r->in_name_, at, n)) return 0;
    r->fail(400, "malformed request");
    return -1;
  }
  static int on_header_field_complete(llhttp_t* p) {
    RequestParser* r = self(p);
    // llhttp lets `: value` through with no on_header_field call at all.
    if (!r->in_name_ || r->fields_->back().name.len == 0) {
      r->fail(400, "empty header name");
      return -1;
    }
    r->in_name_ = false;
    Span name = r->fields_->back().name;
    // llhttp refuses a second Content-Length too, and Transfer-Encoding only
    // in some combinations: these say so in the ABI's words, and refuse any
    // Transfer-Encoding (chunked requests are refused on purpose, framework.md §2.1).
    if (name_is(r->base_, name, "content-length")) {
      if (r->seen_length_) {
        r->fail(400, "duplicate content-length");
        return -1;
      }
      r->seen_length_ = true;
    } else if (name_is(r->base_, name, "transfer-encoding")) {
      r->fail(400, "transfer-encoding not supported");
      return -1;
    }
    return 0;
  }
  static int on_header_value(llhttp_t* p, const char* at, size_t n) {
    RequestParser* r = self(p);
    if (r->fields_->empty()) {  // a value without a name (defensive: the name check comes first)
      r->fail(400, "empty header name");
      return -1;
    }
    // Even strict llhttp accepts an obs-fold (CRLF then SP): it reports the
    // value in two pieces with the line break between them. RFC 9112 §5.2
    // lets a server refuse it with 400, and a value with a line break must
    // never reach a handler (or a response header).
    if (!r->extend(&r->fields_->back().value, &r->in_value_, at, n)) {
      r->fail(400, "obsolete line folding");
      return -1;
    }
    return 0;
  }
  static int on_header_value_complete(llhttp_t* p) {
    self(p)->in_value_ = false;
    return 0;
  }
  static int on_headers_complete(llhttp_t* p) {
    RequestParser* r = self(p);
    // llhttp takes a request line without a version as HTTP/0.9; the ABI
    // serves HTTP/1.0 and 1.1 only (framework.md §2.1: three parts or 400).
    if (p->http_major != 1 || p->http_minor > 1) {
      r->fail(400, "unsupported http version");
      return -1;
    }
    r->done_ = true;
    r->content_length_ = (p->flags & F_CONTENT_LENGTH) ? p->content_length : 0;
    r->keep_alive_ = llhttp_should_keep_alive(p) != 0;
    return HPE_PAUSED;  // the body is the caller's: stop right after the blank line
  }

  static const llhttp_settings_t* settings() {
    // Immutable after this first call: shared by every thread.
    static const llhttp_settings_t s = [] {
      llhttp_settings_t x;
      llhttp_settings_init(&x);
      x.on_method = on_method;
      x.on_url = on_url;
      x.on_header_field = on_header_field;
      x.on_header_field_complete = on_header_field_complete;
      x.on_header_value = on_header_value;
      x.on_header_value_complete = on_header_value_complete;
      x.on_headers_complete = on_headers_complete;
      return x;
    }();
    return &s;
  }
};

bool RequestParser::expects_continue(const char* buf) const {
  for (const Field& f : *fields_) {
    if (!name_is(buf, f.name, "expect")) continue;
    const char* v = buf + f.value.off;
    size_t n = f.value.len;
    trim_ows(&v, &n);
    if (equals_lower(v, n, "100-continue")) return true;
  }
  return false;
}

RequestParser::RequestParser(std::vector<Field>* fields) : fields_(fields) {
  fields_->clear();
  llhttp_init(&p_, HTTP_REQUEST, Callbacks::settings());
  p_.data = this;
}

// A span grows piece by piece (a piece ends where a feed ends); a piece that
// does not continue where the last one stopped means llhttp skipped bytes
// inside the element, which the spans cannot represent: the caller refuses it.
bool RequestParser::extend(Span* s, bool* open, const char* at, size_t n) {
  size_t off = static_cast<size_t>(at - base_);
  if (!*open) {
    s->off = off;
    *open = true;
  } else if (off != s->off + s->len) {
    return false;
  }
  s->len = off + n - s->off;
  return true;
}

RequestParser::State RequestParser::fail(int status, const char* why) {
  if (status_ == 0) {  // the first reason stands (a callback's beats llhttp's generic one)
    status_ = status;
    error_ = why;
  }
  return State::Error;
}

RequestParser::State RequestParser::feed(const char* buf, size_t start, size_t len) {
  if (status_ != 0) return State::Error;
  if (done_) return State::Head;
  if (fed_ < start) fed_ = start;
  base_ = buf;
  if (fed_ < len) {
    llhttp_errno_t e = llhttp_execute(&p_, buf + fed_, len - fed_);
    if (e == HPE_PAUSED && done_) {
      head_end_ = static_cast<size_t>(llhttp_get_error_pos(&p_) - buf);
      fed_ = head_end_;
    } else if (e != HPE_OK) {
      if (e == HPE_INVALID_CONTENT_LENGTH || e == HPE_UNEXPECTED_CONTENT_LENGTH)
        return fail(400, "invalid content-length");
      if (e == HPE_INVALID_TRANSFER_ENCODING) return fail(400, "transfer-encoding not supported");
      return fail(400, "malformed request");
    } else {
      fed_ = len;
    }
  }
  if (!done_) return len - start > kHeadMax ? fail(431, "request head too large") : State::NeedMore;
  if (head_end_ - start > kHeadMax) return fail(431, "request head too large");
  if (content_length_ > kBodyMax) return fail(413, "request body too large");
  return State::Head;
}

}  // namespace wo::http
