// A run on a thread with a large stack (see large_stack.hpp).
#include "models/network/large_stack.hpp"

#include <pthread.h>

#include <condition_variable>
#include <cstring>
#include <exception>
#include <mutex>
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

/// Runs a job on the calling thread (a large-stack one), reporting its CPU to the run profile:
/// profile::cpu_seconds charges it to the stage that waits for it.
void run_job(Job& job) {
  const bool prof = profile::enabled();
  const double c0 = prof ? profile::thread_cpu_seconds() : 0;
  try {
    (*job.body)();
  } catch (...) {
    job.error = std::current_exception();
  }
  if (prof) profile::add_worker_cpu(profile::thread_cpu_seconds() - c0);
}

pthread_t start_thread(void* (*fn)(void*), void* arg) {
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  int rc = pthread_attr_setstacksize(&attr, kRunStackBytes);
  pthread_t thread;
  if (rc == 0) rc = pthread_create(&thread, &attr, fn, arg);
  pthread_attr_destroy(&attr);
  if (rc != 0)
    throw SimulationError(std::string("flow network: cannot start the run thread with a large stack: ") +
                          std::strerror(rc));
  return thread;
}

void* one_shot(void* arg) {
  t_on_large_stack = true;
  run_job(*static_cast<Job*>(arg));
  return nullptr;
}

/// One long-lived large-stack thread that runs the jobs one at a time. Why not a thread per run:
/// at its end glibc hands the touched part of the 1 GiB stack back to the kernel (madvise) and
/// jemalloc drops the thread's cache, so the next run faulted both in again (zeroed pages: system
/// time). Never destroyed: it waits for work until the process ends.
class Worker {
 public:
  /// Runs `job` on the worker and waits for it; false (nothing run) when the worker is busy with
  /// another caller's job.
  bool try_run(Job& job) {
    std::unique_lock<std::mutex> caller(busy_, std::try_to_lock);
    if (!caller.owns_lock()) return false;
    std::unique_lock<std::mutex> lock(m_);
    job_ = &job;
    cv_.notify_all();
    cv_.wait(lock, [this] { return job_ == nullptr; });
    return true;
  }

  static Worker* instance() {
    static std::mutex m;
    std::lock_guard<std::mutex> lock(m);
    if (g_worker == nullptr) {
      auto* w = new Worker;  // NOLINT: lives until the process ends
      w->thread_ = start_thread(loop, w);
      pthread_detach(w->thread_);
      g_worker = w;
    }
    return g_worker;
  }

  /// In a child after fork() the worker thread does not exist: start another on first use.
  static void forget() { g_worker = nullptr; }

 private:
  static void* loop(void* arg) {
    auto* w = static_cast<Worker*>(arg);
    t_on_large_stack = true;
    std::unique_lock<std::mutex> lock(w->m_);
    while (true) {
      w->cv_.wait(lock, [w] { return w->job_ != nullptr; });
      run_job(*w->job_);
      w->job_ = nullptr;
      w->cv_.notify_all();
    }
    return nullptr;
  }

  static inline Worker* g_worker = nullptr;
  std::mutex busy_, m_;
  std::condition_variable cv_;
  Job* job_ = nullptr;
  pthread_t thread_{};
};

[[maybe_unused]] const int g_atfork = pthread_atfork(nullptr, nullptr, [] { Worker::forget(); });

}  // namespace

bool on_large_stack() { return t_on_large_stack; }

void run_on_large_stack(const std::function<void()>& body) {
  Job job{&body, nullptr};
  if (t_on_large_stack) {  // already on a large stack (a run inside a run): no other thread needed
    run_job(job);
  } else if (!Worker::instance()->try_run(job)) {  // another thread's run is on the worker
    pthread_join(start_thread(one_shot, &job), nullptr);
  }
  if (job.error) std::rethrow_exception(job.error);
}

}  // namespace aidcsim::network::detail
