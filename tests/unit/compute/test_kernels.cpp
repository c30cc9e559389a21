#include <catch2/catch.hpp>

#include "models/common/errors.hpp"
#include "models/compute/catalogue.hpp"
#include "models/compute/kernels.hpp"

using namespace aidcsim::compute;

TEST_CASE("catalogue holds the five GPUs with published-figures.md §5.1 values") {
  REQUIRE(catalogue_names().size() == 5);
  CHECK(find_gpu("A100").bf16_flops == Approx(312e12));
  CHECK(find_gpu("H100").fp8_flops == Approx(1979e12));
  CHECK(find_gpu("H200").hbm_bytes == Approx(141e9));
  CHECK(find_gpu("B200").hbm_bandwidth == Approx(8e12));
  CHECK(find_gpu("GB200").tdp == Approx(1200));
  CHECK(find_gpu("H100").bf16_mamf == Approx(794.5e12));
  CHECK_THROWS_AS(find_gpu("V100"), aidcsim::Error);
}

TEST_CASE("large GEMM runs at eff x MAMF, clock factor scales it, FP8 is faster") {
  const auto h100 = find_gpu("H100");
  Efficiency e;
  e.gemm_half_flops = 0;
  const double m = 16384, n = 16384, k = 16384;
  const double t = gemm_time(h100, m, n, k, Precision::BF16, e);
  CHECK(t == Approx(2 * m * n * k / (e.gemm * 794.5e12)));
  CHECK(gemm_time(h100, m, n, k, Precision::BF16, e, 0.5) == Approx(2 * t));
  CHECK(gemm_time(h100, m, n, k, Precision::FP8, e) < 0.6 * t);
  // A100 has no FP8 tensor cores: FP8 falls back to BF16.
  const auto a100 = find_gpu("A100");
  CHECK(gemm_time(a100, m, n, k, Precision::FP8, e) == Approx(gemm_time(a100, m, n, k, Precision::BF16, e)));
}

TEST_CASE("size effect: small GEMMs reach a lower fraction of MAMF") {
  const auto h100 = find_gpu("H100");
  Efficiency e;
  auto achieved = [&](double d) { return 2 * d * d * d / gemm_time(h100, d, d, d, Precision::BF16, e); };
  CHECK(achieved(512) < achieved(2048));
  CHECK(achieved(2048) < achieved(8192));
  CHECK(achieved(8192) <= e.gemm * h100.bf16_mamf);
}

TEST_CASE("memory-bound work runs at the HBM rate and ignores the clock") {
  const auto b200 = find_gpu("B200");
  Efficiency e;
  CHECK(memory_time(b200, 8e12, e) == Approx(1.0 / e.hbm));
  // skinny GEMM (matrix-vector) is memory bound
  const double t = gemm_time(b200, 1, 16384, 16384, Precision::BF16, e);
  CHECK(t == Approx(2.0 * (16384.0 + 16384.0 * 16384 + 16384) / (e.hbm * 8e12)));
  CHECK(precision_from("fp16") == Precision::BF16);
  CHECK_THROWS(precision_from("fp4"));
}
