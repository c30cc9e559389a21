#include "sim/engine/validation.hpp"

#include "models/common/errors.hpp"
#include "sim/engine/feasibility.hpp"
#include "sim/engine/monte_carlo_bound.hpp"

namespace aidcsim {

ValidationReport validate_scenario(const Scenario& s) {
  ValidationReport out;
  try {
    std::vector<topology::BillOfMaterials> boms;
    check_scenario(s, &out.warnings, nullptr, &boms);  // what `run` checks before simulating: fabrics, phases, failures
    out.notes.push_back(monte_carlo_note(check_monte_carlo_before_step(s, false, &boms)));
  } catch (const ScenarioError&) {
    throw;
  } catch (const InvalidParameter& e) {
    throw s.locate(e);
  }
  return out;
}

}  // namespace aidcsim
