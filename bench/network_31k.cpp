// Benchmark (prints figures; not a timed test): a ~31,000-GPU 3-tier Clos of GB200 NVL72 racks
// (4 GPUs per compute tray, 72-GPU NVLink domains, 400G NICs, radix-64 switches, rail-optimized,
// 1:1) and one full-scale phase of one flow per GPU: every GPU sends 256 MiB to the GPU half the
// cluster away (another rack and another pod, same rail), so every flow crosses leaf, spine and
// core. Reports fabric build and run wall and CPU times and peak RSS, and a second run in the
// same process (bit-identical by construction).
// Target (issue 13): build + one phase <= 5 s CPU and <= 2 GiB peak RSS.
// Usage: network_31k [gpus=31104] [MiB per flow=256]
#include <time.h>

#include <cmath>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <numeric>

#include "bench/process_usage.hpp"
#include "models/network/flow_network.hpp"

using namespace aidcsim;
using bench::cpu_now;
using bench::peak_rss_gib;
using Clock = std::chrono::steady_clock;

static double since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

int main(int argc, char** argv) {
  const int gpus = argc > 1 ? std::atoi(argv[1]) : 31104;  // 432 NVL72 racks
  const double bytes = (argc > 2 ? std::atof(argv[2]) : 256.0) * 1024 * 1024;

  topology::FabricSpec spec;
  spec.gpus = gpus;
  spec.gpus_per_node = 4;
  spec.nvlink_domain = 72;
  spec.kind = topology::FabricKind::Clos3;
  spec.wiring = topology::Wiring::RailOptimized;
  spec.switch_radix = 64;
  spec.link_rate = spec.nic_rate = 50e9;  // 400 Gb/s

  const auto t_all = Clock::now();
  auto t = Clock::now();
  double c0 = cpu_now();
  const topology::Fabric fabric = topology::build_fabric(spec);
  const double t_fabric = since(t), c_fabric = cpu_now() - c0;
  const auto bom = fabric.bom();

  t = Clock::now();
  c0 = cpu_now();
  network::FlowNetwork net(fabric);
  const double t_platform = since(t), c_platform = cpu_now() - c0;

  network::Schedule s;
  s.activities.reserve(gpus);
  for (int g = 0; g < gpus; ++g) {
    network::Activity a;
    a.kind = network::Activity::Kind::Transfer;
    a.gpu = g;
    a.dst_gpu = (g + gpus / 2) % gpus;
    a.amount = bytes;
    a.flow_hash = topology::ecmp_hash(1, a.gpu, a.dst_gpu, 0);
    s.activities.push_back(a);
  }
  t = Clock::now();
  c0 = cpu_now();
  const auto r = net.run(s);
  const double t_run = since(t), c_run = cpu_now() - c0;
  const double t_total = since(t_all);

  const auto c = network::congestion(fabric, r);
  const auto sl = network::slowdowns(fabric, s, r);
  const double sl_max = *std::max_element(sl.begin(), sl.end());
  const double sl_mean = std::accumulate(sl.begin(), sl.end(), 0.0) / sl.size();

  // The same phase again in this process: routes cached, same result bit for bit.
  t = Clock::now();
  c0 = cpu_now();
  const auto r2 = net.run(s);
  const double t_inproc = since(t), c_inproc = cpu_now() - c0;
  double max_diff = 0;
  for (int g = 0; g < gpus; ++g) max_diff = std::max(max_diff, std::abs(r2.finish[g] - r.finish[g]));
  std::printf("network_31k: %d GPUs (GB200 NVL72, 4 GPUs/tray, radix 64, 400G, clos3 rail-optimized 1:1)\n", gpus);
  std::printf("  fabric: %d leaves, %d spines, %d cores, %d links (%d pods)\n", bom.leaves, bom.spines, bom.cores,
              fabric.link_count(), fabric.layout().pods);
  std::printf("  phase: %d flows of %.0f MiB, GPU g -> g + %d (cross-pod, same rail), hash ECMP\n", gpus,
              bytes / 1048576.0, gpus / 2);
  std::printf("                    wall (s)  CPU (s)\n");
  std::printf("  fabric build      %8.3f %8.3f\n", t_fabric, c_fabric);
  std::printf("  network object    %8.3f %8.3f\n", t_platform, c_platform);
  std::printf("  run               %8.3f %8.3f   simulated makespan %.6f s (ideal %.6f s)\n", t_run, c_run, r.makespan,
              network::isolated_time(fabric, 0, gpus / 2, bytes, s.activities[0].flow_hash));
  std::printf("  total             %8.3f %8.3f   (target <= 5 s)\n", t_total, c_fabric + c_platform + c_run);
  std::printf("  second run        %8.3f %8.3f   max |finish difference| %.3g s (%s)\n", t_inproc, c_inproc, max_diff,
              r2.finish == r.finish ? "bit-identical" : "DIFFERENT: a bug");
  std::printf("  peak RSS          %8.3f GiB (target <= 2 GiB)\n", peak_rss_gib());
  std::printf(
      "  congestion: max %.3f, p99 %.3f, link directions > 80 %%: %d; by tier max access %.3f, "
      "leaf-spine %.3f, spine-core %.3f\n",
      c.max_utilization, c.p99_utilization, c.links_above_80, c.max_by_tier[1], c.max_by_tier[2], c.max_by_tier[3]);
  std::printf("  slowdown (FCT / isolated FCT): mean %.3f, max %.3f (ECMP hash collisions)\n", sl_mean, sl_max);

  // Many small activities: a GPipe-like pipeline on 256 GPUs of the same fabric (32 stages x 8
  // replicas, 64 microbatches, forward + backward compute and activation / gradient sends
  // between neighbouring stages): ~250 activities per GPU, chained by dependencies.
  {
    const int stages = 32, replicas = 8, mb = 64;
    network::Schedule p;
    p.gpu_flops = {1e15};
    auto gpu = [&](int rep, int st) { return (rep * stages + st) * 72 % gpus; };  // one stage per rack
    for (int rep = 0; rep < replicas; ++rep) {
      std::vector<int> prev_on(stages, -1), arrive(stages, -1);
      for (int pass = 0; pass < 2; ++pass)
        for (int m = 0; m < mb; ++m)
          for (int k = 0; k < stages; ++k) {
            const int st = pass == 0 ? k : stages - 1 - k;
            network::Activity c;
            c.kind = network::Activity::Kind::Compute;
            c.gpu = gpu(rep, st);
            c.amount = pass == 0 ? 1e12 : 2e12;
            if (prev_on[st] >= 0) c.after.push_back(prev_on[st]);
            if (k > 0) c.after.push_back(arrive[st]);
            p.activities.push_back(c);
            prev_on[st] = static_cast<int>(p.activities.size()) - 1;
            if (k + 1 < stages) {
              const int nxt = pass == 0 ? st + 1 : st - 1;
              network::Activity t;
              t.kind = network::Activity::Kind::Transfer;
              t.gpu = c.gpu;
              t.dst_gpu = gpu(rep, nxt);
              t.amount = 16e6;
              t.flow_hash = topology::ecmp_hash(2, t.gpu, t.dst_gpu, m);
              t.after.push_back(prev_on[st]);
              p.activities.push_back(t);
              arrive[nxt] = static_cast<int>(p.activities.size()) - 1;
            }
          }
    }
    t = Clock::now();
    c0 = cpu_now();
    const auto rp = net.run(p);
    std::printf("  pipeline: %zu activities on %d GPUs: run %.3f s wall, %.3f s CPU, simulated makespan %.4f s\n",
                p.activities.size(), stages * replicas, since(t), cpu_now() - c0, rp.makespan);
  }
  return 0;
}
