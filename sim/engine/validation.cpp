#include "sim/engine/validation.hpp"

#include <memory>

#include "models/common/errors.hpp"
#include "sim/engine/feasibility.hpp"
#include "sim/engine/monte_carlo_bound.hpp"

namespace aidcsim {

ValidationReport validate_scenario(const Scenario& s, bool with_bom) {
  ValidationReport out;
  try {
    std::vector<topology::BillOfMaterials> boms;       // each situation's fabric as built, before timed failures
    check_scenario(s, &out.warnings, nullptr, &boms);  // what `run` checks before simulating: fabrics, phases, failures
    // The first is the scenario's own when it has fabric.gpus GPUs: its spec differs only by the
    // timed failures, which the BOM is taken before.
    if (with_bom && !boms.empty() && boms.front().gpus == s.fabric.gpus) out.bom = boms.front();
    out.notes.push_back(monte_carlo_note(check_monte_carlo_before_step(s, false, &boms)));
    if (with_bom && !out.bom) out.bom = topology::build_fabric(s.fabric).bom();
  } catch (const ScenarioError&) {
    throw;
  } catch (const InvalidParameter& e) {
    throw s.locate(e);
  }
  return out;
}

}  // namespace aidcsim
