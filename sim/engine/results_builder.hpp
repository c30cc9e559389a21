#pragma once
// Turns the simulated situations and the time-to-train model into a self-describing Results:
// the headline summary (units on every number), per-link / per-GPU / per-phase datasets, the
// brief's cooling checklist and the fidelity notes. No wall-clock figures: the same scenario and
// seed give the same Results bit for bit.
#include <cstdint>
#include <vector>

#include "models/common/results.hpp"
#include "models/reliability/time_to_train.hpp"
#include "sim/engine/situation.hpp"

namespace aidcsim {

/// `outcomes` holds one situation, or one per rollout phase (the last phase gives the headline
/// step, congestion and thermal figures; per-phase figures go to /phases/*).
Results build_results(const Scenario& scenario, std::uint64_t seed, const std::vector<SituationOutcome>& outcomes,
                      const reliability::PhasedResult& time_to_train);

}  // namespace aidcsim
