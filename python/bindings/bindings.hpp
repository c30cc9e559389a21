#pragma once
// Registration functions of the aidcsim._core module, one per area (one .cpp each). The bindings
// are thin: C++ objects are converted to plain Python data (dicts, lists, numpy arrays) so the
// pure-Python package (python/aidcsim) can pickle them across processes.
#include <pybind11/pybind11.h>

namespace aidcsim::bind {
namespace py = pybind11;

void register_errors(pybind11::module_& m);    // errors.cpp: C++ exceptions -> aidcsim.errors
void register_scenario(pybind11::module_& m);  // scenario.cpp: load/validate scenario text
void register_results(pybind11::module_& m);   // results.cpp: Results <-> dict, HDF5/JSON writers
void register_engine(pybind11::module_& m);    // engine.cpp: run_text (simulate)
void register_topology(pybind11::module_& m);  // topology.cpp: Fabric graph, routes, BOM
void register_thermal(pybind11::module_& m);   // thermal.cpp: steady-state thermal network
void register_bench(pybind11::module_& m);     // bench.cpp: bench_collective (nccl-tests)

}  // namespace aidcsim::bind
