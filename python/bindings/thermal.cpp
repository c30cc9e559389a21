// The thermal model on its own (models/thermal/site.hpp): steady state of a scenario's cooling
// plant for a given GPU load, without simulating the network. Returns plain data.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "models/thermal/site.hpp"
#include "python/bindings/bindings.hpp"
#include "sim/engine/feasibility.hpp"
#include "sim/scenario/scenario.hpp"

namespace aidcsim::bind {
namespace {

py::array_t<double> arr(const std::vector<double>& v) {
  py::array_t<double> a(static_cast<py::ssize_t>(v.size()));
  std::copy(v.begin(), v.end(), a.mutable_data());
  return a;
}

py::dict power_to_py(const thermal::PowerBreakdown& p) {
  using namespace py::literals;
  return py::dict(
      "gpu"_a = p.gpu, "cpu"_a = p.cpu, "nic"_a = p.nic, "rack_overhead"_a = p.rack_overhead, "psu_loss"_a = p.psu_loss,
      "server_fans"_a = p.server_fans, "switches"_a = p.switches, "it"_a = p.it, "cdu_pumps"_a = p.cdu_pumps,
      "facility_pumps"_a = p.facility_pumps, "rack_cooler_fans"_a = p.rack_cooler_fans, "cdu_fans"_a = p.cdu_fans,
      "rejection_fans"_a = p.rejection_fans, "chiller"_a = p.chiller, "crah"_a = p.crah, "cooling"_a = p.cooling,
      "distribution_loss"_a = p.distribution_loss, "facility"_a = p.facility, "pue"_a = p.pue,
      "pue_fans_as_cooling"_a = p.pue_fans_as_cooling, "brief_estimate"_a = p.brief_estimate);
}

py::dict report_to_py(const thermal::SiteReport& r) {
  using namespace py::literals;
  const auto& s = r.state;
  py::dict state("gpu_junction"_a = arr(s.gpu_junction), "gpu_cold_plate"_a = arr(s.gpu_cold_plate),
                 "gpu_outlet"_a = arr(s.gpu_outlet), "gpu_power"_a = arr(s.gpu_power), "gpu_clock"_a = arr(s.gpu_clock),
                 "rack_inlet"_a = arr(s.rack_inlet), "rack_outlet"_a = arr(s.rack_outlet),
                 "rack_power"_a = arr(s.rack_power), "rack_liquid_heat"_a = arr(s.rack_liquid_heat),
                 "rack_air_heat"_a = arr(s.rack_air_heat), "rack_rdhx_heat"_a = arr(s.rack_rdhx_heat),
                 "rack_room_heat"_a = arr(s.rack_room_heat), "cdu_supply"_a = arr(s.cdu_supply),
                 "cdu_return"_a = arr(s.cdu_return), "cdu_heat"_a = arr(s.cdu_heat), "cdu_flow"_a = arr(s.cdu_flow),
                 "facility_supply"_a = s.facility_supply, "facility_return"_a = s.facility_return,
                 "flow_per_gpu"_a = s.flow_per_gpu);
  py::list checks;
  for (const auto& c : r.checklist)
    checks.append(py::dict("item"_a = c.item, "value"_a = c.value, "limit"_a = c.limit, "unit"_a = c.unit,
                           "headroom"_a = c.headroom, "pass"_a = c.pass, "note"_a = c.note));
  return py::dict("max_gpu_temp"_a = r.max_gpu_temp, "gpu_temp_limit"_a = r.gpu_temp_limit,
                  "coolant_inlet"_a = r.coolant_inlet, "coolant_outlet"_a = r.coolant_outlet,
                  "loop_delta_t"_a = r.loop_delta_t, "max_cold_plate_temp"_a = r.max_cold_plate_temp,
                  "max_coolant_temp"_a = r.max_coolant_temp, "it_power"_a = r.it_power,
                  "cooling_power"_a = r.cooling_power, "facility_power"_a = r.facility_power, "pue"_a = r.pue,
                  "min_clock"_a = r.min_clock, "gpus_over_limit"_a = r.gpus_over_limit,
                  "network_nodes"_a = r.network_nodes, "power"_a = power_to_py(r.state.power), "state"_a = state,
                  "checklist"_a = checks);
}

thermal::SiteLayout layout_of(const Scenario& s, int switches) {
  return thermal_layout(s, s.fabric.gpus, switches);  // the engine's racks (bom.layout)
}

}  // namespace

void register_thermal(py::module_& m) {
  m.def(
      "thermal_report",
      [](const std::string& text, const std::string& name, double compute_busy, double comm_busy,
         const std::vector<double>& clock, bool group, int switches) {
        Scenario s = load_scenario_text(text, name);
        thermal::SiteReport r;
        try {
          const auto layout = layout_of(s, switches);
          py::gil_scoped_release nogil;
          r = thermal::steady_state(s.cooling, layout, {thermal::GpuLoad{compute_busy, comm_busy}}, clock,
                                    thermal::SolveOptions{group});
        } catch (const ScenarioError&) {
          throw;
        } catch (const InvalidParameter& e) {
          throw s.locate(e);
        }
        return report_to_py(r);
      },
      py::arg("text"), py::arg("name"), py::arg("compute_busy") = 1.0, py::arg("comm_busy") = 0.0,
      py::arg("clock") = std::vector<double>{}, py::arg("group") = true, py::arg("switches") = 0,
      "Steady state of the scenario's site (models/thermal steady_state) for a uniform GPU load "
      "(compute_busy, comm_busy: fractions of the step that partition it with the idle time, together at most 1) and "
      "clock factors (empty = 1, one value, or one per GPU). Returns a dict: temperatures in K, powers in W, pue, "
      "state arrays per GPU / "
      "rack / CDU, checklist. Raises aidcsim.ScenarioError for a bad scenario.");
  m.def(
      "thermal_throttled_clocks",
      [](const std::string& text, const std::string& name, double compute_busy, double comm_busy, int switches) {
        Scenario s = load_scenario_text(text, name);
        std::vector<double> f;
        try {
          const auto layout = layout_of(s, switches);
          py::gil_scoped_release nogil;
          f = thermal::solve_throttled_clocks(s.cooling, layout, {thermal::GpuLoad{compute_busy, comm_busy}});
        } catch (const ScenarioError&) {
          throw;
        } catch (const InvalidParameter& e) {
          throw s.locate(e);
        }
        return arr(f);
      },
      py::arg("text"), py::arg("name"), py::arg("compute_busy") = 1.0, py::arg("comm_busy") = 0.0,
      py::arg("switches") = 0, "Clock factor per GPU that holds every junction at its limit (solve_throttled_clocks).");
}

}  // namespace aidcsim::bind
