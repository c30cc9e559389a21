// GPUs per compute rack (see rack_layout.hpp for the rule and its sources).
#include "models/topology/rack_layout.hpp"

namespace aidcsim::topology {

int gpus_per_rack(const PhysicalLayout& layout, int nvlink_domain) {
  if (layout.gpus_per_rack > 0) return layout.gpus_per_rack;
  constexpr int kServersRackGpus = 32;  // 4 x 8-GPU HGX/DGX servers (rack_layout.hpp)
  return nvlink_domain >= kServersRackGpus ? nvlink_domain : kServersRackGpus;
}

}  // namespace aidcsim::topology
