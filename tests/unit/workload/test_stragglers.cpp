#include <catch2/catch.hpp>

#include <cmath>

#include "models/topology/fabric.hpp"
#include "models/workload/step.hpp"
#include "models/workload/stragglers.hpp"
#include "test_gpu.hpp"

using namespace aidcsim;
using namespace aidcsim::workload;

TEST_CASE("gpu_speed_factors: list entries per GPU and node, seeded distributions") {
  JobSpec j;
  CHECK(gpu_speed_factors(j, 64, 8, 1).empty());               // no straggler: no factors
  j.gpu_speed = {{5, -1, 0.9}, {-1, 2, 0.8}, {100, -1, 0.5}};  // GPU 100 is outside this 64-GPU job
  auto f = gpu_speed_factors(j, 64, 8, 1);
  REQUIRE(f.size() == 64);
  CHECK(f[5] == 0.9);
  for (int g = 16; g < 24; ++g) CHECK(f[g] == 0.8);
  CHECK(f[0] == 1.0);
  CHECK(f[63] == 1.0);

  JobSpec n;
  n.speed_distribution.kind = "normal";
  n.speed_distribution.mean = 0.97;
  n.speed_distribution.sd = 0.02;
  n.speed_distribution.min = 0.5;
  n.speed_distribution.max = 1.2;  // 11.5 sd away: no clipping
  const auto a = gpu_speed_factors(n, 20000, 4, 7), b = gpu_speed_factors(n, 20000, 4, 7),
             c = gpu_speed_factors(n, 20000, 4, 8);
  CHECK(a == b);  // same seed, same draws
  CHECK(a != c);
  double sum = 0, sq = 0;
  for (double x : a) {
    sum += x;
    sq += x * x;
  }
  const double mean = sum / a.size(), sd = std::sqrt(sq / a.size() - mean * mean);
  CHECK(mean == Approx(0.97).epsilon(0.001));
  CHECK(sd == Approx(0.02).epsilon(0.03));
  n.speed_distribution.max = 1.0;  // 1.5 sd above the mean: 1 - Phi(1.5) = 6.68 % of the draws clipped to 1
  int at_max = 0;
  for (double x : gpu_speed_factors(n, 20000, 4, 7)) {
    CHECK(x <= 1.0);
    at_max += x == 1.0;
  }
  CHECK(at_max / 20000.0 == Approx(0.0668).epsilon(0.1));
  n.speed_distribution.kind = "uniform";
  n.speed_distribution.per = "node";
  n.speed_distribution.min = 0.9;
  const auto u = gpu_speed_factors(n, 64, 8, 3);
  for (int g = 0; g < 64; ++g) {
    CHECK(u[g] >= 0.9);
    CHECK(u[g] == u[g / 8 * 8]);  // one draw per node
  }
}

namespace {
/// 64 GPUs, 8 per node and NVLink domain, on a 25 GB/s leaf-spine of radix 64.
topology::FabricSpec small_fabric() {
  topology::FabricSpec fs;
  fs.gpus = 64;
  fs.gpus_per_node = 8;
  fs.nvlink_domain = 8;
  fs.nvlink_bandwidth = 300e9;
  fs.kind = topology::FabricKind::LeafSpine;
  fs.switch_radix = 64;
  fs.link_rate = 25e9;
  fs.nic_rate = 25e9;
  return fs;
}

/// A small transformer on tp 4 x pp 4 x dp 4 of small_fabric(), global batch 32.
JobSpec small_job() {
  JobSpec j;
  j.model.layers = 8;
  j.model.hidden = 2048;
  j.model.ffn_hidden = 8192;
  j.model.heads = 16;
  j.model.kv_heads = 16;
  j.model.vocab = 1024;
  j.model.sequence_length = 1024;
  j.par.tp = 4;
  j.par.pp = 4;
  j.par.dp = 4;
  j.global_batch = 32;
  return j;
}
}  // namespace

TEST_CASE("a straggler slows its stage; the slowest replica is the representative") {
  const auto fabric = topology::build_fabric(small_fabric());
  JobSpec j = small_job();
  const auto gpu = testing::h100_like();
  const StepPlan base = plan_step(j, gpu, fabric, {});
  CHECK(base.representative_replica == 0);
  CHECK(base.stragglers == 0);
  // GPU 2 x 16 + 3 x 4 + 1: replica 3, stage 2, TP rank 1 (the default order tp,cp,dp,pp: a stage
  // is a block of tp x dp = 16 GPUs, its replicas tp = 4 apart)
  j.gpu_speed = {{2 * 16 + 3 * 4 + 1, -1, 0.8}};
  const StepPlan slow = plan_step(j, gpu, fabric, {});
  CHECK(slow.representative_replica == 3);
  CHECK(slow.stragglers == 1);
  CHECK(slow.stage_gpu[2] == 2 * 16 + 3 * 4);  // 44
  CHECK(slow.compute[2] == Approx(base.compute[2] / 0.8));
  CHECK(slow.compute[1] == Approx(base.compute[1]));
}

TEST_CASE("GPUs above nominal speed shorten their stage's compute; one fast GPU alone does not") {
  // cluster.gpu_speed factors and gpu_speed_distribution go to 2; d097d0b started each stage's speed
  // at 1 and took the minimum, so a stage whose GPUs were all faster ran at nominal speed: every GPU
  // of a 64-GPU scenario at factor 2 gave the same step as none, without a word.
  const auto fabric = topology::build_fabric(small_fabric());
  JobSpec j = small_job();
  const auto gpu = testing::h100_like();
  const StepPlan base = plan_step(j, gpu, fabric, {});
  // Stage 2 (GPUs 32-47) at 1.25x, the rest nominal: that stage's compute is 1/1.25 of it.
  for (int g = 32; g < 48; ++g) j.gpu_speed.push_back({g, -1, 1.25});
  const StepPlan fast = plan_step(j, gpu, fabric, {});
  CHECK(fast.stragglers == 0);
  CHECK(fast.compute[2] == Approx(base.compute[2] / 1.25));
  CHECK(fast.compute[1] == Approx(base.compute[1]));
  // One GPU of stage 1 at 2x: its TP peers are at nominal and it waits for them.
  j.gpu_speed = {{16 + 1, -1, 2.0}};
  const StepPlan one = plan_step(j, gpu, fabric, {});
  CHECK(one.compute[1] == Approx(base.compute[1]));
}
