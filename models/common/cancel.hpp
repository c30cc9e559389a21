#pragma once
// Cooperative cancellation of a long run (Ctrl-C in the CLI or in Python, SIGTERM from a batch
// scheduler, a "stop" button). One process-wide flag:
//
//   request_cancel(SIGINT);         // anywhere: a signal handler, another thread
//   ...
//   throw_if_cancelled();           // in every loop whose length depends on the input: the flow
//                                   // engine's event loop, the Monte Carlo draws, transients
//
// throw_if_cancelled() throws aidcsim::Cancelled, which unwinds the run like any error (no
// results, no output file); the caller (CLI, Python binding) reports it and calls reset_cancel()
// before the next run. Polling costs one relaxed atomic load; poll at least every ~10 ms of work
// so that Ctrl-C feels immediate, but not per arithmetic operation.
#include <atomic>

#include "models/common/errors.hpp"

namespace aidcsim {

/// Thrown by throw_if_cancelled() once request_cancel() was called. `signal()` is the signal
/// number passed to request_cancel (SIGINT = 2, SIGTERM = 15), 0 for a programmatic cancel.
class Cancelled : public Error {
 public:
  explicit Cancelled(int signal);
  int signal() const noexcept { return signal_; }

 private:
  int signal_;
};

namespace detail {
inline std::atomic<int> cancel_state{-1};  // -1: running; >= 0: cancelled (signal number or 0)
static_assert(std::atomic<int>::is_always_lock_free, "request_cancel must be async-signal-safe");
}  // namespace detail

/// Asks the current run to stop. Async-signal-safe and thread-safe; the first request wins (its
/// signal number is kept). `signal`: the signal that asked (0 when not a signal).
inline void request_cancel(int signal = 0) noexcept {
  int running = -1;
  detail::cancel_state.compare_exchange_strong(running, signal < 0 ? 0 : signal, std::memory_order_relaxed);
}

/// True once request_cancel() was called (and until reset_cancel()).
inline bool cancel_requested() noexcept { return detail::cancel_state.load(std::memory_order_relaxed) >= 0; }

/// The signal number of the request (0 when programmatic), or -1 when none.
inline int cancel_signal() noexcept { return detail::cancel_state.load(std::memory_order_relaxed); }

/// Throws Cancelled if a cancel was requested. The polling point of every long loop.
inline void throw_if_cancelled() {
  if (cancel_requested()) throw Cancelled(cancel_signal());
}

/// Clears a request (before the next run in the same process).
inline void reset_cancel() noexcept { detail::cancel_state.store(-1, std::memory_order_relaxed); }

}  // namespace aidcsim
