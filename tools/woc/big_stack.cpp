// run_on_big_stack (big_stack.h).
#include "tools/woc/big_stack.h"

#include <pthread.h>
#include <signal.h>

namespace wo::driver {
namespace {

struct Job {
  const std::function<int()>* body;
  sigset_t mask;  // the caller's signal mask, restored on the new thread
  int result = 0;
};

void* trampoline(void* arg) {
  auto* job = static_cast<Job*>(arg);
  pthread_sigmask(SIG_SETMASK, &job->mask, nullptr);
  job->result = (*job->body)();
  return nullptr;
}

}  // namespace

int run_on_big_stack(size_t bytes, const std::function<int()>& body) {
  Job job{&body, {}, 0};
  // Block every signal here before the thread starts (it inherits the mask and
  // then restores the original one), so process-directed signals go to it.
  sigset_t all;
  sigfillset(&all);
  if (pthread_sigmask(SIG_BLOCK, &all, &job.mask) != 0) return body();
  pthread_t thread;
  bool started = false;
  for (; !started && bytes >= (size_t(64) << 20); bytes /= 4) {
    pthread_attr_t attr;
    if (pthread_attr_init(&attr) != 0) break;
    started = pthread_attr_setstacksize(&attr, bytes) == 0 && pthread_create(&thread, &attr, trampoline, &job) == 0;
    pthread_attr_destroy(&attr);
  }
  if (!started) {
    pthread_sigmask(SIG_SETMASK, &job.mask, nullptr);
    return body();
  }
  pthread_join(thread, nullptr);
  pthread_sigmask(SIG_SETMASK, &job.mask, nullptr);
  return job.result;
}

}  // namespace wo::driver
