#pragma once
// The network area's part of the results: a training step's load on the fabric (summary figures,
// /network/* datasets, timeline) and the network notes. Adding a network output metric means
// adding it here (and to docs/outputs.md).
#include "models/common/results.hpp"
#include "models/network/step_traffic.hpp"
#include "models/topology/fabric.hpp"

namespace aidcsim::network {

/// Tier names in code order (topology::Tier): the coordinate of the "tier" axes and the flag
/// meanings of /network/link_tier. Size 4.
std::vector<std::string> tier_names();

/// Writes into `r`: the summary's link-utilization figures (max, p99, above 80 % over the step,
/// and per time bin when the traffic has a timeline), the RDMA p99 latency estimate
/// (rdma_latency.hpp, from `spec` and `bom` as built), /network/link_* per fabric link,
/// /network/*_utilization_by_tier, /network/bytes_by_tier (B per step, both directions),
/// /network/timeline/*, and the network notes. `step_time` in s (the time-share figures are 0
/// when it is 0).
void report_step_traffic(Results& r, const StepTraffic& traffic, const topology::FabricSpec& spec,
                         const topology::BillOfMaterials& bom, double step_time);

}  // namespace aidcsim::network
