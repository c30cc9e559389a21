#include "sim/engine/collective_bench.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <optional>

#include "models/collectives/halving_doubling.hpp"
#include "models/collectives/ring_symmetry.hpp"
#include "models/common/errors.hpp"
#include "models/common/profile.hpp"
#include "models/common/units.hpp"
#include "models/network/flow_network.hpp"
#include "models/network/fluid_bound.hpp"
#include "models/topology/fabric.hpp"
#include "sim/scenario/gpu_catalogue.hpp"

namespace aidcsim {

using collectives::Op;

std::string nccl_tests_name(Op op) {
  switch (op) {
    case Op::AllReduce:
      return "all_reduce_perf";
    case Op::AllGather:
      return "all_gather_perf";
    case Op::ReduceScatter:
      return "reduce_scatter_perf";
    case Op::AllToAll:
      return "alltoall_perf";
    case Op::Broadcast:
      return "broadcast_perf";
    case Op::Reduce:
      return "reduce_perf";
    case Op::SendRecv:
      return "sendrecv_perf";
  }
  return "?";
}

namespace {

bool per_rank_count(Op op) { return op == Op::AllGather || op == Op::ReduceScatter || op == Op::AllToAll; }

/// nccl-tests' element count and printed size for a requested size (its *GetCollByteCount): per
/// rank counts rounded down to 16-byte multiples for all-gather / reduce-scatter / alltoall.
void nccl_tests_sizes(Op op, double requested, int elt, int n, long long* count, double* size) {
  const long long c = static_cast<long long>(requested / elt);
  if (per_rank_count(op)) {
    const long long align = std::max(1, 16 / elt);
    const long long base = (c / n) & ~(align - 1);
    *count = base;
    *size = double(base) * n * elt;
  } else {
    *count = c;
    *size = double(c) * elt;
  }
}

}  // namespace

namespace {

/// FlowNetwork::run(sched).makespan, exactly; a collapsed wave (no dependencies) runs only its
/// components that may end last (network::critical_parts): e.g. a tree on NVL72 domains, whose
/// ~32K cross-domain transfers hash onto shared uplinks at distinct max-min rates (one solver
/// event per few completions, each re-solving all of them) but end long before its NVLink chains.
double run_critical(network::FlowNetwork& net, const topology::Fabric& fabric, const network::Schedule& sched) {
  if (!network::single_wave(sched)) return net.run(sched).makespan;
  std::optional<profile::Scope> scope(std::in_place, "network: critical components (bound per component)");
  const auto parts = network::critical_parts(fabric, sched, net.spray_subflows());
  scope.reset();
  profile::add("network: independent components of the wave (count)", 0, 0, parts.components);
  if (parts.keep.size() == sched.activities.size()) return net.run(sched).makespan;
  profile::add("network: transfers proved to end before the last, not simulated (count)", 0, 0,
               static_cast<long long>(sched.activities.size() - parts.keep.size()));
  network::Schedule kept;
  kept.gpu_flops = sched.gpu_flops;
  kept.activities.reserve(parts.keep.size());
  for (int i : parts.keep) kept.activities.push_back(sched.activities[i]);
  return net.run(kept).makespan;
}

}  // namespace

namespace {

/// The fabric the bench runs on: the options' fabric with the GPU's scale-up figures and its share
/// of the PCIe attachment of the node's NICs (o.nics_per_node), the one place bench_collective and
/// format_bench's as-built lines take it from.
topology::FabricSpec bench_fabric_spec(const BenchOptions& o) {
  topology::FabricSpec fs = o.fabric;
  fit_fabric_to_gpu(fs, o.gpu, o.nics_per_node);
  return fs;
}

}  // namespace

std::vector<BenchRow> bench_collective(const BenchOptions& o) {
  const topology::Fabric fabric = topology::build_fabric(bench_fabric_spec(o));
  network::FlowNetwork net(fabric);
  const collectives::Layout layout = collectives::Layout::from(fabric, o.gpu, o.nics_per_node);
  const int total = fabric.gpu_count();
  const int n = o.ranks > 0 ? std::min(o.ranks, total) : total;
  std::vector<int> gpus(n);
  std::iota(gpus.begin(), gpus.end(), 0);
  if (o.op == Op::Broadcast || o.op == Op::Reduce) std::rotate(gpus.begin(), gpus.begin() + (o.root % n), gpus.end());
  const int elt = collectives::type_bytes(o.type);

  std::vector<BenchRow> rows;
  for (double requested : o.sizes) {
    BenchRow row;
    nccl_tests_sizes(o.op, requested, elt, n, &row.count, &row.size);
    collectives::Collective c;
    c.op = o.op;
    c.algorithm = o.algorithm;
    c.gpus = o.op == Op::SendRecv ? std::vector<int>{0, n - 1} : gpus;
    c.bytes = row.size;
    c.collapse = o.collapse;
    c.type = o.type;
    c.redop = o.redop;
    network::Schedule sched;
    sched.gpu_flops = {o.gpu.bf16_flops > 0 ? o.gpu.bf16_flops : 1e15};
    std::optional<profile::Scope> emit_scope(std::in_place, "collectives: emit (tuner + flows)");
    const auto sel = collectives::select(c, layout, o.protocol);
    // Halving / doubling above the threshold: its waves in compact form, not the schedule emit()
    // would build (at 32K GPUs 983,040 activities; the same fluid estimate bit for bit).
    std::optional<network::RegularWaves> compact;
    if (o.fluid_above >= 0 && sel.algorithm == collectives::Algorithm::HalvingDoubling) {
      compact = collectives::halving_doubling_waves(c, layout, sel);
      if (compact && static_cast<long long>(compact->dist.size() * compact->gpus.size()) <= o.fluid_above)
        compact.reset();
    }
    collectives::Emitted e;
    if (compact) {
      e.algorithm = sel.algorithm;
      e.proto = sel.proto;
      e.channels = sel.channels;
    } else {
      e = collectives::emit(sched, c, layout, o.protocol);
    }
    emit_scope.reset();
    // Only for the emissions the tests measure it on (PAT, all-to-all: one wave; halving /
    // doubling: waves); the other collapsed algorithms are simulated as before at every scale.
    const bool one_wave = e.algorithm == collectives::Algorithm::Pat || o.op == Op::AllToAll;
    const bool waves = e.algorithm == collectives::Algorithm::HalvingDoubling;
    const bool large = o.fluid_above >= 0 && static_cast<long long>(sched.activities.size()) > o.fluid_above;
    if (compact) {
      const auto b = network::fluid_bound_waves(fabric, *compact, net.spray_subflows());
      row.time = b.makespan;
      row.note = fmt::format(
          "fluid estimate of {} dependent waves of {} transfers: max-min rates updated locally at "
          "each start and completion (network::fluid_bound_waves), not SimGrid's run (within {:g} % "
          "of it where measured, 64-512 GPUs)",
          b.wave_finish.size(), compact->gpus.size(), network::kFluidBoundTolerance * 100);
    } else if (large && one_wave && network::single_wave(sched)) {
      row.time = network::fluid_bound(fabric, sched, net.spray_subflows()).makespan;
      row.note = (e.note.empty() ? "" : e.note + "; ") +
                 fmt::format(
                     "fluid estimate of {} concurrent transfers: busiest link's bytes / rate after the "
                     "flows' latency, not simulated (equal to the max-min run within {:g} % where measured, "
                     "64-256 GPUs)",
                     sched.activities.size(), network::kFluidBoundTolerance * 100);
    } else if (large && waves && !network::wave_levels(sched).empty()) {
      const auto b = network::fluid_bound_waves(fabric, sched, net.spray_subflows());
      row.time = b.makespan;
      row.note = (e.note.empty() ? "" : e.note + "; ") +
                 fmt::format(
                     "fluid estimate of {} dependent waves of {} transfers: max-min rates updated locally at "
                     "each start and completion (network::fluid_bound_waves), not SimGrid's run (within {:g} % "
                     "of it where measured, 64-512 GPUs)",
                     b.wave_finish.size(), sched.activities.size() / std::max<std::size_t>(1, b.wave_finish.size()),
                     network::kFluidBoundTolerance * 100);
    } else if (const auto one = !o.collapse && e.algorithm == collectives::Algorithm::Ring
                                    ? collectives::ring_one_channel(sched, e, static_cast<int>(c.gpus.size()), fabric)
                                    : std::nullopt) {
      row.time = net.run(*one).makespan;
      row.note = (e.note.empty() ? "" : e.note + "; ") +
                 fmt::format(
                     "every step simulated on channel 0 of {}: the channels are images of each other on "
                     "this fabric, link by link (exact)",
                     e.rings);
    } else {
      row.time = run_critical(net, fabric, sched);
      row.note = e.note;
    }
    row.algorithm = collectives::algorithm_name(e.algorithm);
    row.proto = collectives::proto_name(e.proto);
    row.channels = e.channels;
    row.nccl_time = sel.nccl_time;
    row.model_time = sel.time();
    const int ranks = static_cast<int>(c.gpus.size());
    row.algbw = collectives::algbw(row.size, row.time);
    row.busbw = collectives::busbw(o.op, o.op == Op::SendRecv ? 2 : ranks, row.size, row.time);
    rows.push_back(row);
  }
  return rows;
}

namespace {

/// nccl-tests' getFloatStr (util.cu): the value in `width` characters, 2, 1 or 0 decimals, then
/// exponent notation.
std::string float_str(double v, int width) {
  for (int decimals : {2, 1, 0}) {
    std::string s = fmt::format("{:>{}.{}f}", v, width, decimals);
    if (static_cast<int>(s.size()) <= width) return s;
  }
  return width >= 7 ? fmt::format("{:>{}.1e}", v, width) : fmt::format("{:>{}.0e}", v, width);
}

}  // namespace

std::string format_bench(const BenchOptions& o, const std::vector<BenchRow>& rows) {
  const auto& f = o.fabric;
  const int total = f.gpus;
  const int n = o.ranks > 0 ? std::min(o.ranks, total) : total;
  const bool reduction = o.op == Op::AllReduce || o.op == Op::ReduceScatter || o.op == Op::Reduce;
  const bool rooted = o.op == Op::Broadcast || o.op == Op::Reduce;
  std::string out;
  out += fmt::format("# aidcsim bench-collective: {} simulated on the fabric (nccl-tests output format)\n",
                     nccl_tests_name(o.op));
  const double lo = rows.empty() ? 0 : rows.front().size, hi = rows.empty() ? 0 : rows.back().size;
  out += fmt::format(
      "# nThread 1 nGpus {} minBytes {:.0f} maxBytes {:.0f} step: {} warmup iters: {} iters: {} "
      "agg iters: 1 validation: 0 graph: 0\n",
      o.op == Op::SendRecv ? 2 : n, lo, hi,
      rows.size() > 1 ? fmt::format("{:g}(factor)", rows[1].size / std::max(1.0, rows[0].size)) : "1(factor)",
      o.warmup_iters, o.iters);
  out += "#\n# Using devices (simulated)\n";
  const int domain = f.nvlink_domain;
  out +=
      fmt::format("#  Ranks 0-{}: {} x {}, {} GPUs per node, NVLink domain {} (NVLink{} {:.0f} GB/s per direction{})\n",
                  n - 1, n, o.gpu.name, f.gpus_per_node, domain, o.gpu.nvlink_generation, o.gpu.nvlink_bandwidth / 1e9,
                  o.gpu.nvls ? ", NVLS" : "");
  const int nics = o.nics_per_node > 0 ? o.nics_per_node : f.gpus_per_node;
  out += fmt::format("#  Fabric: {} {}, {} NICs per node x {:.0f} Gb/s, leaf oversubscription {:g}:1{}{}\n",
                     f.kind == topology::FabricKind::LeafSpine ? "leaf-spine" : "3-tier Clos",
                     f.wiring == topology::Wiring::RailOptimized ? "rail-optimized" : "rack-local", nics,
                     f.nic_rate * f.gpus_per_node / nics * units::kBitsPerByte / 1e9, f.oversub_leaf,
                     f.planes > 1 ? fmt::format(", {} planes", f.planes) : "",
                     f.sharp ? ", SHARP in-network reduction" : "");
  {  // built otherwise than asked (a ratio whole ports cannot give, an 800G NIC on 400G ports): said
    const topology::FabricSpec fs = bench_fabric_spec(o);
    const topology::Fabric built = topology::build_fabric(fs);
    for (const auto& w : built.warnings()) out += "#  Fabric as built: " + w + "\n";
    // A GPU's NIC traffic is bounded by its share of the NICs' PCIe attachment (Fabric::sharing_rate):
    // 4 NICs for 8 A100 (PCIe Gen4) give each GPU 96 Gb/s, below its 100 Gb/s share of a 200G NIC.
    if (fs.nic_pcie_rate > 0 && fs.nic_pcie_rate < fs.nic_rate * (1 - 1e-9))
      out += fmt::format(
          "#  NIC path: each GPU's traffic to its NIC at most {:g} Gb/s, its share of the PCIe "
          "attachment of the node's {} NICs (NCCL's rate for pcie_generation {}), below its {:g} Gb/s share "
          "of the NIC rate\n",
          fs.nic_pcie_rate * units::kBitsPerByte / 1e9, nics, o.gpu.pcie_generation,
          fs.nic_rate * units::kBitsPerByte / 1e9);
  }
  out += fmt::format("#  Collectives: {}emitted as flows ({}), busbw per nccl-tests doc/PERFORMANCE.md\n",
                     o.algorithm == collectives::Algorithm::Auto
                         ? fmt::format("NCCL's tuner (NCCL {} cost model), ", collectives::nccl::kModelVersion)
                         : "algorithm " + std::string(collectives::algorithm_name(o.algorithm)) + ", ",
                     o.collapse ? "ring/tree steps collapsed" : "every step simulated");
  out += "#\n# NCCL's choice per size (algorithm / protocol / channels; NCCL's predicted time, the simulated time)\n";
  for (const auto& r : rows) {
    out += fmt::format("#  {:>12.0f}  {:>14} / {:<6} / {:>2} ch  NCCL {:>10.1f} us  sim {:>10.1f} us{}\n", r.size,
                       r.algorithm, r.proto, r.channels, r.nccl_time * 1e6, r.time * 1e6,
                       r.note.empty() ? "" : "  (" + r.note + ")");
  }
  out += "#\n";
  out += fmt::format(
      "# {:>10}  {:>12}  {:>8}  {:>6}  {:>6}           out-of-place                       in-place          \n", "", "",
      "", "", "");
  out += fmt::format("# {:>10}  {:>12}  {:>8}  {:>6}  {:>6}  {:>7}  {:>6}  {:>6}  {:>6}  {:>7}  {:>6}  {:>6}  {:>6} \n",
                     "size", "count", "type", "redop", "root", "time", "algbw", "busbw", "#wrong", "time", "algbw",
                     "busbw", "#wrong");
  out += fmt::format("# {:>10}  {:>12}  {:>8}  {:>6}  {:>6}  {:>7}  {:>6}  {:>6}  {:>6}  {:>7}  {:>6}  {:>6}  {:>6} \n",
                     "(B)", "(elements)", "", "", "", "(us)", "(GB/s)", "(GB/s)", "", "(us)", "(GB/s)", "(GB/s)", "");
  double bw_sum = 0;
  for (const auto& r : rows) {
    out += fmt::format("{:>12.0f}  {:>12}  {:>8}  {:>6}  {:>6}", r.size, r.count, collectives::type_name(o.type),
                       reduction ? collectives::redop_name(o.redop) : "none", rooted ? o.root : -1);
    for (int place = 0; place < 2; ++place)
      out += fmt::format("  {:>7}  {:>6}  {:>6}    N/A", float_str(r.time * 1e6, 7), float_str(r.algbw / 1e9, 6),
                         float_str(r.busbw / 1e9, 6));
    out += "\n";
    bw_sum += 2 * r.busbw / 1e9;  // nccl-tests averages over both columns
  }
  out += fmt::format("# {:<20} : {} {}\n", "Out of bounds values", 0, "OK");
  out += fmt::format("# {:<20} : {:g} \n", "Avg bus bandwidth", rows.empty() ? 0.0 : bw_sum / (2.0 * rows.size()));
  out += "#\n";
  out += fmt::format("# Collective test concluded: {}\n", nccl_tests_name(o.op));
  return out;
}

}  // namespace aidcsim
