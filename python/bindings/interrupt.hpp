#pragma once
// Ctrl-C while C++ code runs under Python (a script, the REPL, a Jupyter kernel's "interrupt"):
// Python only notices SIGINT between bytecodes, so a long C++ call would ignore it, and the
// process (kernel) could only be killed. interruptible(work) runs `work` with the GIL released and,
// on the main thread, a SIGINT handler that asks the run to stop (models/common/cancel.hpp) and
// passes the signal on to Python's own handler; when the engine throws Cancelled at its next poll,
// Python's handler runs and raises KeyboardInterrupt (the interpreter stays alive). A cancel from
// aidcsim.cancel() (any thread) raises aidcsim.Cancelled instead. One place for every binding that
// runs long C++ work (run_text; progress callbacks re-acquire the GIL themselves).
#include <pybind11/pybind11.h>

#include <utility>

#include "models/common/cancel.hpp"

namespace aidcsim::bind {

/// While alive (from any thread): SIGINT requests a cancel and is passed on to the handler it
/// replaced (Python's), which is restored when the last scope ends. Not installed when SIGINT is
/// ignored. Construct and destroy with the GIL held.
class SigintScope {
 public:
  SigintScope();
  ~SigintScope();
  SigintScope(const SigintScope&) = delete;
  SigintScope& operator=(const SigintScope&) = delete;
};

/// With the GIL held, after `work` threw `e`: raises Python's KeyboardInterrupt for SIGINT
/// (through Python's handler when it is the default one and this is the main thread), else lets
/// `e` become aidcsim.Cancelled.
[[noreturn]] void rethrow_cancelled(const Cancelled& e);

/// Runs `work()` (no Python objects inside) with the GIL released and Ctrl-C enabled; returns its
/// result. Clears an earlier cancel first.
template <typename F>
auto interruptible(F&& work) -> decltype(work()) {
  reset_cancel();
  try {
    SigintScope sigint;
    pybind11::gil_scoped_release nogil;
    return std::forward<F>(work)();
  } catch (const Cancelled& e) {
    rethrow_cancelled(e);
  }
}

}  // namespace aidcsim::bind
