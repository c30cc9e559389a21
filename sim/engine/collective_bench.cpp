#include "sim/engine/collective_bench.hpp"

#include <fmt/format.h>

#include <numeric>

#include "models/compute/catalogue.hpp"
#include "models/network/flow_network.hpp"
#include "models/topology/fabric.hpp"

namespace aidcsim {

namespace {
const char* type_name(int bytes) {
  switch (bytes) {
    case 1: return "int8";
    case 2: return "bfloat16";
    case 8: return "double";
    default: return "float";
  }
}
}  // namespace

std::vector<BenchRow> bench_collective(const BenchOptions& o) {
  const compute::GpuSpec gpu = compute::find_gpu(o.gpu);
  topology::FabricSpec fs = o.fabric;
  fs.gpus = o.nodes * o.gpus_per_node;
  fs.gpus_per_node = o.gpus_per_node;
  fs.nvlink_bandwidth = gpu.nvlink_bandwidth;
  if (fs.nvlink_domain <= 0 || fs.nvlink_domain % o.gpus_per_node != 0) fs.nvlink_domain = o.gpus_per_node;
  const topology::Fabric fabric = topology::build_fabric(fs);
  network::FlowNetwork net(fabric);
  collectives::Protocol proto = o.protocol;
  const collectives::Layout layout = collectives::Layout::from(fabric, gpu);

  std::vector<double> sizes = o.sizes;
  if (sizes.empty())
    for (double s = 8; s <= 8.0 * (1ULL << 30); s *= 2) sizes.push_back(s);
  std::vector<int> gpus(fs.gpus);
  std::iota(gpus.begin(), gpus.end(), 0);

  std::vector<BenchRow> rows;
  for (double size : sizes) {
    collectives::Collective c;
    c.op = o.op;
    c.algorithm = o.algorithm;
    c.gpus = o.op == collectives::Op::SendRecv ? std::vector<int>{0, fs.gpus - 1} : gpus;
    c.bytes = size;
    c.collapse = o.collapse;
    network::Schedule sched;
    sched.gpu_flops = {gpu.bf16_flops};
    const auto e = collectives::emit(sched, c, layout, proto);
    const network::RunResult r = net.run(sched);
    BenchRow row;
    row.size = size;
    row.count = size / o.type_bytes;
    row.type = type_name(o.type_bytes);
    row.algorithm = collectives::algorithm_name(e.algorithm);
    row.time = r.makespan;
    const int n = static_cast<int>(c.gpus.size());
    row.algbw = collectives::algbw(size, r.makespan);
    row.busbw = collectives::busbw(o.op, n, size, r.makespan);
    rows.push_back(row);
  }
  return rows;
}

std::string format_bench(const BenchOptions& o, const std::vector<BenchRow>& rows) {
  std::string out = fmt::format("# aidcsim bench-collective: {} on {} x {} {} GPUs (NVLink domain {}), simulated\n",
                                collectives::op_name(o.op), o.nodes, o.gpus_per_node, o.gpu,
                                o.fabric.nvlink_domain > 0 ? o.fabric.nvlink_domain : o.gpus_per_node);
  out += "# busbw per nccl-tests doc/PERFORMANCE.md\n";
  out += fmt::format("#{:>13} {:>13} {:>9} {:>17} {:>12} {:>9} {:>9}\n", "size", "count", "type", "algorithm",
                     "time", "algbw", "busbw");
  out += fmt::format("#{:>13} {:>13} {:>9} {:>17} {:>12} {:>9} {:>9}\n", "(B)", "(elements)", "", "", "(us)",
                     "(GB/s)", "(GB/s)");
  for (const auto& r : rows)
    out += fmt::format(" {:>13.0f} {:>13.0f} {:>9} {:>17} {:>12.1f} {:>9.2f} {:>9.2f}\n", r.size, r.count, r.type,
                       r.algorithm, r.time * 1e6, r.algbw / 1e9, r.busbw / 1e9);
  return out;
}

}  // namespace aidcsim
