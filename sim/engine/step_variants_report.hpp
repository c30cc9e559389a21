#pragma once
// The step variants the time-to-train model uses (step_variants.hpp): the step per global batch of
// the batch schedule, with a link down (degrade mode), after each timed fabric failure, and their
// notes.
#include "models/common/results.hpp"
#include "sim/engine/situation.hpp"

namespace aidcsim {

/// /step/by_batch/*, step_time_link_down and /network/link_down/*, step_time_after_fabric_failures
/// and /network/failures/* (s, counts), and their notes; a timed fabric failure later than
/// `time_to_train_p90` (s) gets a note that it changes nothing.
void report_step_variants(Results& r, const Scenario& sc, const SituationOutcome& o, double time_to_train_p90);

}  // namespace aidcsim
