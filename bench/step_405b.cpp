// One training step of a Llama-3-405B-like job (TP 8, PP 16, interleaved 1F1B, 16 microbatches per
// replica, DP 128) on 16,384 H100 GPUs (8 per HGX node, 400G rail-optimised 3-tier Clos): prints the
// wall time of plan_step and of the SimGrid run (target <= 10 s, issue 4) and the step breakdown.
// Usage: step_405b [virtual_stages=4] [spine_oversubscription=1]
#include <chrono>
#include <cstdio>
#include <cstdlib>

#include "models/network/flow_network.hpp"
#include "models/topology/fabric.hpp"
#include "models/workload/step.hpp"
#include "sim/scenario/gpu_catalogue.hpp"

using namespace aidcsim;
using Clock = std::chrono::steady_clock;

int main(int argc, char** argv) {
  const int v = argc > 1 ? std::atoi(argv[1]) : 4;
  topology::FabricSpec fs;
  fs.gpus = 16384;
  fs.gpus_per_node = 8;
  fs.nvlink_domain = 8;
  const auto& h100 = builtin_gpus().find("H100");
  fit_fabric_to_gpu(fs, h100);
  fs.kind = topology::FabricKind::Clos3;
  fs.switch_radix = 64;
  fs.link_rate = 50e9;
  fs.nic_rate = 50e9;
  fs.oversub_spine = argc > 2 ? std::atof(argv[2]) : 1.0;

  workload::JobSpec j;  // Llama 3 paper Table 3 (405B) and §3.3.2
  j.model.layers = 126;
  j.model.hidden = 16384;
  j.model.ffn_hidden = 53248;
  j.model.heads = 128;
  j.model.kv_heads = 8;
  j.model.vocab = 128256;
  j.model.sequence_length = 8192;
  j.model.style = "llama";
  j.par.tp = 8;
  j.par.pp = 16;
  j.par.dp = 128;
  j.par.virtual_stages = v;
  j.par.sequence_parallel = true;
  j.par.zero = "zero1";
  j.global_batch = 2048;  // 16M tokens

  const auto t0 = Clock::now();
  const auto fabric = topology::build_fabric(fs);
  const auto t1 = Clock::now();
  network::FlowNetwork net(fabric);
  const auto t2 = Clock::now();
  const auto plan = workload::plan_step(j, h100, fabric, {});
  const auto t3 = Clock::now();
  const auto run = net.run(plan.schedule);
  const auto t4 = Clock::now();
  const auto b = workload::analyse_step(plan, run);
  auto sec = [](auto a, auto z) { return std::chrono::duration<double>(z - a).count(); };

  std::printf("step_405b: %d H100, TP %d PP %d DP %d, v %d, %d microbatches/replica, %zu activities\n", fs.gpus,
              j.par.tp, j.par.pp, j.par.dp, v, plan.microbatches, plan.schedule.activities.size());
  std::printf("fidelity: %s\n", plan.fidelity.c_str());
  std::printf("wall: build fabric %.2f s, platform %.2f s, plan %.2f s, SimGrid run %.2f s; plan + run %.2f s\n",
              sec(t0, t1), sec(t1, t2), sec(t2, t3), sec(t3, t4), sec(t2, t4));
  std::printf("step %.2f s: compute %.2f, exposed TP %.2f, PP %.3f, DP %.3f, bubble %.2f s\n", b.step_time, b.compute,
              b.exposed_tp, b.exposed_pp, b.exposed_dp, b.bubble);
  const double mfu = plan.model_flops_per_step / b.step_time / fs.gpus / h100.bf16_flops;
  std::printf("params %.1f B, %.0f TFLOP/s per GPU (model FLOPs), MFU %.1f %% (Llama 3 reports 38-43 %%)\n",
              plan.parameters / 1e9, plan.model_flops_per_step / b.step_time / fs.gpus / 1e12, 100 * mfu);
  return 0;
}
