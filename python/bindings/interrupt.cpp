#include "python/bindings/interrupt.hpp"

#include <csignal>

#include "python/bindings/bindings.hpp"

namespace aidcsim::bind {
namespace {

struct sigaction g_previous {};

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
  if (!on_main_thread()) return;
  struct sigaction current {};
  if (::sigaction(SIGINT, nullptr, &current) != 0 || current.sa_handler == SIG_IGN) return;
  struct sigaction sa {};
  sa.sa_sigaction = on_sigint;
  sa.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset(&sa.sa_mask);
  installed_ = ::sigaction(SIGINT, &sa, &g_previous) == 0;
}

SigintScope::~SigintScope() {
  if (installed_) ::sigaction(SIGINT, &g_previous, nullptr);
}

void rethrow_cancelled(const Cancelled& e) {
  if (e.signal() == SIGINT) {
    if (PyErr_CheckSignals() != 0) throw py::error_already_set();  // Python's handler raised
    PyErr_SetNone(PyExc_KeyboardInterrupt);
    throw py::error_already_set();
  }
  throw e;  // -> aidcsim.Cancelled (errors.cpp)
}

}  // namespace aidcsim::bind
