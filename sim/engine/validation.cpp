#include "sim/engine/validation.hpp"

#include <memory>

#include "models/common/errors.hpp"
#include "sim/engine/feasibility.hpp"
#include "sim/engine/monte_carlo_bound.hpp"

namespace aidcsim {

ValidationReport validate_scenario(const Scenario& s, bool with_bom) {
  ValidationReport out;
  try {
    std::unique_ptr<topology::Fabric> first;  // the first situation's fabric, as the checks built it
    check_scenario(s, &out.warnings, with_bom ? &first : nullptr);  // what `run` checks before simulating
    // It is the scenario's own when it has fabric.gpus GPUs: its spec differs only by the timed
    // failures, and check_scenario leaves it null when it applied one.
    if (first && first->spec().gpus == s.fabric.gpus) out.bom = first->bom();
    first.reset();
    out.notes.push_back(monte_carlo_note(check_monte_carlo_before_step(s)));
    if (with_bom && !out.bom) out.bom = topology::build_fabric(s.fabric).bom();
  } catch (const ScenarioError&) {
    throw;
  } catch (const InvalidParameter& e) {
    throw s.locate(e);
  }
  return out;
}

}  // namespace aidcsim
