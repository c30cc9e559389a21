// aidcsim._core: the pybind11 extension behind the aidcsim Python package (python/aidcsim).
#include "python/bindings/bindings.hpp"

#ifndef AIDCSIM_VERSION
#define AIDCSIM_VERSION "unknown"
#endif

PYBIND11_MODULE(_core, m) {
  m.doc() = "aidcsim compiled core (thin pybind11 wrappers; use the aidcsim package on top).";
  m.def("version", [] { return std::string(AIDCSIM_VERSION); }, "aidcsim version string.");
  aidcsim::bind::register_errors(m);
  aidcsim::bind::register_scenario(m);
  aidcsim::bind::register_results(m);
  aidcsim::bind::register_engine(m);
  aidcsim::bind::register_topology(m);
  aidcsim::bind::register_thermal(m);
}
