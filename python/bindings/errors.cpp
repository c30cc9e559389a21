// C++ exceptions -> the Python classes of aidcsim/errors.py (plain, picklable classes, so errors
// raised in sweep workers or child processes arrive intact). Most derived first: ScenarioError is
// an InvalidParameter is an Error.
#include <pybind11/pybind11.h>

#include "models/common/cancel.hpp"
#include "models/common/errors.hpp"
#include "python/bindings/bindings.hpp"
#include "sim/scenario/scenario.hpp"

namespace aidcsim::bind {
namespace {

void raise(const char* cls, const py::tuple& args, const py::dict& kwargs) {
  auto type = py::module_::import("aidcsim.errors").attr(cls);
  auto obj = type(*args, **kwargs);
  PyErr_SetObject(type.ptr(), obj.ptr());
}

}  // namespace

void register_errors(py::module_& m) {
  py::register_exception_translator([](std::exception_ptr p) {
    using namespace py::literals;
    try {
      if (p) std::rethrow_exception(p);
    } catch (const ScenarioError& e) {
      raise("ScenarioError", py::make_tuple(e.what()),
            py::dict("file"_a = e.where().file, "line"_a = e.where().line, "column"_a = e.where().column,
                     "key"_a = e.key(), "value"_a = e.value(), "expected"_a = e.expected(), "hint"_a = e.hint()));
    } catch (const InvalidParameter& e) {
      raise("ParameterError", py::make_tuple(e.what()),
            py::dict("key"_a = e.key(), "value"_a = e.value(), "expected"_a = e.expected(), "hint"_a = e.hint()));
    } catch (const FileError& e) {
      raise("FileError", py::make_tuple(e.what(), e.error_number(), e.path()), py::dict());
    } catch (const Cancelled& e) {
      raise("Cancelled", py::make_tuple(e.what()), py::dict());
    } catch (const SimulationError& e) {
      raise("SimulationError", py::make_tuple(e.what()), py::dict());
    } catch (const Error& e) {
      raise("Error", py::make_tuple(e.what()), py::dict());
    }
  });
}

}  // namespace aidcsim::bind
