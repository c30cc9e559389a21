// Kernel time closed forms on a made-up GPU with round figures (the built-in catalogue's figures are
// tested where it is parsed: tests/unit/scenario/test_gpu_catalogue.cpp).
#include <catch2/catch.hpp>

#include "models/common/errors.hpp"
#include "models/compute/kernels.hpp"

using namespace aidcsim::compute;

namespace {
GpuSpec round_gpu(bool fp8) {
  GpuSpec g;
  g.name = "round";
  g.bf16_flops = 1000e12;
  g.bf16_mamf = 800e12;
  g.fp8_flops = fp8 ? 2000e12 : 0;
  g.fp8_mamf = fp8 ? 1400e12 : 0;
  g.attention_flops = 450e12;
  g.hbm_bandwidth = 4e12;
  return g;
}
}  // namespace

TEST_CASE("large GEMM runs at eff x MAMF, clock factor scales it, FP8 is faster") {
  const auto gpu = round_gpu(true);
  Efficiency e;
  e.gemm_half_flops = 0;
  const double m = 16384, n = 16384, k = 16384;
  const double t = gemm_time(gpu, m, n, k, Precision::BF16, e);
  CHECK(t == Approx(2 * m * n * k / (e.gemm * 800e12)));
  CHECK(gemm_time(gpu, m, n, k, Precision::BF16, e, 0.5) == Approx(2 * t));
  CHECK(gemm_time(gpu, m, n, k, Precision::FP8, e) == Approx(t * 800.0 / 1400.0));
  // No FP8 tensor cores: FP8 falls back to BF16.
  const auto no_fp8 = round_gpu(false);
  CHECK(gemm_time(no_fp8, m, n, k, Precision::FP8, e) == Approx(gemm_time(no_fp8, m, n, k, Precision::BF16, e)));
  CHECK(peak_flops(no_fp8, Precision::FP8) == Approx(1000e12));
  CHECK(peak_flops(gpu, Precision::FP8) == Approx(2000e12));
}

TEST_CASE("size effect: small GEMMs reach a lower fraction of MAMF") {
  const auto gpu = round_gpu(false);
  Efficiency e;
  auto achieved = [&](double d) { return 2 * d * d * d / gemm_time(gpu, d, d, d, Precision::BF16, e); };
  CHECK(achieved(512) < achieved(2048));
  CHECK(achieved(2048) < achieved(8192));
  CHECK(achieved(8192) <= e.gemm * gpu.bf16_mamf);
}

TEST_CASE("memory-bound work runs at the HBM rate and ignores the clock") {
  const auto gpu = round_gpu(false);
  Efficiency e;
  CHECK(memory_time(gpu, 4e12, e) == Approx(1.0 / e.hbm));
  // skinny GEMM (matrix-vector) is memory bound
  const double t = gemm_time(gpu, 1, 16384, 16384, Precision::BF16, e);
  CHECK(t == Approx(2.0 * (16384.0 + 16384.0 * 16384 + 16384) / (e.hbm * 4e12)));
  CHECK(precision_from("fp16") == Precision::BF16);
  CHECK_THROWS_AS(precision_from("fp4"), aidcsim::Error);
}

TEST_CASE("flash attention: causal FLOPs at the GPU's measured FlashAttention rate") {
  // The catalogue rate counts forward + backward as 3 x the causal forward (the MFU convention of
  // its source), so forward + backward take 3 F / attention_flops, split 1 : 2.5 (FlashAttention's
  // backward work).
  auto gpu = round_gpu(false);
  const double F = 4.0 * 2 * 8192.0 * 8192 * 4096 / 2;  // b 2, s 8192, h 4096, causal half
  const double fwd = attention_time(gpu, F);
  CHECK(fwd * (1 + kFlashBackwardOverForward) == Approx(3 * F / gpu.attention_flops));
  CHECK(fwd == Approx(3 * F / 450e12 / 3.5));
  CHECK(attention_time(gpu, F, 0.5) == Approx(2 * fwd));
  // independent of the GEMM efficiency constants (no Efficiency argument) and of the peak
  gpu.bf16_flops *= 2;
  CHECK(attention_time(gpu, F) == Approx(fwd));
  gpu.attention_flops = 0;
  CHECK_THROWS_AS(attention_time(gpu, F), aidcsim::Error);
}
