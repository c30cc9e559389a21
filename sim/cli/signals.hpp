#pragma once
// SIGINT / SIGTERM during a command (Ctrl-C, `kill`, a batch scheduler's stop):
// - the first signal asks the run to stop (models/common/cancel.hpp): the engine throws Cancelled
//   at its next poll, the command unwinds, writes nothing, prints one line and exits 128 + signal
//   (130 for SIGINT, 143 for SIGTERM);
// - if the run has not stopped kGraceSeconds later (a loop that does not poll), or on a second
//   signal, the process ends at once: named temporaries of the output set are removed (an output
//   set being published is let finish: it is never half published), the same line is printed, and
//   _exit(128 + signal).
// Both are caught even when inherited ignored: a non-interactive shell starts a background job
// with SIGINT ignored, and `kill -INT $!` must still stop it (case step/11). SIGHUP (nohup) is
// left alone.
// SIGKILL cannot be caught; the output set's unnamed temporaries (O_TMPFILE) vanish with the
// process, and no output is ever half written.
namespace aidcsim::cli {

inline constexpr double kGraceSeconds = 3.0;

/// Installs the handlers and the watcher for the lifetime of the object (one per process).
class SignalGuard {
 public:
  SignalGuard();
  ~SignalGuard();
  SignalGuard(const SignalGuard&) = delete;
  SignalGuard& operator=(const SignalGuard&) = delete;
};

/// 128 + signal for a run stopped by a signal, 1 for a cancel without one.
int exit_code_for_signal(int signal);

/// "aidcsim: interrupted (SIGINT)" / "aidcsim: terminated (SIGTERM)" + `detail`.
void print_stopped(int signal, const char* detail);

}  // namespace aidcsim::cli
