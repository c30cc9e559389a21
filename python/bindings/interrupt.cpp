#include "python/bindings/interrupt.hpp"

#include <csignal>

#include "python/bindings/bindings.hpp"

namespace aidcsim::bind {
namespace {

struct sigaction g_previous {};
// Scopes alive (their constructors and destructors run with the GIL held, so this needs no lock):
// the handler is installed by the first and restored by the last, never chained to itself.
int g_scopes = 0;
bool g_installed = false;

void on_sigint(int sig, siginfo_t* info, void* context) {
  request_cancel(sig);
  // Python's C-level handler only trips a flag that its eval loop checks: async-signal-safe.
  if (g_previous.sa_flags & SA_SIGINFO) {
    if (g_previous.sa_sigaction) g_previous.sa_sigaction(sig, info, context);
  } else if (g_previous.sa_handler != SIG_DFL && g_previous.sa_handler != SIG_IGN && g_previous.sa_handler) {
    g_previous.sa_handler(sig);
  }
}

bool on_main_thread() {
  const py::module_ threading = py::module_::import("threading");
  return threading.attr("current_thread")().is(threading.attr("main_thread")());
}

}  // namespace

SigintScope::SigintScope() {
  if (g_scopes++ > 0) return;
  struct sigaction current {};
  if (::sigaction(SIGINT, nullptr, &current) != 0 || current.sa_handler == SIG_IGN) return;
  struct sigaction sa {};
  sa.sa_sigaction = on_sigint;
  // The run on the main thread: its system calls resume after the signal. A run on another
  // thread: Python's own flags (no SA_RESTART), so that a read() the main thread is blocked in
  // (input() at the REPL) is interrupted and Python raises KeyboardInterrupt there, as without us.
  sa.sa_flags = SA_SIGINFO | (current.sa_flags & SA_ONSTACK) | (on_main_thread() ? SA_RESTART : 0);
  sigemptyset(&sa.sa_mask);
  g_installed = ::sigaction(SIGINT, &sa, &g_previous) == 0;
}

SigintScope::~SigintScope() {
  if (--g_scopes > 0) return;
  // Restore only if the handler is still ours: the main thread may have set its own meanwhile
  // (signal.signal(SIGINT, SIG_IGN) while a run went on in a worker thread).
  struct sigaction current {};
  if (g_installed && ::sigaction(SIGINT, nullptr, &current) == 0 && (current.sa_flags & SA_SIGINFO) &&
      current.sa_sigaction == on_sigint)
    ::sigaction(SIGINT, &g_previous, nullptr);
  g_installed = false;
}

void rethrow_cancelled(const Cancelled& e) {
  if (e.signal() == SIGINT) {
    // On the main thread Python's handler raises; elsewhere it runs later, on the main thread.
    if (PyErr_CheckSignals() != 0) throw py::error_already_set();
    PyErr_SetNone(PyExc_KeyboardInterrupt);
    throw py::error_already_set();
  }
  throw e;  // -> aidcsim.Cancelled (errors.cpp)
}

}  // namespace aidcsim::bind
