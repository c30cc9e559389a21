#pragma once
// The GPU catalogue: dense peak FLOP/s, HBM, NVLink and power per GPU model, with sources.
#include <string>
#include <vector>

#include "models/compute/spec.hpp"

namespace aidcsim::compute {
/// Names accepted by cluster.gpu, in catalogue order.
std::vector<std::string> catalogue_names();
/// Catalogue entry by name (case-sensitive); throws aidcsim::Error for an unknown name.
GpuSpec find_gpu(const std::string& name);
}  // namespace aidcsim::compute
