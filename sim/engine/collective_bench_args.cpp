#include "sim/engine/collective_bench_args.hpp"

#include <cctype>
#include <cmath>
#include <cstdlib>
#include <regex>
#include <stdexcept>

#include "models/common/suggest.hpp"
#include "models/compute/catalogue.hpp"
#include "models/topology/topology_schema.hpp"
#include "sim/scenario/gpu_catalogue.hpp"
#include "sim/scenario/unit_parser.hpp"

namespace aidcsim {
namespace {

std::string squash(std::string s) {
  std::string out;
  for (char c : s)
    if (c != '_' && c != '-' && c != ' ') out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

collectives::Op parse_collective(const std::string& opt, const std::string& name) {
  using collectives::Op;
  std::string known;
  std::string n = squash(name);
  if (n.size() > 4 && n.substr(n.size() - 4) == "perf") n = n.substr(0, n.size() - 4);  // all_reduce_perf
  for (Op op :
       {Op::AllReduce, Op::AllGather, Op::ReduceScatter, Op::AllToAll, Op::Broadcast, Op::Reduce, Op::SendRecv}) {
    if (squash(collectives::op_name(op)) == n) return op;
    known += std::string(known.empty() ? "" : ", ") + collectives::op_name(op);
  }
  throw BenchArgumentError(opt, "unknown collective '" + name + "' (one of: " + known + ")", name);
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
    throw BenchArgumentError(opt,
                             "'" + text +
                                 "' is not a size: a number with an optional K, M or G, binary as in "
                                 "nccl-tests (8, 128K, 1.5M, 8G; 8GB is 8 GiB)",
                             text);
  const double v = size * units < 0 ? size * units : std::floor(size * units);  // -0.5 shown as -0.5 B
  // The number is a double (nccl-tests' %lf): the largest below 2^64 is 2^64 - 2048, and
  // "18446744073709551615" (2^64 - 1) reads as 2^64. The range says so, rather than "to 2^64 - 1 B",
  // which refused its own upper end.
  if (!(v >= 1) || !(v < 0x1p64))
    throw BenchArgumentError(opt,
                             "'" + text + "' is " + (std::isnan(v) ? "not a number" : format_number(v) + " B") +
                                 ": expected a size from 1 B to below 2^64 B (at most 18446744073709549568 B, "
                                 "the largest double below 2^64, as nccl-tests reads it; a fraction of a byte "
                                 "is dropped, as there)",
                             text);
  return v;
}

// `used`: the unit the rate was written in, for a range error in that unit.
double parse_rate(const std::string& opt, const std::string& text, DisplayUnit* used = nullptr) {
  try {
    const double v = parse_quantity(Quantity::DataRate, text, opt, used);
    if (!(v > 0)) throw BenchArgumentError(opt, "'" + text + "' must be a rate above 0", text);
    return v;
  } catch (const BenchArgumentError&) {
    throw;
  } catch (const InvalidParameter&) {
    throw BenchArgumentError(opt, "'" + text + "' is not a data rate (e.g. '400 Gbps', '50 GB/s')", text);
  }
}

double parse_ratio(const std::string& opt, const std::string& text) {
  try {
    const double v = parse_quantity(Quantity::Ratio, text, opt);
    if (!(v >= 1) || !std::isfinite(v)) throw BenchArgumentError(opt, "'" + text + "' must be at least 1:1", text);
    return v;
  } catch (const BenchArgumentError&) {
    throw;
  } catch (const InvalidParameter&) {
    throw BenchArgumentError(opt, "'" + text + "' is not a ratio (e.g. '1:1', '2:1', 3)", text);
  }
}

// nccl-tests -f: an integer multiplication factor >= 2 (it parses with strtol).
int parse_factor(const BenchArgNames& names, const std::string& text) {
  static const std::regex integer(R"(^\s*[0-9]+\s*$)");
  if (!std::regex_match(text, integer))
    throw BenchArgumentError(names.factor, "'" + text + "' is not an integer factor (nccl-tests -f: 2, 4, ...)", text);
  const long f = std::stol(text);
  if (f < 2 || f > 1024)
    throw BenchArgumentError(
        names.factor,
        "'" + text + "' must be an integer from 2 to 1024 (use " + names.step_bytes + " for linear steps)", text);
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
      throw BenchArgumentError(opt,
                               given + ": expected " + (kind.front() == 'i' ? "an " : "a ") + kind + " " +
                                   range_phrase(f, unit, !in_written) + " (the range of " + key + ")",
                               given);
    }
    return;
  }
  throw std::logic_error("bench-collective: no schema key " + key);
}

// The cluster built from the options (no scenario). Long by nature: one validation and assignment
// per option, in the CLI's --help order.
void cluster_from_options(const BenchArgs& a, const BenchArgNames& names, BenchOptions& o) {
  // A bad gpu_file is a bad input file (ScenarioError, file:line), not a bad argument.
  const compute::Catalogue models =
      a.gpu_file.empty() ? builtin_gpus() : load_gpu_catalogue_file(a.gpu_file, builtin_gpus());
  if (!models.contains(a.gpu)) {
    // The scenario's cluster.gpu lookup's hint (compute::spec_from): "h100" is H100 in another case.
    const auto near = closest_match(a.gpu, models.names());
    throw BenchArgumentError(names.gpu, "unknown GPU model '" + a.gpu + "' (one of: " + models.names_text() + ")",
                             a.gpu, near ? "did you mean '" + *near + "'?" : std::string());
  }
  o.gpu = models.find(a.gpu);
  const std::string per_node = names.per_node();
  const double gpn_wide = double(a.ngpus) * a.nthreads, gpus_wide = gpn_wide * a.nodes;  // no int overflow
  check_in_schema_range(per_node, "cluster.gpus_per_node", gpn_wide,
                        std::to_string(a.ngpus) + " x " + std::to_string(a.nthreads) + " GPUs per node");
  check_in_schema_range(names.nodes, "cluster.gpus", gpus_wide, format_number(gpus_wide) + " GPUs");
  const int gpn = a.ngpus * a.nthreads;
  auto& f = o.fabric;
  f.gpus = a.nodes * gpn;
  f.gpus_per_node = gpn;
  if (a.nvlink_domain > 0)
    check_in_schema_range(names.nvlink_domain, "cluster.nvlink_domain", a.nvlink_domain,
                          std::to_string(a.nvlink_domain) + " GPUs");
  if (a.ranks > f.gpus)
    throw BenchArgumentError(names.ranks,
                             std::to_string(a.ranks) + " GPUs asked, the cluster has " + std::to_string(f.gpus) + " (" +
                                 names.cluster() + ")",
                             std::to_string(a.ranks));
  f.nvlink_domain = a.nvlink_domain > 0 ? a.nvlink_domain : gpn;
  // The fabric takes whole nodes per domain (topology::FabricSpec: nvlink_domain a multiple of
  // gpus_per_node); a domain dividing a node is not built.
  // MI300X has no NVLink but a scale-up fabric (Infinity Fabric): only a GPU without any is refused.
  if (f.nvlink_domain > 1 && !(o.gpu.nvlink_bandwidth > 0))
    throw BenchArgumentError(a.nvlink_domain > 1 ? names.nvlink_domain : names.ngpus,
                             o.gpu.name +
                                 " has no scale-up fabric (NVLink or Infinity Fabric): run one GPU per node (" +
                                 names.given(names.ngpus, "1") +
                                 (a.nvlink_domain > 1 ? ", " + names.given(names.nvlink_domain, "1") : "") + ")",
                             std::to_string(a.nvlink_domain > 1 ? a.nvlink_domain : a.ngpus));
  // As cluster.nvlink_domain in a scenario (sim/scenario/loader.cpp): no platform of the GPU builds a
  // larger domain (--gpu H100 --nvlink-domain 72 ran as one 72-GPU NVLink domain). Without
  // --nvlink-domain the domain is the node, so -g/-t are what asked for it.
  const std::string domain_excess = nvlink_domain_excess(o.gpu, f.nvlink_domain);
  if (!domain_excess.empty())
    throw BenchArgumentError(a.nvlink_domain > 0 ? names.nvlink_domain : per_node,
                             std::to_string(f.nvlink_domain) +
                                 (a.nvlink_domain > 0 ? " GPUs" : " GPUs per node (one NVLink domain)") +
                                 ": expected " + domain_excess,
                             std::to_string(f.nvlink_domain));
  if (f.nvlink_domain % gpn != 0)
    throw BenchArgumentError(names.nvlink_domain,
                             std::to_string(f.nvlink_domain) +
                                 " GPUs: an NVLink domain must be a whole number of nodes (" + std::to_string(gpn) +
                                 " GPUs each)",
                             std::to_string(f.nvlink_domain));
  const std::string topo = squash(a.topology);
  if (topo != "leafspine" && topo != "clos3") {
    const std::string hint = choice_hint(a.topology, {"leaf_spine", "clos3"});
    throw BenchArgumentError(names.topology,
                             "'" + a.topology + "' (one of: leaf_spine, clos3)" + (hint.empty() ? "" : "; " + hint),
                             a.topology);
  }
  f.kind = topo == "leafspine" ? topology::FabricKind::LeafSpine : topology::FabricKind::Clos3;
  const std::string w = squash(a.wiring);
  if (w != "railoptimized" && w != "racklocal")
    throw BenchArgumentError(names.wiring, "'" + a.wiring + "' (one of: rail_optimized, rack_local)", a.wiring);
  f.wiring = w == "racklocal" ? topology::Wiring::RackLocal : topology::Wiring::RailOptimized;
  DisplayUnit nic_unit, link_unit;
  const double nic = parse_rate(names.nic_rate, a.nic_rate, &nic_unit);
  check_in_schema_range(names.nic_rate, "fabric.nic_rate", nic, "'" + a.nic_rate + "'", nic_unit);
  if (a.nics_per_node < 0 || a.nics_per_node > gpn)
    throw BenchArgumentError(
        names.nics_per_node,
        std::to_string(a.nics_per_node) + ": from 1 to the GPUs per node (" + std::to_string(gpn) + ")",
        std::to_string(a.nics_per_node));
  const int nics = a.nics_per_node > 0 ? a.nics_per_node : gpn;
  if (gpn % nics != 0)
    throw BenchArgumentError(
        names.nics_per_node,
        std::to_string(nics) + " NICs cannot be shared evenly by " + std::to_string(gpn) + " GPUs per node",
        std::to_string(nics));
  f.nic_rate = nic * nics / gpn;  // each GPU's share of its node's NICs
  f.link_rate = a.link_rate.empty()
                    ? std::max(nic, parse_quantity(Quantity::DataRate, a.default_link_rate, "link_rate"))
                    : parse_rate(names.link_rate, a.link_rate, &link_unit);
  if (!a.link_rate.empty())
    check_in_schema_range(names.link_rate, "fabric.link_rate", f.link_rate, "'" + a.link_rate + "'", link_unit);
  f.oversub_leaf = parse_ratio(names.oversub, a.oversub);
  check_in_schema_range(names.oversub, "fabric.oversubscription.leaf", f.oversub_leaf, "'" + a.oversub + "'");
  f.oversub_spine = parse_ratio(names.spine_oversub, a.spine_oversub);
  check_in_schema_range(names.spine_oversub, "fabric.oversubscription.spine", f.oversub_spine,
                        "'" + a.spine_oversub + "'");
  if (a.radix < 4)
    throw BenchArgumentError(names.radix, std::to_string(a.radix) + ": a switch needs at least 4 ports",
                             std::to_string(a.radix));
  check_in_schema_range(names.radix, "fabric.switch_radix", a.radix, std::to_string(a.radix) + " ports");
  f.switch_radix = a.radix;
  if (a.planes < 1 || a.planes > 16)
    throw BenchArgumentError(names.planes, std::to_string(a.planes) + ": from 1 to 16", std::to_string(a.planes));
  f.planes = a.planes;
  f.sharp = a.sharp;
  o.nics_per_node = a.nics_per_node > 0 && a.nics_per_node < gpn ? a.nics_per_node : 0;
}

}  // namespace

