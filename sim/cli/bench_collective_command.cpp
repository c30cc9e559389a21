// `aidcsim bench-collective`: an nccl-tests-style sweep of one collective over message sizes on
// the simulated fabric (sim/engine/collective_bench.hpp), for comparing against measured
// nccl-tests output: --gpu H100 --nodes 2 --gpus-per-node 8 --op all_reduce -b 8 -e 8G.
#include <iostream>
#include <cmath>
#include <memory>
#include <regex>

#include "models/common/errors.hpp"
#include "sim/cli/commands.hpp"
#include "sim/engine/collective_bench.hpp"
#include "sim/scenario/gpu_catalogue.hpp"
#include "sim/scenario/scenario.hpp"
#include "sim/scenario/units.hpp"

namespace aidcsim::cli {
namespace {

struct BenchArgs {
  std::string gpu = "H100";
  std::string gpu_file;
  int nodes = 1;
  int gpus_per_node = 8;
  int nvlink_domain = 0;
  std::string op = "all_reduce";
  std::string algo = "auto";
  std::string min_bytes = "8";
  std::string max_bytes = "8G";
  double factor = 2;
  bool collapse = false;
};

// "all_reduce", "allreduce", "AllReduce", "all-reduce" all name Op::AllReduce.
std::string squash(std::string s) {
  std::string out;
  for (char c : s)
    if (c != '_' && c != '-' && c != ' ') out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

collectives::Op parse_op(const std::string& name) {
  using collectives::Op;
  std::string known;
  for (Op op : {Op::AllReduce, Op::AllGather, Op::ReduceScatter, Op::AllToAll, Op::Broadcast, Op::Reduce, Op::SendRecv}) {
    if (squash(collectives::op_name(op)) == squash(name)) return op;
    known += std::string(known.empty() ? "" : ", ") + collectives::op_name(op);
  }
  throw CLI::ValidationError("--op", "unknown collective '" + name + "' (one of: " + known + ")");
}

// A size as nccl-tests' -b/-e take it ("8", "128K", "8G": binary multiples, as nccl-tests parses
// them) or with a unit ("1 GiB", "64 MB").
double parse_size(const std::string& opt, const std::string& text) {
  std::smatch m;
  static const std::regex nccl(R"(^\s*([0-9]+(?:\.[0-9]+)?)\s*([KkMmGgTt]?)\s*$)");
  if (std::regex_match(text, m, nccl)) {
    const std::string suffix = m[2].str();
    const int shift = suffix.empty() ? 0 : 10 * (1 + static_cast<int>(std::string("KMGT").find(static_cast<char>(std::toupper(suffix[0])))));
    return std::stod(m[1].str()) * std::ldexp(1.0, shift);
  }
  try {
    return parse_quantity(Quantity::DataSize, text, opt);
  } catch (const InvalidParameter&) {
    throw CLI::ValidationError(opt, "'" + text + "' is not a size (e.g. 8, 128M, 8G, '1 GiB', '64 MB')");
  }
}

int bench(const BenchArgs& a) {
  BenchOptions o;
  try {
    o.gpu = a.gpu;
    o.gpu_file = a.gpu_file;
    o.nodes = a.nodes;
    o.gpus_per_node = a.gpus_per_node;
    o.fabric.nvlink_domain = a.nvlink_domain > 0 ? a.nvlink_domain : a.gpus_per_node;
    o.op = parse_op(a.op);
    o.algorithm = collectives::algorithm_from(squash(a.algo) == "halvingdoubling" ? "halving_doubling" : squash(a.algo));
    o.collapse = a.collapse;
    const double lo = parse_size("--min-bytes", a.min_bytes), hi = parse_size("--max-bytes", a.max_bytes);
    if (lo <= 0 || hi < lo) throw CLI::ValidationError("--min-bytes/--max-bytes", "need 0 < min <= max");
    for (double s = lo; s <= hi * (1 + 1e-12); s *= a.factor) o.sizes.push_back(s);
  } catch (const CLI::ValidationError& e) {
    std::cerr << "aidcsim bench-collective: " << e.what() << "\n";
    return kExitUsage;
  } catch (const Error& e) {  // unknown algorithm name
    std::cerr << "aidcsim bench-collective: " << e.what() << "\n";
    return kExitUsage;
  }
  return guarded([&] {
    try {
      const auto rows = bench_collective(o);
      std::cout << format_bench(o, rows);
    } catch (const ScenarioError&) {  // a bad --gpu-file: file:line, exit code of a bad input file
      throw;
    } catch (const InvalidParameter& e) {  // e.g. an unknown GPU: an option, not a scenario key
      std::cerr << "aidcsim bench-collective: " << e.what() << "\n";
      return kExitUsage;
    }
    return kExitOk;
  });
}

}  // namespace

void add_bench_collective_command(CLI::App& app, Action& action) {
  auto a = std::make_shared<BenchArgs>();
  CLI::App* sub = app.add_subcommand("bench-collective",
                                     "Simulate an nccl-tests-style sweep of one collective over message sizes");
  sub->add_option("-g,--gpu", a->gpu, "GPU model: " + builtin_gpus().names_text() + " (docs/gpus.md), or one of --gpu-file")
      ->capture_default_str();
  sub->add_option("--gpu-file", a->gpu_file,
                  "GPU catalogue file (a `gpus:` list as in docs/gpus.md) adding or overriding GPU models");
  sub->add_option("-N,--nodes", a->nodes, "Number of nodes")->capture_default_str()->check(CLI::PositiveNumber);
  sub->add_option("-n,--gpus-per-node", a->gpus_per_node, "GPUs per node")->capture_default_str()->check(CLI::PositiveNumber);
  sub->add_option("--nvlink-domain", a->nvlink_domain, "GPUs per NVLink domain (default: one node; 72 for NVL72)")
      ->check(CLI::NonNegativeNumber);
  sub->add_option("--op", a->op,
                  "Collective: all_reduce, all_gather, reduce_scatter, all_to_all, broadcast, reduce, sendrecv")->capture_default_str();
  sub->add_option("--algo", a->algo, "Algorithm: auto, ring, tree, hierarchical, nvls, sharp, halving_doubling, direct")->capture_default_str();
  sub->add_option("-b,--min-bytes", a->min_bytes, "Smallest message size (nccl-tests -b)")->capture_default_str();
  sub->add_option("-e,--max-bytes", a->max_bytes, "Largest message size (nccl-tests -e)")->capture_default_str();
  sub->add_option("-f,--step-factor", a->factor, "Size multiplier between rows (nccl-tests -f)")->capture_default_str()
      ->check(CLI::Range(1.0001, 1e6));
  sub->add_flag("--collapse", a->collapse, "Collapse ring steps into one flow per neighbour pair (faster at scale)");
  sub->callback([a, &action] { action = [a] { return bench(*a); }; });
}

}  // namespace aidcsim::cli
