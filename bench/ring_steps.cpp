// Benchmark (prints figures; not a timed test): a ring all-reduce simulated step by step (no
// collapsing): n GPUs on one switch (a single leaf of radix >= n, 400G NICs), 2 (n - 1) ring
// steps of S / n bytes per GPU, each step's transfer after the previous step's transfer into
// its source (Activity::repeat + after_previous). Every step is simulated or fast-forwarded
// exactly (flow_network.cpp); for small n the same ring unrolled into one activity per step is
// run too and compared. Target (issue 13): 1 GiB ring at 4,096 GPUs <= 10 s CPU.
// Usage: ring_steps [gpus=4096] [MiB=1024]

#include <cstdio>
#include <cstdlib>

#include "bench/process_usage.hpp"
#include "models/network/flow_network.hpp"

using namespace aidcsim;
using bench::cpu_now;
using bench::peak_rss_gib;

static network::Schedule ring(int n, double bytes, bool unrolled) {
  network::Schedule s;
  const int steps = 2 * (n - 1);
  const double per_step = bytes / n;
  if (!unrolled) {
    for (int i = 0; i < n; ++i) {
      network::Activity a;
      a.kind = network::Activity::Kind::Transfer;
      a.gpu = i;
      a.dst_gpu = (i + 1) % n;
      a.amount = per_step;
      a.flow_hash = static_cast<std::uint64_t>(i);
      a.repeat = steps;
      a.after_previous = {(i + n - 1) % n};
      s.activities.push_back(a);
    }
    return s;
  }
  for (int k = 0; k < steps; ++k)
    for (int i = 0; i < n; ++i) {
      network::Activity a;
      a.kind = network::Activity::Kind::Transfer;
      a.gpu = i;
      a.dst_gpu = (i + 1) % n;
      a.amount = per_step;
      a.flow_hash = static_cast<std::uint64_t>(i);
      if (k > 0) a.after = {(k - 1) * n + i, (k - 1) * n + (i + n - 1) % n};
      s.activities.push_back(a);
    }
  return s;
}

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 4096;
  const double bytes = (argc > 2 ? std::atof(argv[2]) : 1024.0) * 1024 * 1024;
  topology::FabricSpec spec;
  spec.gpus = n;
  spec.gpus_per_node = 1;
  spec.nvlink_domain = 1;
  spec.kind = topology::FabricKind::LeafSpine;
  spec.wiring = topology::Wiring::RackLocal;
  spec.switch_radix = 2 * n;
  spec.gpus_per_leaf = n;
  spec.link_rate = spec.nic_rate = 50e9;
  const topology::Fabric fabric = topology::build_fabric(spec);
  network::FlowNetwork net(fabric);
  std::printf("ring_steps: %d GPUs on one switch (400G), ring all-reduce of %.0f MiB, %d steps, every step\n", n,
              bytes / 1048576.0, 2 * (n - 1));
  double c0 = cpu_now();
  const auto r = net.run(ring(n, bytes, false));
  const double c_rep = cpu_now() - c0;
  const double busbw = 2.0 * (n - 1) / n * bytes / r.makespan;
  std::printf(
      "  repeated steps:  %8.3f s CPU, simulated %.6f s, busbw %.1f GB/s, %lld of %lld step transfers "
      "fast-forwarded\n",
      c_rep, r.makespan, busbw / 1e9, r.repetitions_fast_forwarded, 2LL * (n - 1) * n);
  if (n <= 256) {
    c0 = cpu_now();
    const auto u = net.run(ring(n, bytes, true));
    std::printf("  unrolled:        %8.3f s CPU, simulated %.6f s (relative difference %.2g)\n", cpu_now() - c0,
                u.makespan, (r.makespan - u.makespan) / u.makespan);
  }
  std::printf("  peak RSS         %8.3f GiB\n", peak_rss_gib());
}
