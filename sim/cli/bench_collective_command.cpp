// `aidcsim bench-collective`: nccl-tests on the simulated fabric (sim/engine/collective_bench.hpp),
// with nccl-tests' flags and meanings (-b -e -i -f -g -t -n -w -d -o -r -c) and its output, plus the
// cluster under test: a scenario file (--scenario, its fabric and GPUs) or options for the GPU,
// nodes, NICs per node and rate, topology, oversubscription, rails and SHARP.
//   aidcsim bench-collective --gpu H200 -b 1M -e 4G -f 4
//   aidcsim bench-collective --collective all_gather --gpu A100 --nodes 2 --nics-per-node 4 --nic-rate "200 Gbps"
//   aidcsim bench-collective --scenario site.yaml --gpus 1024 -b 1G -e 1G
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <regex>
#include <stdexcept>

#include "models/common/errors.hpp"
#include "models/common/profile.hpp"
#include "models/common/suggest.hpp"
#include "models/compute/catalogue.hpp"
#include "models/topology/topology_schema.hpp"
#include "sim/cli/commands.hpp"
#include "sim/engine/collective_bench.hpp"
#include "sim/scenario/gpu_catalogue.hpp"
#include "sim/scenario/unit_parser.hpp"

namespace aidcsim::cli {
namespace {

struct BenchArgs {
  std::string scenario;
  int ranks = 0;
  std::string gpu = "H100";
  std::string gpu_file;
  int nodes = 1;
  int ngpus = 8;  // nccl-tests -g: GPUs per process (here: per node)
  int nthreads = 1;
  int nvlink_domain = 0;
  int nics_per_node = 0;
  std::string nic_rate = "400 Gbps";  // per NIC
  std::string link_rate;
  std::string topology = "clos3";
  std::string wiring = "rail_optimized";
  std::string oversub = "1:1";
  std::string spine_oversub = "1:1";
  int radix = 64;
  int planes = 1;
  bool sharp = false;
  std::string collective = "all_reduce";
  std::string algo = "auto";
  std::string proto = "auto";
  int max_channels = 0;
  int max_ctas = 0;
  int nvls_channels = 0;
  std::string min_bytes = "8";
  std::string max_bytes = "8G";
  std::string step_bytes;
  std::string factor = "2";
  std::string datatype = "float";
  std::string redop = "sum";
  int root = 0;
  int iters = 20;
  int warmup = 5;
  int check = 1;
  bool steps = false;
  bool profile = false;
};

std::string squash(std::string s) {
  std::string out;
  for (char c : s)
    if (c != '_' && c != '-' && c != ' ') out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

collectives::Op parse_collective(const std::string& name) {
  using collectives::Op;
  std::string known;
  std::string n = squash(name);
  if (n.size() > 4 && n.substr(n.size() - 4) == "perf") n = n.substr(0, n.size() - 4);  // all_reduce_perf
  for (Op op :
       {Op::AllReduce, Op::AllGather, Op::ReduceScatter, Op::AllToAll, Op::Broadcast, Op::Reduce, Op::SendRecv}) {
    if (squash(collectives::op_name(op)) == n) return op;
    known += std::string(known.empty() ? "" : ", ") + collectives::op_name(op);
  }
  throw CLI::ValidationError("--collective", "unknown collective '" + name + "' (one of: " + known + ")");
}

// A size as nccl-tests' -b/-e/-i read it: parsesize in src/common.cu of NVIDIA/nccl-tests (commit
// a0b82b2260cf5152b9f8c061bbf7eaf0ba096432), sscanf(value, "%lf %1s"): a number (strtod's syntax:
// 8, 1.5, 1e3, 0x10), then optionally one letter K, M or G in either case, binary (2^10, 2^20,
// 2^30); what follows that letter is not read, so 8G, 8GB, 8GiB and "8 G" are all 8 GiB, and 1.5M
// is 1,572,864 B. Any other letter (B, T ...), no number or a negative size is refused, as there.
// The number is read with strtod, so a dangling exponent is refused as the C standard's %lf
// refuses it ("16E"; glibc's sscanf reads 16 and drops the E). nccl-tests keeps (size_t)size: a
// fraction of a byte is dropped (100.7 is 100 B), here too. Refused beyond nccl-tests, where its
// cast is undefined or its sweep never ends: NaN, a size of 0 B and one of 2^64 B or more.
double parse_size(const std::string& opt, const std::string& text) {
  const char* begin = text.c_str();
  char* end = nullptr;
  const double size = std::strtod(begin, &end);
  while (end != begin && std::isspace(static_cast<unsigned char>(*end))) ++end;
  const char letter = static_cast<char>(std::toupper(static_cast<unsigned char>(*end)));
  const double units = end == begin     ? 0
                       : letter == '\0' ? 1
                       : letter == 'K'  ? 0x1p10
                       : letter == 'M'  ? 0x1p20
                       : letter == 'G'  ? 0x1p30
                                        : 0;
  if (units == 0)
    throw CLI::ValidationError(opt, "'" + text +
                                        "' is not a size: a number with an optional K, M or G, binary as in "
                                        "nccl-tests (8, 128K, 1.5M, 8G; 8GB is 8 GiB)");
  const double v = size * units < 0 ? size * units : std::floor(size * units);  // -0.5 shown as -0.5 B
  // The number is a double (nccl-tests' %lf): the largest below 2^64 is 2^64 - 2048, and
  // "18446744073709551615" (2^64 - 1) reads as 2^64. The range says so, rather than "to 2^64 - 1 B",
  // which refused its own upper end.
  if (!(v >= 1) || !(v < 0x1p64))
    throw CLI::ValidationError(opt, "'" + text + "' is " + (std::isnan(v) ? "not a number" : format_number(v) + " B") +
                                        ": expected a size from 1 B to below 2^64 B (at most 18446744073709549568 B, "
                                        "the largest double below 2^64, as nccl-tests reads it; a fraction of a byte "
                                        "is dropped, as there)");
  return v;
}

// `used`: the unit the rate was written in, for a range error in that unit.
double parse_rate(const std::string& opt, const std::string& text, DisplayUnit* used = nullptr) {
  try {
    const double v = parse_quantity(Quantity::DataRate, text, opt, used);
    if (!(v > 0)) throw CLI::ValidationError(opt, "'" + text + "' must be a rate above 0");
    return v;
  } catch (const InvalidParameter&) {
    throw CLI::ValidationError(opt, "'" + text + "' is not a data rate (e.g. '400 Gbps', '50 GB/s')");
  }
}

double parse_ratio(const std::string& opt, const std::string& text) {
  try {
    const double v = parse_quantity(Quantity::Ratio, text, opt);
    if (!(v >= 1) || !std::isfinite(v)) throw CLI::ValidationError(opt, "'" + text + "' must be at least 1:1");
    return v;
  } catch (const InvalidParameter&) {
    throw CLI::ValidationError(opt, "'" + text + "' is not a ratio (e.g. '1:1', '2:1', 3)");
  }
}

// nccl-tests -f: an integer multiplication factor >= 2 (it parses with strtol).
int parse_factor(const std::string& text) {
  static const std::regex integer(R"(^\s*[0-9]+\s*$)");
  if (!std::regex_match(text, integer))
    throw CLI::ValidationError("-f", "'" + text + "' is not an integer factor (nccl-tests -f: 2, 4, ...)");
  const long f = std::stol(text);
  if (f < 2 || f > 1024)
    throw CLI::ValidationError("-f", "'" + text + "' must be an integer from 2 to 1024 (use -i for linear steps)");
  return static_cast<int>(f);
}

// The options describe the cluster a scenario's keys do, so each takes its key's range from the
// scenario schema (models/topology/topology_schema.cpp): beyond it a fabric would not be built in bounded
// time (--radix 1000000 ran for minutes) or a count would overflow (-N 1000000000).
// `written`: the unit the option was written in (the range is given in it), if any.
void check_in_schema_range(const std::string& opt, const std::string& key, double si, const std::string& given,
                           const DisplayUnit& written = {}) {
  static const Schema fields = topology::schema();
  for (const Field& f : fields) {
    if (f.key != key) continue;
    if ((f.min && (si < *f.min || (f.min_exclusive && si == *f.min))) || (f.max && si > *f.max) || !std::isfinite(si)) {
      const bool in_written = !written.symbol.empty();
      const DisplayUnit unit = in_written ? written : display_unit(f.quantity, f.default_value);
      const std::string kind = quantity_name(f.quantity);
      throw CLI::ValidationError(opt, given + ": expected " + (kind.front() == 'i' ? "an " : "a ") + kind + " " +
                                          range_phrase(f, unit, !in_written) + " (the range of " + key + ")");
    }
    return;
  }
  throw std::logic_error("bench-collective: no schema key " + key);
}

// Long by nature: one validation and assignment per command-line option, in --help order.
BenchOptions options_from(const BenchArgs& a) {
  BenchOptions o;
  if (!a.scenario.empty()) {
    const Scenario s = load_scenario_or_default(a.scenario);
    o.fabric = s.fabric;
    o.gpu = s.gpu;
    if (a.ranks > s.fabric.gpus)
      throw CLI::ValidationError("--gpus", std::to_string(a.ranks) + " GPUs asked, the scenario's cluster has " +
                                               std::to_string(s.fabric.gpus));
    o.ranks = a.ranks;
  } else {
    // A bad --gpu-file is a bad input file (ScenarioError, file:line), not a usage error.
    const compute::Catalogue models =
        a.gpu_file.empty() ? builtin_gpus() : load_gpu_catalogue_file(a.gpu_file, builtin_gpus());
    if (!models.contains(a.gpu))
      throw CLI::ValidationError("--gpu", "unknown GPU model '" + a.gpu + "' (one of: " + models.names_text() + ")");
    o.gpu = models.find(a.gpu);
    const double gpn_wide = double(a.ngpus) * a.nthreads, gpus_wide = gpn_wide * a.nodes;  // no int overflow
    check_in_schema_range("-g/-t", "cluster.gpus_per_node", gpn_wide,
                          std::to_string(a.ngpus) + " x " + std::to_string(a.nthreads) + " GPUs per node");
    check_in_schema_range("-N", "cluster.gpus", gpus_wide, format_number(gpus_wide) + " GPUs");
    const int gpn = a.ngpus * a.nthreads;
    auto& f = o.fabric;
    f.gpus = a.nodes * gpn;
    f.gpus_per_node = gpn;
    if (a.nvlink_domain > 0)
      check_in_schema_range("--nvlink-domain", "cluster.nvlink_domain", a.nvlink_domain,
                            std::to_string(a.nvlink_domain) + " GPUs");
    if (a.ranks > f.gpus)
      throw CLI::ValidationError("--gpus", std::to_string(a.ranks) + " GPUs asked, the cluster has " +
                                               std::to_string(f.gpus) + " (-N x -g x -t)");
    f.nvlink_domain = a.nvlink_domain > 0 ? a.nvlink_domain : gpn;
    // The fabric takes whole nodes per domain (topology::FabricSpec: nvlink_domain a multiple of
    // gpus_per_node); a domain dividing a node is not built.
    // MI300X has no NVLink but a scale-up fabric (Infinity Fabric): only a GPU without any is refused.
    if (f.nvlink_domain > 1 && !(o.gpu.nvlink_bandwidth > 0))
      throw CLI::ValidationError(a.nvlink_domain > 1 ? "--nvlink-domain" : "-g",
                                 o.gpu.name +
                                     " has no scale-up fabric (NVLink or Infinity Fabric): run one GPU per node (-g 1" +
                                     (a.nvlink_domain > 1 ? ", --nvlink-domain 1" : "") + ")");
    // As cluster.nvlink_domain in a scenario (sim/scenario/loader.cpp): no platform of the GPU builds a
    // larger domain (--gpu H100 --nvlink-domain 72 ran as one 72-GPU NVLink domain). Without
    // --nvlink-domain the domain is the node, so -g/-t are what asked for it.
    const std::string domain_excess = nvlink_domain_excess(o.gpu, f.nvlink_domain);
    if (!domain_excess.empty())
      throw CLI::ValidationError(a.nvlink_domain > 0 ? "--nvlink-domain" : "-g/-t",
                                 std::to_string(f.nvlink_domain) +
                                     (a.nvlink_domain > 0 ? " GPUs" : " GPUs per node (one NVLink domain)") +
                                     ": expected " + domain_excess);
    if (f.nvlink_domain % gpn != 0)
      throw CLI::ValidationError("--nvlink-domain", std::to_string(f.nvlink_domain) +
                                                        " GPUs: an NVLink domain must be a whole number of nodes (" +
                                                        std::to_string(gpn) + " GPUs each)");
    const std::string topo = squash(a.topology);
    if (topo != "leafspine" && topo != "clos3") {
      const std::string hint = choice_hint(a.topology, {"leaf_spine", "clos3"});
      throw CLI::ValidationError(
          "--topology", "'" + a.topology + "' (one of: leaf_spine, clos3)" + (hint.empty() ? "" : "; " + hint));
    }
    f.kind = topo == "leafspine" ? topology::FabricKind::LeafSpine : topology::FabricKind::Clos3;
    const std::string w = squash(a.wiring);
    if (w != "railoptimized" && w != "racklocal")
      throw CLI::ValidationError("--wiring", "'" + a.wiring + "' (one of: rail_optimized, rack_local)");
    f.wiring = w == "racklocal" ? topology::Wiring::RackLocal : topology::Wiring::RailOptimized;
    DisplayUnit nic_unit, link_unit;
    const double nic = parse_rate("--nic-rate", a.nic_rate, &nic_unit);
    check_in_schema_range("--nic-rate", "fabric.nic_rate", nic, "'" + a.nic_rate + "'", nic_unit);
    if (a.nics_per_node < 0 || a.nics_per_node > gpn)
      throw CLI::ValidationError("--nics-per-node", std::to_string(a.nics_per_node) +
                                                        ": from 1 to the GPUs per node (" + std::to_string(gpn) + ")");
    const int nics = a.nics_per_node > 0 ? a.nics_per_node : gpn;
    if (gpn % nics != 0)
      throw CLI::ValidationError("--nics-per-node", std::to_string(nics) + " NICs cannot be shared evenly by " +
                                                        std::to_string(gpn) + " GPUs per node");
    f.nic_rate = nic * nics / gpn;  // each GPU's share of its node's NICs
    f.link_rate = a.link_rate.empty() ? std::max(nic, 50e9) : parse_rate("--link-rate", a.link_rate, &link_unit);
    if (!a.link_rate.empty())
      check_in_schema_range("--link-rate", "fabric.link_rate", f.link_rate, "'" + a.link_rate + "'", link_unit);
    f.oversub_leaf = parse_ratio("--oversubscription", a.oversub);
    check_in_schema_range("--oversubscription", "fabric.oversubscription.leaf", f.oversub_leaf, "'" + a.oversub + "'");
    f.oversub_spine = parse_ratio("--spine-oversubscription", a.spine_oversub);
    check_in_schema_range("--spine-oversubscription", "fabric.oversubscription.spine", f.oversub_spine,
                          "'" + a.spine_oversub + "'");
    if (a.radix < 4)
      throw CLI::ValidationError("--radix", std::to_string(a.radix) + ": a switch needs at least 4 ports");
    check_in_schema_range("--radix", "fabric.switch_radix", a.radix, std::to_string(a.radix) + " ports");
    f.switch_radix = a.radix;
    if (a.planes < 1 || a.planes > 16)
      throw CLI::ValidationError("--planes", std::to_string(a.planes) + ": from 1 to 16");
    f.planes = a.planes;
    f.sharp = a.sharp;
    o.nics_per_node = a.nics_per_node > 0 && a.nics_per_node < gpn ? a.nics_per_node : 0;
    o.ranks = a.ranks;
  }
  o.op = parse_collective(a.collective);
  try {
    o.algorithm = collectives::algorithm_from(a.algo);
  } catch (const Error& e) {
    throw CLI::ValidationError("--algo", e.what());
  }
  if (!collectives::implements(o.algorithm, o.op))
    throw CLI::ValidationError("--algo", std::string(collectives::algorithm_name(o.algorithm)) +
                                             " does not implement " + collectives::op_name(o.op));
  try {
    o.protocol.proto = collectives::proto_from(a.proto);
  } catch (const Error& e) {
    throw CLI::ValidationError("--proto", e.what());
  }
  try {
    o.type = collectives::type_from(a.datatype);
  } catch (const Error& e) {
    throw CLI::ValidationError("-d", e.what());
  }
  try {
    o.redop = collectives::redop_from(a.redop);
  } catch (const Error& e) {
    std::string hint;
    try {
      parse_collective(a.redop);
      hint = " (-o/--op is the reduction operation, as in nccl-tests; the collective is --collective " + a.redop + ")";
    } catch (const CLI::ValidationError&) {
    }
    throw CLI::ValidationError("-o", std::string(e.what()) + hint);
  }
  // MAXCHANNELS 64 (NCCL src/include/device.h v2.28.3-1): NCCL caps larger settings to it.
  auto channel_setting = [](int v, const char* flag) {
    if (v < 0 || v > 64) throw CLI::ValidationError(flag, "from 1 to 64 (0: NCCL's), got " + std::to_string(v));
    return v;
  };
  o.protocol.max_channels = channel_setting(a.max_channels, "--max-channels");
  o.protocol.max_ctas = channel_setting(a.max_ctas, "--max-ctas");
  o.protocol.nvls_channels = channel_setting(a.nvls_channels, "--nvls-channels");
  o.collapse = !a.steps;
  o.iters = a.iters;
  o.warmup_iters = a.warmup;
  const int n = o.ranks > 0 ? o.ranks : o.fabric.gpus;
  if (a.root < 0 || a.root >= n)
    throw CLI::ValidationError("-r", std::to_string(a.root) + ": a rank from 0 to " + std::to_string(n - 1));
  o.root = a.root;
  if (n < 2 && o.op == collectives::Op::SendRecv)
    throw CLI::ValidationError("--nodes/-g", "send/recv needs 2 GPUs or more");
  const double lo = parse_size("-b", a.min_bytes), hi = parse_size("-e", a.max_bytes);
  if (hi < lo) throw CLI::ValidationError("-b/-e", "maxBytes " + a.max_bytes + " is below minBytes " + a.min_bytes);
  if (!a.step_bytes.empty()) {
    const double step = parse_size("-i", a.step_bytes);
    if ((hi - lo) / step > 10000) throw CLI::ValidationError("-i", "more than 10,000 sizes from -b to -e");
    for (double s = lo; s <= hi * (1 + 1e-12); s += step) o.sizes.push_back(s);
  } else {
    const int f = parse_factor(a.factor);
    for (double s = lo; s <= hi * (1 + 1e-12); s *= f) o.sizes.push_back(s);
  }
  return o;
}

int bench(const BenchArgs& a) {
  return guarded([&] {  // a bad --scenario or --gpu-file: ScenarioError, handled by guarded (file:line)
    BenchOptions o;
    try {
      o = options_from(a);
    } catch (const CLI::ValidationError& e) {
      std::cerr << "aidcsim bench-collective: " << e.what() << "\n";
      return kExitUsage;
    }
    try {
      if (a.profile) profile::enable(true);
      const auto rows = bench_collective(o);
      std::cout << format_bench(o, rows);
      if (profile::enabled()) std::cerr << profile::format_table();
    } catch (const SimulationError&) {
      throw;
    } catch (const Error& e) {  // the algorithm cannot run on these GPUs / this fabric, bad fabric options
      std::cerr << "aidcsim bench-collective: " << e.what() << "\n";
      return kExitUsage;
    }
    return kExitOk;
  });
}

}  // namespace

// Long by nature: one declaration per command-line option, in --help order.
void add_bench_collective_command(CLI::App& app, Action& action) {
  auto a = std::make_shared<BenchArgs>();
  CLI::App* sub = app.add_subcommand(
      "bench-collective",
      "nccl-tests on the simulated fabric: one collective over message sizes, chosen by NCCL's tuner, "
      "printed as nccl-tests prints it");
  auto positive = CLI::Validator(
      [](std::string& s) -> std::string {
        try {
          std::size_t pos = 0;
          const long v = std::stol(s, &pos);
          if (pos != s.size() || v < 1) return "'" + s + "' is not a positive integer";
        } catch (...) {
          return "'" + s + "' is not a positive integer";
        }
        return "";
      },
      "INT>=1");
  auto non_negative = CLI::Validator(
      [](std::string& s) -> std::string {
        try {
          std::size_t pos = 0;
          const long v = std::stol(s, &pos);
          if (pos != s.size() || v < 0) return "'" + s + "' is not an integer >= 0";
        } catch (...) {
          return "'" + s + "' is not an integer >= 0";
        }
        return "";
      },
      "INT>=0");
  // the cluster
  CLI::Option* scenario =
      sub->add_option("--scenario", a->scenario, "Scenario file: its fabric and GPUs (instead of the options below)");
  sub->add_option("--gpus", a->ranks, "GPUs taking part: the first N of the cluster (default all)")->check(positive);
  sub->add_option("--gpu", a->gpu,
                  "GPU model: " + builtin_gpus().names_text() + " (docs/gpus.md), or one of --gpu-file")
      ->capture_default_str();
  sub->add_option("--gpu-file", a->gpu_file,
                  "GPU catalogue file (a `gpus:` list as in docs/gpus.md) adding or overriding GPU models");
  sub->add_option("-N,--nodes", a->nodes, "Nodes (servers)")->capture_default_str()->check(positive);
  sub->add_option("-g,--ngpus,--gpus-per-node", a->ngpus, "GPUs per node (nccl-tests -g: GPUs per process)")
      ->capture_default_str()
      ->check(positive);
  sub->add_option("-t,--nthreads", a->nthreads, "nccl-tests -t: threads per process (GPUs per node = t x g)")
      ->capture_default_str()
      ->check(positive);
  sub->add_option("--nvlink-domain", a->nvlink_domain,
                  "GPUs per NVLink domain (default: one node; at most the GPU's max_nvlink_domain: 72 for GB200 NVL72)")
      ->check(non_negative);
  sub->add_option("--nics-per-node", a->nics_per_node, "Scale-out NICs per node (default one per GPU)")
      ->check(non_negative);
  sub->add_option("--nic-rate", a->nic_rate, "Rate of one NIC, e.g. '400 Gbps', '200 Gbps'")->capture_default_str();
  sub->add_option("--link-rate", a->link_rate, "Switch port rate (default: the NIC rate, at least 400 Gbps)");
  sub->add_option("--topology", a->topology, "leaf_spine or clos3")->capture_default_str();
  sub->add_option("--wiring", a->wiring, "rail_optimized or rack_local")->capture_default_str();
  sub->add_option("--oversubscription", a->oversub, "Leaf downlink:uplink, e.g. 2:1")->capture_default_str();
  sub->add_option("--spine-oversubscription", a->spine_oversub, "Spine downlink:uplink (clos3)")->capture_default_str();
  sub->add_option("--radix", a->radix, "Switch ports")->capture_default_str();
  sub->add_option("--planes", a->planes, "Fabric planes")->capture_default_str();
  sub->add_flag("--sharp", a->sharp, "The switches reduce in the network (SHARP): CollNet / multi-node NVLS");
  // The cluster is the scenario's or the options': an option given with --scenario was ignored
  // (-N 4 ran all 8,064 GPUs of the file), so the pair is a usage error ("--scenario excludes
  // --nodes"); --gpus N takes the first N GPUs of either.
  for (const char* name : {"--gpu", "--gpu-file", "--nodes", "--ngpus", "--nthreads", "--nvlink-domain",
                           "--nics-per-node", "--nic-rate", "--link-rate", "--topology", "--wiring",
                           "--oversubscription", "--spine-oversubscription", "--radix", "--planes", "--sharp"})
    scenario->excludes(sub->get_option(name));
  // the collective
  sub->add_option(
         "--collective", a->collective,
         "all_reduce, all_gather, reduce_scatter, alltoall, broadcast, reduce, sendrecv (or nccl-tests' binary name)")
      ->capture_default_str();
  sub->add_option("--algo", a->algo,
                  "auto (NCCL's tuner), ring, tree, nvls, nvls_tree, collnet_direct, collnet_chain, pat, sharp, "
                  "hierarchical, halving_doubling, direct")
      ->capture_default_str();
  sub->add_option("--proto", a->proto, "NCCL protocol: auto, LL, LL128, Simple")->capture_default_str();
  sub->add_option("--max-channels", a->max_channels,
                  "NCCL_MAX_NCHANNELS (0: NCCL's): caps the channels of ring, tree, PAT, CollNet and NVLS across "
                  "NVLink domains (min(NVLS CTAs, channels)); not NVLS on one domain or NVLSTree, whose CTAs are "
                  "--nvls-channels");
  sub->add_option("--max-ctas", a->max_ctas,
                  "NCCL_MAX_CTAS (0: NCCL's): caps every algorithm's channels and NVLS CTAs");
  sub->add_option("--nvls-channels", a->nvls_channels,
                  "NCCL_NVLS_NCHANNELS (0: NCCL's, 16 Hopper; Blackwell 24 in one NVLink domain, 32 across): "
                  "CTAs of NVLS and NVLSTree");
  sub->add_flag("--steps", a->steps,
                "Simulate every ring/tree step (default: steps collapsed, exact on an idle fabric)");
  sub->add_flag("--profile", a->profile,
                "Print CPU and wall time of the network engine's parts on stderr (also AIDCSIM_PROFILE=1)");
  // nccl-tests' own flags
  sub->add_option("-b,--minbytes", a->min_bytes, "Smallest size (nccl-tests -b: K, M, G binary; 8G = 8GB = 8 GiB)")
      ->capture_default_str();
  sub->add_option("-e,--maxbytes", a->max_bytes, "Largest size (nccl-tests -e)")->capture_default_str();
  sub->add_option("-i,--stepbytes", a->step_bytes, "Linear step between sizes (nccl-tests -i)");
  sub->add_option("-f,--stepfactor", a->factor, "Integer factor between sizes (nccl-tests -f)")->capture_default_str();
  sub->add_option("-n,--iters", a->iters, "nccl-tests -n (printed; one deterministic simulation per size)")
      ->capture_default_str()
      ->check(positive);
  sub->add_option("-w,--warmup_iters", a->warmup, "nccl-tests -w (printed)")
      ->capture_default_str()
      ->check(non_negative);
  sub->add_option("-d,--datatype", a->datatype,
                  "Element type (nccl-tests -d): int8, uint8, int32, uint32, int64, "
                  "uint64, half, float, double, bfloat16, f8e4m3, f8e5m2")
      ->capture_default_str();
  sub->add_option("-o,--op", a->redop, "Reduction operation (nccl-tests -o): sum, prod, max, min, avg")
      ->capture_default_str();
  sub->add_option("-r,--root", a->root, "Root rank of broadcast / reduce (nccl-tests -r)")
      ->capture_default_str()
      ->check(non_negative);
  sub->add_option("-c,--check", a->check, "nccl-tests -c (accepted; the simulation moves no data: #wrong is N/A)")
      ->check(CLI::IsMember({0, 1}));
  sub->callback([a, &action] { action = [a] { return bench(*a); }; });
}

}  // namespace aidcsim::cli
