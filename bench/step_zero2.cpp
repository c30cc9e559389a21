// Benchmark (prints figures; not a timed test): the step of the Llama 3 405B row (tests/validation/
// large_runs/llama3-405b/8192-gpus.yaml: TP 8, PP 16, 8 chunks, 32 microbatches per replica, radix-224
// clos3, 16 flows per pair) with its DP traffic per microbatch (ZeRO-2: a gradient reduce-scatter per
// layer and microbatch on every rail), scaled down to DP replicas (same per-GPU layout, same fabric
// kind; 128 GPUs per replica). Prints CPU s (getrusage) and peak RSS of plan + run, the schedule's
// size, and the step. Run it for DP 2, 4, 8, ... to see how the cost grows with DP (issue 13; the
// full row, DP 64, took hours on 0.1.0's engine: docs/benchmarks.md).
// Usage: step_zero2 [dp=4] [zero=zero2] [scenario=tests/validation/large_runs/llama3-405b/8192-gpus.yaml] [k=1] [relax=0]
// k: workload.zero_reduce_scatter_aggregation (k microbatches' reduce-scatters as one; 1 = exact).
// relax: FlowNetwork::set_relaxed_tiers mask (8 = spine-core links, 12 = leaf-spine and spine-core;
// bit 1 << topology::Tier); 0 = off.
// (run from the source tree, as `make bench` does).

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "bench/process_usage.hpp"
#include "models/common/profile.hpp"
#include "models/network/flow_network.hpp"
#include "models/topology/fabric.hpp"
#include "models/workload/step.hpp"
#include "sim/engine/step_run.hpp"
#include "sim/scenario/scenario.hpp"

using namespace aidcsim;
using bench::cpu_now;
using bench::peak_rss_gib;

int main(int argc, char** argv) {
  const int dp = argc > 1 ? std::atoi(argv[1]) : 4;
  const std::string zero = argc > 2 ? argv[2] : "zero2";
  const std::string path = argc > 3 ? argv[3] : "tests/validation/large_runs/llama3-405b/8192-gpus.yaml";
  const int k = argc > 4 ? std::atoi(argv[4]) : 1;
  const auto relax = static_cast<std::uint32_t>(argc > 5 ? std::atoi(argv[5]) : 0);
  LoadOptions o;
  o.check_hbm_fit = false;  // the row's header: the memory model over-counts it (as test_large_runs)
  Scenario sc = load_scenario_file(path, o);
  const int per_replica = sc.job.par.tp * sc.job.par.cp * sc.job.par.pp;
  const int per_dp_batch = sc.job.global_batch / sc.job.par.dp;
  sc.job.par.dp = dp;
  sc.job.par.zero = zero;
  sc.job.zero_reduce_scatter_aggregation = k;
  sc.job.global_batch = per_dp_batch * dp;  // same microbatches per replica
  sc.fabric.gpus = per_replica * dp;

  const double c0 = cpu_now();
  const auto fabric = topology::build_fabric(sc.fabric);
  network::FlowNetwork net(fabric);
  net.set_relaxed_tiers(relax);
  const StepRun s = run_step(sc.job, sc.gpu, fabric, net, {}, sc.seed);
  const double cpu = cpu_now() - c0;
  long long transfers = 0;
  for (const auto& a : s.plan.schedule.activities) transfers += a.kind == network::Activity::Kind::Transfer;
  const auto& b = s.breakdown;
  std::printf("step_zero2: %d GPUs (DP %d, %s), %zu activities (%lld transfers)\n", s.plan.gpus, dp, zero.c_str(),
              s.plan.schedule.activities.size(), transfers);
  std::printf("fidelity: %s\n", s.plan.fidelity.c_str());
  if (relax) std::printf("relaxed tiers mask %u\n", relax);
  std::printf("step %.17g s; makespan %.17g s\n", b.step_time, s.run.makespan);
  std::printf("step %.3f s: compute %.3f, exposed TP %.3f, PP %.3f, DP %.3f, bubble %.3f s; %.1f TFLOP/s per GPU\n",
              b.step_time, b.compute, b.exposed_tp, b.exposed_pp, b.exposed_dp, b.bubble,
              s.plan.model_flops_per_step / b.step_time / s.plan.gpus / 1e12);
  std::printf("plan + run: %.2f s CPU, peak RSS %.2f GiB\n", cpu, peak_rss_gib());
  for (const auto& e : profile::entries())  // AIDCSIM_PROFILE=1: the network engine's counters
    if (e.name.rfind("network:", 0) == 0) std::printf("  %s: %lld calls, %.2f s CPU\n", e.name.c_str(), e.calls, e.cpu);
  return 0;
}
