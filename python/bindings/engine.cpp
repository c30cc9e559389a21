// The simulation entry point for Python: YAML text in, plain result data out.
#include <pybind11/pybind11.h>

#include "python/bindings/bindings.hpp"
#include "python/bindings/convert.hpp"
#include "python/bindings/interrupt.hpp"
#include "sim/engine/simulate.hpp"
#include "sim/scenario/scenario.hpp"

namespace aidcsim::bind {

void register_engine(py::module_& m) {
  m.def(
      "run_text",
      [](const std::string& text, const std::string& name, long long seed, const py::object& progress) {
        // The GIL is released while the engine runs (Dask heartbeats, notebook UI keep going) and
        // Ctrl-C stops it (interrupt.hpp). The engine is not thread-safe: aidcsim.runner
        // serializes calls with a lock.
        const Results r = interruptible([&] {
          RunOptions opt;
          opt.seed = seed;
          // At every progress point the GIL is taken back: pending signals are handled (Ctrl-C's
          // KeyboardInterrupt) and the callback runs. A Python exception from either unwinds the
          // engine like any error and reaches the caller unchanged.
          opt.progress = [&progress](const std::string& stage, double fraction) {
            py::gil_scoped_acquire gil;
            if (PyErr_CheckSignals() != 0) throw py::error_already_set();
            if (!progress.is_none()) progress(stage, fraction);
          };
          Scenario s = load_scenario_text(text, name);
          return simulate(s, opt);
        });
        return results_to_py(r);
      },
      py::arg("text"), py::arg("name") = "<string>", py::arg("seed") = -1, py::arg("progress") = py::none(),
      "Loads scenario YAML `text` (`name` is the file name in error messages) and simulates it "
      "(aidcsim::simulate). seed >= 0 overrides the scenario's seed. progress: None or a callable "
      "(stage: str, fraction: float in [0, 1]) called at each stage of the run; an exception it "
      "raises stops the run and propagates. Returns the results as a dict (see results_to_dict). "
      "Raises aidcsim.ScenarioError, SimulationError, Error; KeyboardInterrupt on Ctrl-C, "
      "aidcsim.Cancelled after request_cancel(). Not thread-safe.");
  m.def(
      "request_cancel", [] { request_cancel(0); },
      "Asks the run in progress (any thread) to stop at its next cancellation point: it raises "
      "aidcsim.Cancelled. Safe to call from another thread, a signal handler or a callback.");
}

}  // namespace aidcsim::bind
