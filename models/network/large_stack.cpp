// A run on a thread with a large stack (see large_stack.hpp).
#include "models/network/large_stack.hpp"

#include <pthread.h>

#include <cstring>
#include <exception>
#include <string>

#include "models/common/errors.hpp"
#include "models/common/profile.hpp"

namespace aidcsim::network::detail {
namespace {

thread_local bool t_on_large_stack = false;

struct Job {
  const std::function<void()>* body;
  std::exception_ptr error;
};

void* trampoline(void* arg) {
  auto* job = static_cast<Job*>(arg);
  t_on_large_stack = true;
  try {
    (*job->body)();
  } catch (...) {
    job->error = std::current_exception();
  }
  // This thread's CPU for the run profile (profile::cpu_seconds), read here because a thread's
  // CPU clock cannot be read once it has ended.
  if (profile::enabled()) profile::add_worker_cpu(profile::thread_cpu_seconds());
  return nullptr;
}

}  // namespace

bool on_large_stack() { return t_on_large_stack; }

void run_on_large_stack(const std::function<void()>& body) {
  Job job{&body, nullptr};
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  int rc = pthread_attr_setstacksize(&attr, kRunStackBytes);
  pthread_t thread;
  if (rc == 0) rc = pthread_create(&thread, &attr, trampoline, &job);
  pthread_attr_destroy(&attr);
  if (rc != 0)
    throw SimulationError(std::string("flow network: cannot start the run thread with a large stack: ") +
                          std::strerror(rc));
  pthread_join(thread, nullptr);
  if (job.error) std::rethrow_exception(job.error);
}

}  // namespace aidcsim::network::detail
