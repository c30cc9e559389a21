// aidcsim._core: the pybind11 extension behind the aidcsim Python package (python/aidcsim).
#include "models/common/version.hpp"
#include "python/bindings/bindings.hpp"

PYBIND11_MODULE(_core, m) {
  m.doc() = "aidcsim compiled core (thin pybind11 wrappers; use the aidcsim package on top).";
  m.def(
      "version", [] { return std::string(aidcsim::version()); }, "aidcsim version (the CMake project version).");
  m.def(
      "git_sha", [] { return std::string(aidcsim::git_sha()); }, "Git commit of the build, or 'unknown'.");
  aidcsim::bind::register_errors(m);
  aidcsim::bind::register_scenario(m);
  aidcsim::bind::register_results(m);
  aidcsim::bind::register_engine(m);
  aidcsim::bind::register_topology(m);
  aidcsim::bind::register_thermal(m);
  aidcsim::bind::register_bench(m);
}
