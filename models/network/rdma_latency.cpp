// RDMA p99 latency estimate (see rdma_latency.hpp).
#include "models/network/rdma_latency.hpp"

#include <cmath>
#include <limits>
#include <vector>

namespace aidcsim::network {

std::pair<double, double> rdma_latency_p99_estimate(const topology::FabricSpec& spec,
                                                    const topology::BillOfMaterials& bom,
                                                    const Congestion& congestion) {
  using topology::Tier;
  std::vector<Tier> path;  // the longest scale-out path, GPU to GPU
  if (bom.tiers >= 1) path = {Tier::Access, Tier::Access};
  if (bom.tiers >= 2) path.insert(path.begin() + 1, {Tier::LeafSpine, Tier::LeafSpine});
  if (bom.tiers >= 3) path.insert(path.begin() + 2, {Tier::SpineCore, Tier::SpineCore});
  if (path.empty()) return {0.0, 0.0};
  const double links = static_cast<double>(path.size());
  const double base = (links - 1) * spec.switch_latency + links * spec.link_latency;
  double queue = 0;
  for (Tier t : path) {
    const double rate = t == Tier::Access ? spec.nic_rate / std::max(spec.planes, 1) : spec.link_rate;
    const double u = congestion.p99_by_tier[static_cast<int>(t)];
    if (u >= 1 || !(rate > 0)) return {base, std::numeric_limits<double>::infinity()};
    if (u > 0.01) queue += std::log(100 * u) * (kRdmaMtu / rate) / (1 - u);
  }
  return {base, queue};
}

}  // namespace aidcsim::network
