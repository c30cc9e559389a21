#pragma once
#include "models/common/params.hpp"
#include "models/common/schema.hpp"
#include "models/topology/fabric_spec.hpp"

namespace aidcsim::topology {
/// Scenario keys read by the topology model (cluster.gpus, cluster.gpus_per_node,
/// cluster.nvlink_domain, fabric.*).
Schema schema();
/// Builds the FabricSpec from validated params; throws InvalidParameter on inconsistent values.
FabricSpec spec_from(const Params& root);
}  // namespace aidcsim::topology