BenchOptions bench_options(const BenchArgs& a, const BenchArgNames& names) {
  BenchOptions o;
  if (a.scenario != nullptr) {
    const Scenario& s = *a.scenario;
    o.fabric = s.fabric;
    o.gpu = s.gpu;
    if (a.ranks > s.fabric.gpus)
      throw BenchArgumentError(
          names.ranks,
          std::to_string(a.ranks) + " GPUs asked, the scenario's cluster has " + std::to_string(s.fabric.gpus),
          std::to_string(a.ranks));
  } else {
    cluster_from_options(a, names, o);
  }
  o.ranks = a.ranks;
  o.op = parse_collective(names.collective, a.collective);
  try {
    o.algorithm = collectives::algorithm_from(a.algo);
  } catch (const Error& e) {
    throw BenchArgumentError(names.algo, e.what(), a.algo);
  }
  if (!collectives::implements(o.algorithm, o.op))
    throw BenchArgumentError(
        names.algo,
        std::string(collectives::algorithm_name(o.algorithm)) + " does not implement " + collectives::op_name(o.op),
        a.algo);
  try {
    o.protocol.proto = collectives::proto_from(a.proto);
  } catch (const Error& e) {
    throw BenchArgumentError(names.proto, e.what(), a.proto);
  }
  try {
    o.type = collectives::type_from(a.datatype);
  } catch (const Error& e) {
    throw BenchArgumentError(names.datatype, e.what(), a.datatype);
  }
  try {
    o.redop = collectives::redop_from(a.redop);
  } catch (const Error& e) {
    std::string hint;
    try {
      parse_collective(names.collective, a.redop);
      hint = " (" + names.redop + " is the reduction operation, as in nccl-tests; the collective is " +
             names.given(names.collective, a.redop, true) + ")";
    } catch (const BenchArgumentError&) {
    }
    throw BenchArgumentError(names.redop, std::string(e.what()) + hint, a.redop);
  }
  // MAXCHANNELS 64 (NCCL src/include/device.h v2.28.3-1): NCCL caps larger settings to it.
  auto channel_setting = [](int v, const std::string& name) {
    if (v < 0 || v > 64) throw BenchArgumentError(name, "from 1 to 64 (0: NCCL's)", std::to_string(v));
    return v;
  };
  o.protocol.max_channels = channel_setting(a.max_channels, names.max_channels);
  o.protocol.min_channels = channel_setting(a.min_channels, names.min_channels);
  o.protocol.max_ctas = channel_setting(a.max_ctas, names.max_ctas);
  o.protocol.min_ctas = channel_setting(a.min_ctas, names.min_ctas);
  // ncclCommInitRankConfig refuses minCTAs > maxCTAs (init.cc v2.28.3-1 parseCommConfig:
  // ncclInvalidArgument); from the environment NCCL lowers NCCL_MIN_CTAS to NCCL_MAX_CTAS with
  // an INFO line only, which would change the run silently. A minimum channel count above the
  // maximum is NCCL's documented "max, then min" duplication and is taken as NCCL takes it.
  if (a.min_ctas > 0 && a.max_ctas > 0 && a.min_ctas > a.max_ctas)
    throw BenchArgumentError(names.min_ctas,
                             std::to_string(a.min_ctas) + " is above " +
                                 names.given(names.max_ctas, std::to_string(a.max_ctas)) + ": from 1 to " +
                                 std::to_string(a.max_ctas) +
                                 " (0: NCCL's; NCCL refuses minCTAs > maxCTAs in ncclConfig_t and lowers "
                                 "NCCL_MIN_CTAS to NCCL_MAX_CTAS from the environment)",
                             std::to_string(a.min_ctas));
  o.protocol.nvls_channels = channel_setting(a.nvls_channels, names.nvls_channels);
  o.collapse = !a.steps;
  o.iters = a.iters;
  o.warmup_iters = a.warmup;
  const int n = o.ranks > 0 ? o.ranks : o.fabric.gpus;
  if (a.root < 0 || a.root >= n)
    throw BenchArgumentError(names.root, std::to_string(a.root) + ": a rank from 0 to " + std::to_string(n - 1),
                             std::to_string(a.root));
  o.root = a.root;
  if (n < 2 && o.op == collectives::Op::SendRecv)
    throw BenchArgumentError(names.nodes + "/" + names.ngpus, "send/recv needs 2 GPUs or more", std::to_string(n));
  const double lo = parse_size(names.min_bytes, a.min_bytes), hi = parse_size(names.max_bytes, a.max_bytes);
  if (hi < lo)
    throw BenchArgumentError(names.min_bytes + "/" + names.max_bytes,
                             "maxBytes " + a.max_bytes + " is below minBytes " + a.min_bytes, a.max_bytes);
  if (!a.step_bytes.empty()) {
    const double step = parse_size(names.step_bytes, a.step_bytes);
    if ((hi - lo) / step > 10000)
      throw BenchArgumentError(
          names.step_bytes, "more than 10,000 sizes from " + names.min_bytes + " to " + names.max_bytes, a.step_bytes);
    for (double s = lo; s <= hi * (1 + 1e-12); s += step) o.sizes.push_back(s);
  } else {
    const int f = parse_factor(names, a.factor);
    for (double s = lo; s <= hi * (1 + 1e-12); s *= f) o.sizes.push_back(s);
  }
  return o;
}

}  // namespace aidcsim
