// Benchmark: build a ~31,000-GPU 3-tier Clos (430 GB200 NVL72 racks = 30,960 GPUs, one 400G NIC
// per GPU, 64-port switches, rail-optimized, 1:1) and route one flow per GPU to its ring
// neighbour in the next rack (same local index, 72 GPUs on). Prints wall times, the bill of
// materials and peak RSS (getrusage ru_maxrss). Figures only, no asserts (issue #3 target for
// build + one full-scale phase: <= 5 s and <= 2 GiB on one core; this is the topology share).
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <ctime>
#include <map>

#include "models/topology/fabric.hpp"

using namespace aidcsim::topology;
using Clock = std::chrono::steady_clock;

static double since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

/// Process CPU time, s: on a shared machine wall time includes waiting for a core.
static double cpu() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}

int main() {
  FabricSpec s;  // defaults: GB200 trays of 4, NVL72 domains, clos3, radix 64, 400G, 1:1
  s.gpus = 430 * 72;
  auto t0 = Clock::now();
  double c0 = cpu();
  const Fabric f = build_fabric(s);
  const double t_build = since(t0), c_build = cpu() - c0;

  std::map<std::size_t, int> lengths;
  t0 = Clock::now();
  c0 = cpu();
  for (int g = 0; g < s.gpus; ++g) {
    const int dst = (g + 72) % s.gpus;
    lengths[f.route(g, dst, ecmp_hash(42, g, dst, 0)).size()]++;
  }
  const double t_cold = since(t0), c_cold = cpu() - c0;  // includes the lazy per-leaf BFS
  t0 = Clock::now();
  c0 = cpu();
  std::size_t hops = 0;
  for (int r = 0; r < 3; ++r)
    for (int g = 0; g < s.gpus; ++g) {
      const int dst = (g + 72) % s.gpus;
      hops += f.route(g, dst, ecmp_hash(42, g, dst, 1 + r)).size();
    }
  const double t_warm = since(t0), c_warm = cpu() - c0;
  t0 = Clock::now();
  c0 = cpu();
  const BillOfMaterials b = f.bom();
  const double t_bom = since(t0), c_bom = cpu() - c0;

  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  std::printf("fabric_build: %d GPUs (%d NVL72 racks), %d nodes, %d links\n", f.gpu_count(), s.gpus / 72,
              f.node_count(), f.link_count());
  std::printf("                                   wall s    CPU s\n");
  std::printf("  build_fabric                  %8.3f %8.3f\n", t_build, c_build);
  std::printf("  %6d routes (cold, incl. BFS) %8.3f %8.3f\n", s.gpus, t_cold, c_cold);
  std::printf("  %6d routes (warm)            %8.3f %8.3f  (%.2f us CPU/route, %zu hops)\n", 3 * s.gpus, t_warm, c_warm,
              1e6 * c_warm / (3.0 * s.gpus), hops);
  std::printf("  bom()                         %8.3f %8.3f\n", t_bom, c_bom);
  std::printf("  route lengths (links):");
  for (auto [len, n] : lengths) std::printf(" %zu:%d", len, n);
  std::printf("\n  peak RSS                     %8.1f MiB\n", ru.ru_maxrss / 1024.0);
  // The structure only: media and optical modules need a priced BOM (price_fabric, bom_parts.yaml).
  std::printf("  switches %d (leaves %d, spines %d, cores %d), scale-out cables %d, NVLink links %d\n", b.switches,
              b.leaves, b.spines, b.cores, b.scaleout_cables, b.nvlink_links);
  return 0;
}
