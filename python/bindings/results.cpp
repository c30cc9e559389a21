// Results for Python: conversion to plain data (numpy arrays for datasets, copied so they outlive
// the C++ object) and back, and the C++ HDF5 / JSON writers, so Python writes the same files as
// `aidcsim run --output/--json`.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "models/common/errors.hpp"
#include "python/bindings/bindings.hpp"
#include "python/bindings/convert.hpp"
#include "sim/results/hdf5_writer.hpp"
#include "sim/results/json_writer.hpp"
#include "sim/results/output_set.hpp"

namespace aidcsim::bind {

py::dict results_to_py(const Results& r) {
  using namespace py::literals;
  py::list summary, datasets, labels, checks;
  for (const auto& s : r.summary)
    summary.append(py::dict("key"_a = s.key, "value"_a = s.value, "unit"_a = s.unit, "description"_a = s.description));
  for (const auto& d : r.datasets) {
    std::vector<py::ssize_t> shape(d.shape.begin(), d.shape.end());
    py::array_t<double> arr(shape);
    if (static_cast<std::size_t>(arr.size()) != d.data.size())
      throw Error("results: dataset " + d.path + " has " + std::to_string(d.data.size()) + " values for its shape");
    std::copy(d.data.begin(), d.data.end(), arr.mutable_data());
    datasets.append(py::dict("path"_a = d.path, "data"_a = arr, "shape"_a = py::tuple(py::cast(d.shape)),
                             "unit"_a = d.unit, "description"_a = d.description, "dims"_a = d.dims,
                             "flag_meanings"_a = d.flag_meanings));
  }
  for (const auto& l : r.labels)
    labels.append(py::dict("path"_a = l.path, "values"_a = l.values, "description"_a = l.description, "dim"_a = l.dim));
  for (const auto& c : r.checks)
    checks.append(py::dict("item"_a = c.item, "value"_a = c.value, "limit"_a = c.limit, "unit"_a = c.unit,
                           "headroom"_a = c.headroom, "pass"_a = c.pass, "note"_a = c.note));
  return py::dict("scenario_name"_a = r.scenario_name, "scenario_file"_a = r.scenario_file,
                  "scenario_text"_a = r.scenario_text, "seed"_a = r.seed, "summary"_a = summary,
                  "datasets"_a = datasets, "labels"_a = labels, "checks"_a = checks, "notes"_a = r.notes,
                  "warnings"_a = r.warnings);
}

namespace {
template <class T>
T field(const py::dict& d, const char* key, T fallback = T()) {
  return d.contains(key) ? d[key].cast<T>() : fallback;
}
}  // namespace

Results results_from_py(const py::dict& d) {
  try {
    Results r;
    r.scenario_name = field<std::string>(d, "scenario_name");
    r.scenario_file = field<std::string>(d, "scenario_file");
    r.scenario_text = field<std::string>(d, "scenario_text");
    r.seed = field<std::uint64_t>(d, "seed");
    for (auto h : field<py::list>(d, "summary")) {
      auto s = h.cast<py::dict>();
      r.summary.push_back({field<std::string>(s, "key"), field<double>(s, "value"), field<std::string>(s, "unit"),
                           field<std::string>(s, "description")});
    }
    for (auto h : field<py::list>(d, "datasets")) {
      auto s = h.cast<py::dict>();
      Dataset ds;
      ds.path = field<std::string>(s, "path");
      auto arr = py::array_t<double, py::array::c_style | py::array::forcecast>::ensure(s["data"]);
      if (!arr) throw Error("results: dataset " + ds.path + " is not numeric");
      for (py::ssize_t i = 0; i < arr.ndim(); ++i) ds.shape.push_back(static_cast<std::size_t>(arr.shape(i)));
      ds.data.assign(arr.data(), arr.data() + arr.size());
      ds.unit = field<std::string>(s, "unit");
      ds.description = field<std::string>(s, "description");
      ds.dims = field<std::vector<std::string>>(s, "dims");
      ds.flag_meanings = field<std::vector<std::string>>(s, "flag_meanings");
      r.datasets.push_back(std::move(ds));
    }
    for (auto h : field<py::list>(d, "labels")) {
      auto s = h.cast<py::dict>();
      r.labels.push_back({field<std::string>(s, "path"), field<std::vector<std::string>>(s, "values"),
                          field<std::string>(s, "description"), field<std::string>(s, "dim")});
    }
    for (auto h : field<py::list>(d, "checks")) {
      auto s = h.cast<py::dict>();
      Check c;
      c.item = field<std::string>(s, "item");
      c.value = field<double>(s, "value");
      c.limit = field<double>(s, "limit");
      c.unit = field<std::string>(s, "unit");
      c.headroom = field<double>(s, "headroom");
      c.pass = field<bool>(s, "pass", true);
      c.note = field<std::string>(s, "note");
      r.checks.push_back(std::move(c));
    }
    r.notes = field<std::vector<std::string>>(d, "notes");
    r.warnings = field<std::vector<std::string>>(d, "warnings");
    return r;
  } catch (const py::cast_error& e) {
    throw Error(std::string("results: malformed results dict: ") + e.what());
  }
}

void register_results(py::module_& m) {
  m.def(
      "write_hdf5",
      [](const py::dict& raw, const std::string& path) {
        Results r = results_from_py(raw);
        py::gil_scoped_release nogil;
        write_hdf5(r, path);
      },
      py::arg("results"), py::arg("path"),
      "Writes a results dict to HDF5 with the C++ writer (sim/results/hdf5_writer.hpp: root "
      "attributes, /summary, datasets with `units` attributes on netCDF-4 dimension scales, /checks, "
      "/notes). Atomic: raises aidcsim.Error and leaves `path` untouched on failure.");
  m.def(
      "write_json", [](const py::dict& raw, const std::string& path) { write_json(results_from_py(raw), path); },
      py::arg("results"), py::arg("path"),
      "Writes the JSON summary (sim/results/json_writer.hpp), as `aidcsim run --json`.");
  m.def(
      "check_output", [](const std::string& path) { resolve_output(path); }, py::arg("path"),
      "Checks that `path` can be written (sim/results/output_set.hpp), creating nothing. Raises "
      "aidcsim.FileError naming the path and the reason.");
  m.def(
      "write_output", [](const std::string& path, const py::bytes& bytes) { write_output(path, std::string(bytes)); },
      py::arg("path"), py::arg("bytes"),
      "Writes `bytes` to `path` like aidcsim run's outputs: complete or not at all, no temporary left, "
      "special files written through. Raises aidcsim.FileError.");
  m.def(
      "write_output", [](const std::string& path, const std::string& text) { write_output(path, text); },
      py::arg("path"), py::arg("text"), "Same for text (written as UTF-8).");
  m.def(
      "summary_json",
      [](const py::dict& raw) {
        return results_to_json(results_from_py(raw)).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
      },
      py::arg("results"), "The JSON summary document as a string.");
  m.def(
      "results_roundtrip", [](const py::dict& raw) { return results_to_py(results_from_py(raw)); }, py::arg("results"),
      "dict -> C++ Results -> dict (tests the conversion).");
}

}  // namespace aidcsim::bind
