#pragma once
#include "models/common/params.hpp"
#include "models/common/schema.hpp"
#include "models/reliability/training_spec.hpp"

namespace aidcsim::reliability {
/// Scenario keys read by the reliability model (training.*, reliability.*, rollout.*).
Schema schema();
TrainingSpec spec_from(const Params& root);
}  // namespace aidcsim::reliability
