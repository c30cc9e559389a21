#pragma once
// A set of GPU models built from GPU definitions (items of compute::gpu_list_schema): the built-in
// catalogue (models/compute/gpus.yaml, read by sim/scenario) plus a scenario's own `gpus:` list.
//
// A definition either names a `base` GPU and overrides some figures (H800 = H100 with 200 GB/s
// NVLink), overrides a GPU already present under its own name, or is complete (every required
// figure of gpu_fields()). Figures not given get a stated estimate, recorded in GpuSpec::sources:
// MAMF 0.8 x peak, attention 0.45 x BF16 peak; with a base whose peak was changed, the base's
// measured MAMF/attention scaled by the peak ratio.
#include <string>
#include <vector>

#include "models/common/params.hpp"
#include "models/compute/gpu_spec.hpp"

namespace aidcsim::compute {

class Catalogue {
 public:
  /// Adds (or replaces, same name) the definitions of `items` in order; an item may use any GPU
  /// already present or defined before it as `base`. `origin` is recorded as the source of figures
  /// given without one (e.g. "scenario stargate.yaml"). Throws InvalidParameter keyed at the item
  /// ("gpus[2]") or its figure ("gpus[2].fp8_mamf"): unknown base, missing required figures of a
  /// new GPU, MAMF or attention above peak, FP8 MAMF without FP8, shutdown not above throttle
  /// temperature, idle power not below TDP, NVLS without NVLink 4 or later, NVLink without bandwidth.
  void add(const Params::List& items, const std::string& origin);

  bool contains(const std::string& name) const;
  /// The GPU named `name` (case-sensitive); throws aidcsim::Error naming the known GPUs otherwise.
  const GpuSpec& find(const std::string& name) const;
  /// Names in definition order.
  std::vector<std::string> names() const;
  /// "A100, H100, ..." for messages.
  std::string names_text() const;
  const std::vector<GpuSpec>& gpus() const noexcept { return gpus_; }

 private:
  std::vector<GpuSpec> gpus_;
};

}  // namespace aidcsim::compute
