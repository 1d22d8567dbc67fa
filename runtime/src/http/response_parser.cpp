// response_parser.h: llhttp's callbacks for one response, and its limits.
#include "response_parser.h"

namespace wo::http {

struct ResponseCallbacks {
  static ResponseParser& of(llhttp_t* p) { return *static_cast<ResponseParser*>(p->data); }
  static int head_bytes(ResponseParser& s, size_t n) {
    if ((s.head_bytes_ += n) <= ResponseParser::kHeadMax) return 0;
    s.why_ = "response head larger than 64 KiB";
    return -1;
  }
  static int on_message_begin(llhttp_t* p) {
    of(p).started_ = true;
    return 0;
  }
  static int on_status(llhttp_t* p, const char* at, size_t n) {
    ResponseParser& s = of(p);
    if (head_bytes(s, n)) return -1;
    s.reason_.append(at, n);
    return 0;
  }
  static int on_header_field(llhttp_t* p, const char* at, size_t n) {
    ResponseParser& s = of(p);
    if (head_bytes(s, n)) return -1;
    if (s.in_value_) s.end_field();
    s.name_.append(at, n);
    return 0;
  }
  static int on_header_value(llhttp_t* p, const char* at, size_t n) {
    ResponseParser& s = of(p);
    if (head_bytes(s, n)) return -1;
    s.in_value_ = true;
    s.value_.append(at, n);
    return 0;
  }
  static int on_headers_complete(llhttp_t* p) {
    ResponseParser& s = of(p);
    s.end_field();
    s.status_ = p->status_code;
    if (s.status_ < 100 || s.status_ > 599) {  // llhttp takes any three digits; HTTP's codes are 100..599
      s.why_ = "malformed response: status " + std::to_string(s.status_) + " is not 100..599";
      s.status_ = 0;
      return -1;
    }
    s.interim_ = s.status_ >= 100 && s.status_ < 200 && s.status_ != 101;
    return s.head_only_ && !s.interim_ ? 1 : 0;  // 1: no body follows (the answer to HEAD)
  }
  static int on_body(llhttp_t* p, const char* at, size_t n) {
    ResponseParser& s = of(p);
    if (s.body_.size() + n > s.max_body_) {
      s.why_ = "response body larger than " + std::to_string(s.max_body_) + " bytes";
      return -1;
    }
    s.body_.append(at, n);
    return 0;
  }
  static int on_message_complete(llhttp_t* p) {
    ResponseParser& s = of(p);
    if (s.interim_) {  // 100 Continue, 103 Early Hints: the next response is the one
      s.reason_.clear();
      s.headers_.clear();
      s.head_bytes_ = 0;
      s.interim_ = false;
      s.status_ = 0;
      return 0;
    }
    s.done_ = true;
    s.keep_alive_ = llhttp_should_keep_alive(p) != 0;
    return HPE_PAUSED;  // what follows is not this response's
  }
};

ResponseParser::ResponseParser(bool head_only, size_t max_body) : head_only_(head_only), max_body_(max_body) {
  llhttp_settings_init(&settings_);
  settings_.on_message_begin = ResponseCallbacks::on_message_begin;
  settings_.on_status = ResponseCallbacks::on_status;
  settings_.on_header_field = ResponseCallbacks::on_header_field;
  settings_.on_header_value = ResponseCallbacks::on_header_value;
  settings_.on_headers_complete = ResponseCallbacks::on_headers_complete;
  settings_.on_body = ResponseCallbacks::on_body;
  settings_.on_message_complete = ResponseCallbacks::on_message_complete;
  llhttp_init(&parser_, HTTP_RESPONSE, &settings_);
  parser_.data = this;
}

void ResponseParser::end_field() {
  if (in_value_ || !name_.empty()) headers_.emplace_back(std::move(name_), std::move(value_));
  name_.clear();
  value_.clear();
  in_value_ = false;
}

ResponseParser::State ResponseParser::feed(const char* p, size_t n, size_t* used) {
  *used = 0;
  if (done_) return State::Done;
  if (!why_.empty()) return State::Error;
  if (n == 0) return State::NeedMore;
  llhttp_errno_t e = llhttp_execute(&parser_, p, n);
  if (e == HPE_PAUSED && done_) {
    *used = static_cast<size_t>(llhttp_get_error_pos(&parser_) - p);
    return State::Done;
  }
  if (e == HPE_OK) {
    *used = n;
    return State::NeedMore;
  }
  if (why_.empty()) why_ = std::string("malformed response: ") + llhttp_get_error_reason(&parser_);
  return State::Error;
}

ResponseParser::State ResponseParser::finish() {
  if (done_) return State::Done;
  if (!why_.empty()) return State::Error;
  llhttp_errno_t e = llhttp_finish(&parser_);
  if ((e == HPE_OK || e == HPE_PAUSED) && done_) return State::Done;
  if (!started_)
    why_ = "connection closed before a response";
  else
    why_ = status_ ? "connection closed mid-response" : "connection closed mid-head";
  return State::Error;
}

}  // namespace wo::http
