#pragma once
// GpuSpec: one GPU model's datasheet figures (SI). Owner: models/compute (catalogue.cpp has the
// sources per entry).
#include <string>

namespace aidcsim::compute {

struct GpuSpec {
  std::string name;            ///< "H100", "GB200", ...
  double bf16_flops = 0;       ///< dense peak, FLOP/s
  double fp8_flops = 0;        ///< dense peak, FLOP/s (0: no FP8 tensor cores, e.g. A100)
  double hbm_bytes = 0;        ///< B
  double hbm_bandwidth = 0;    ///< B/s
  double nvlink_bandwidth = 0; ///< B/s per direction
  double tdp = 0;              ///< W
  double idle_power = 0;       ///< W
  /// Maximum achievable matmul FLOP/s (MAMF), measured, BF16 / FP8 (published-figures.md §5.1,
  /// ml-engineering "Maximum Achievable Matmul FLOPS"). 0 = unknown: a fraction of peak is used.
  double bf16_mamf = 0;
  double fp8_mamf = 0;
  double throttle_temperature = 0;   ///< K, junction temperature where the clocks start to drop (0: unknown)
  double shutdown_temperature = 0;   ///< K, junction temperature of the thermal shutdown (0: unknown)
};

}  // namespace aidcsim::compute
