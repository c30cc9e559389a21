// network::for_each_subflow_route: a transfer's sub-flow routes as FlowNetwork::run builds them
// (detail::subflow_routes), for callers outside the network area (the engine's rerouted-transfer
// counts).
#include <algorithm>

#include "models/network/flow_network_internal.hpp"

namespace aidcsim::network {

void for_each_subflow_route(const topology::Fabric& fabric, const Activity& a, int spray_subflows,
                            const std::function<void(const std::vector<topology::Hop>&)>& emit) {
  if (a.kind != Activity::Kind::Transfer || a.gpu == a.dst_gpu) return;
  const auto& spec = fabric.spec();
  const bool spray = spec.ecmp == topology::EcmpMode::Spray;
  const int fpp = std::max(1, spec.flows_per_pair);
  detail::subflow_routes(fabric, a, spray, fpp, spray_subflows, 0, -1, /*once=*/true,
                         [&emit](int, int, auto&& hops) { emit(hops); });
}

}  // namespace aidcsim::network
