// The simulation entry point for Python: YAML text in, plain result data out.
#include <pybind11/pybind11.h>

#include "python/bindings/bindings.hpp"
#include "python/bindings/convert.hpp"
#include "sim/engine/pipeline.hpp"
#include "sim/scenario/scenario.hpp"

namespace aidcsim::bind {

void register_engine(py::module_& m) {
  m.def(
      "run_text",
      [](const std::string& text, const std::string& name, long long seed) {
        Results r;
        {
          // The GIL is released while SimGrid runs (Dask heartbeats, notebook UI keep going).
          // The engine is not thread-safe: aidcsim.runner serializes calls with a lock.
          py::gil_scoped_release nogil;
          Scenario s = load_scenario_text(text, name);
          RunOptions opt;
          opt.seed = seed;
          r = simulate(s, opt);
        }
        return results_to_py(r);
      },
      py::arg("text"), py::arg("name") = "<string>", py::arg("seed") = -1,
      "Loads scenario YAML `text` (`name` is the file name in error messages) and simulates it "
      "(aidcsim::simulate). seed >= 0 overrides the scenario's seed. Returns the results as a dict "
      "(see results_to_dict). Raises aidcsim.ScenarioError, SimulationError, Error. Not thread-safe.");
}

}  // namespace aidcsim::bind
