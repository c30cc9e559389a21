// H100's attention rate (models/compute/gpus.yaml `attention_flops`) against the published kernel
// benchmarks it must agree with: FlashAttention-3 (Shah et al. 2024, arXiv:2407.08608, §4.1) Fig. 5
// "Attention forward speed (FP16/BF16) on H100 GPU", with causal mask, head dim 128, and Fig. 6
// "Attention backward speed", head dim 128 (read in transcriptions of the figures; H100 80GB SXM5,
// 16k tokens per batch, hidden 2,048). Values at sequence 8K, TFLOP/s on FlashAttention's count
// (causal forward = half of 4 b s^2 h, backward = 2.5 x forward). Fig. 6 has no causal panel (its
// standard-attention bars, 181 at 8K, are above the non-causal forward's 139, where the causal panels'
// are ~1/4), so the causal backward is bracketed: the non-causal rate (upper), and the non-causal rate
// x the kernel's causal / non-causal forward ratio (lower; 8K forward without mask: FlashAttention-2
// 370, cuDNN 600, FlashAttention-3 646). docs/validation-large-runs.md, "Attention rate: what the
// runs ran".
#include <catch2/catch.hpp>

#include <cstdio>

#include "models/compute/kernels.hpp"
#include "sim/scenario/gpu_catalogue.hpp"

using namespace aidcsim;

namespace {
struct KernelBars {
  const char* name;
  double fwd_causal, fwd_full, bwd_full;  // TFLOP/s at 8K, head dim 128 (Fig. 5 / Fig. 6)
};
const KernelBars kFa3Paper[] = {
    {"FlashAttention-2", 333, 370, 318}, {"cuDNN", 529, 600, 518}, {"FlashAttention-3", 602, 646, 559}};

/// The kernel's forward + backward as one rate on the catalogue's count (3 x the causal forward), for
/// a causal backward at `bwd` TFLOP/s.
double catalogue_rate(const KernelBars& k, double bwd) {
  return 3.0 / (1.0 / k.fwd_causal + compute::kFlashBackwardOverForward / bwd);
}
}  // namespace

TEST_CASE("H100 attention_flops lies among the published H100 attention kernels (FlashAttention-3 paper)",
          "[validation][attention]") {
  const auto& h100 = builtin_gpus().find("H100");
  const double catalogue = h100.attention_flops / 1e12;
  double lo[3], hi[3];
  for (int i = 0; i < 3; ++i) {
    const auto& k = kFa3Paper[i];
    hi[i] = catalogue_rate(k, k.bwd_full);
    lo[i] = catalogue_rate(k, k.bwd_full * k.fwd_causal / k.fwd_full);
    std::printf("[attention] H100 %s at 8K, head dim 128: %.0f-%.0f TFLOP/s on the catalogue's count\n", k.name, lo[i],
                hi[i]);
  }
  std::printf("[attention] H100 catalogue: %.0f TFLOP/s\n", catalogue);
  // The catalogue figure (FlashAttention-3 in a training step) is cuDNN's (Transformer Engine's
  // backend on Hopper) or FlashAttention-3's, not FlashAttention-2's: 1.6-1.75 x FA2's.
  CHECK(catalogue >= lo[1]);
  CHECK(catalogue <= hi[2]);
  CHECK(catalogue > 1.5 * hi[0]);
  CHECK(catalogue == Approx(hi[1]).epsilon(0.01));  // 446.7: cuDNN's bars with the non-causal backward
  // The same number through the model: the catalogue rate's forward + backward time equals the
  // cuDNN kernels' at their own rates, within 1 %.
  const double F = 2.0 * 8192.0 * 8192 * 2048;  // causal forward FLOPs, b 1, s 8K, hidden 2,048
  const double model = compute::attention_time(h100, F) * (1 + compute::kFlashBackwardOverForward);
  const double cudnn =
      F / (kFa3Paper[1].fwd_causal * 1e12) + compute::kFlashBackwardOverForward * F / (kFa3Paper[1].bwd_full * 1e12);
  CHECK(model == Approx(cudnn).epsilon(0.01));
}
