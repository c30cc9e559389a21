#pragma once
// Storage on the fabric (fabric.storage): the simulated checkpoint write's figures, its bandwidth
// bounds and bottleneck, and what the simulation leaves out (checkpoint_write.hpp).
#include "models/common/results.hpp"
#include "sim/engine/situation.hpp"

namespace aidcsim {

/// Summary checkpoint_write_time* (s), storage_bandwidth_effective (GB/s), /storage/* and the
/// storage note of `o`'s checkpoint write; only a note when the fabric has no storage servers.
void report_storage(Results& r, const Scenario& sc, const SituationOutcome& o);

}  // namespace aidcsim
