#include "models/compute/catalogue.hpp"

#include "models/common/errors.hpp"

namespace aidcsim::compute {
namespace {

// Dense (no sparsity) figures per GPU, all from ../shared/reference/published-figures.md §5.1
// (NVIDIA datasheets as tabulated in stas00/ml-engineering compute/accelerator/README.md):
//   A100 SXM 80GB : 312 TFLOP/s BF16, no FP8, 80 GB HBM2e 2.0 TB/s, NVLink3 600 GB/s bidir, 400 W;
//                   MAMF BF16 271.2 TFLOP/s.
//   H100 SXM      : 989 BF16 / 1979 FP8, 80 GB HBM3 3.35 TB/s, NVLink4 450 GB/s per direction,
//                   700 W; MAMF BF16 794.5, FP8 1402.6.
//   H200 SXM      : 989 / 1979, 141 GB HBM3e 4.8 TB/s, NVLink4, 700 W; MAMF taken = H100 (same die).
//   B200          : 2250 / 4500, 180 GB HBM3e 8.0 TB/s, NVLink5 1.8 TB/s bidir, 1000 W max TGP;
//                   MAMF BF16 1745, FP8 3432.5.
//   GB200 (per GPU): 2500 / 5000, 186 GB HBM3e 8.0 TB/s, NVLink5, 1200 W; MAMF BF16 1822,
//                   FP8 [estimate: B200's 76.3 % of peak] 3815.
// Idle power: ~10-15 % of TDP, typical of nvidia-smi readings of idle SXM parts [estimate].
const std::vector<GpuSpec>& table() {
  static const std::vector<GpuSpec> t = {
      // name     bf16     fp8       HBM    HBM BW   NVLink/dir TDP   idle  MAMF bf16 MAMF fp8
      {"A100", 312e12, 0.0, 80e9, 2.0e12, 300e9, 400, 60, 271.2e12, 0.0},
      {"H100", 989e12, 1979e12, 80e9, 3.35e12, 450e9, 700, 90, 794.5e12, 1402.6e12},
      {"H200", 989e12, 1979e12, 141e9, 4.8e12, 450e9, 700, 90, 794.5e12, 1402.6e12},
      {"B200", 2250e12, 4500e12, 180e9, 8.0e12, 900e9, 1000, 130, 1745e12, 3432.5e12},
      {"GB200", 2500e12, 5000e12, 186e9, 8.0e12, 900e9, 1200, 150, 1822e12, 3815e12},
  };
  return t;
}

}  // namespace

std::vector<std::string> catalogue_names() {
  std::vector<std::string> names;
  for (const auto& g : table()) names.push_back(g.name);
  return names;
}

GpuSpec find_gpu(const std::string& name) {
  for (const auto& g : table())
    if (g.name == name) return g;
  throw Error("unknown GPU model '" + name + "'");
}

}  // namespace aidcsim::compute
