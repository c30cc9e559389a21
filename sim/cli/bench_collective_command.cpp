// `aidcsim bench-collective`: nccl-tests on the simulated fabric (sim/engine/collective_bench.hpp),
// with nccl-tests' flags and meanings (-b -e -i -f -g -t -n -w -d -o -r -c) and its output, plus the
// cluster under test: a scenario file (--scenario, its fabric and GPUs) or options for the GPU,
// nodes, NICs per node and rate, topology, oversubscription, rails and SHARP.
//   aidcsim bench-collective --gpu H200 -b 1M -e 4G -f 4
//   aidcsim bench-collective --collective all_gather --gpu A100 --nodes 2 --nics-per-node 4 --nic-rate "200 Gbps"
//   aidcsim bench-collective --scenario site.yaml --gpus 1024 -b 1G -e 1G
// The options are checked by bench_options (sim/engine/collective_bench_args.hpp), shared with
// Python's aidcsim.bench_collective; CLI11 checks only their syntax.
#include <iostream>
#include <memory>
#include <string>

#include "models/common/cancel.hpp"
#include "models/common/errors.hpp"
#include "models/common/profile.hpp"
#include "sim/cli/commands.hpp"
#include "sim/engine/collective_bench.hpp"
#include "sim/engine/collective_bench_args.hpp"
#include "sim/scenario/gpu_catalogue.hpp"

namespace aidcsim::cli {
namespace {

// The options as written (the library's BenchArgs) and those of the CLI alone.
struct CliArgs {
  BenchArgs bench;
  std::string scenario;  // --scenario: loaded here, its cluster handed to bench_options
  int check = 1;         // nccl-tests -c: accepted, nothing to check
  bool profile = false;
};

int bench(const CliArgs& a) {
  return guarded([&] {  // a bad --scenario or --gpu-file: ScenarioError, handled by guarded (file:line)
    BenchOptions o;
    Scenario s;
    BenchArgs args = a.bench;
    if (!a.scenario.empty()) {
      s = load_scenario_or_default(a.scenario);
      args.scenario = &s;
    }
    try {
      o = bench_options(args);  // the options' names by default (BenchArgNames)
    } catch (const BenchArgumentError& e) {
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
    } catch (const Cancelled&) {  // Ctrl-C / SIGTERM: 128 + signal (sim/cli/common.cpp), not a usage error
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
  auto cli = std::make_shared<CliArgs>();
  BenchArgs* a = &cli->bench;
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
      sub->add_option("--scenario", cli->scenario, "Scenario file: its fabric and GPUs (instead of the options below)");
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
  sub->add_option("--min-channels", a->min_channels,
                  "NCCL_MIN_NCHANNELS (0: NCCL's): raises the channels of ring, tree, PAT, CollNet and NVLS across "
                  "NVLink domains after the caps, by copies (above --max-channels too, as NCCL does); small "
                  "messages still run on fewer");
  sub->add_option("--max-ctas", a->max_ctas,
                  "NCCL_MAX_CTAS (0: NCCL's): caps every algorithm's channels and NVLS CTAs");
  sub->add_option("--min-ctas", a->min_ctas,
                  "NCCL_MIN_CTAS (0: NCCL's, 1): raises every algorithm's channels and NVLS CTAs; at most --max-ctas");
  sub->add_option("--nvls-channels", a->nvls_channels,
                  "NCCL_NVLS_NCHANNELS (0: NCCL's, 16 Hopper; Blackwell 24 in one NVLink domain, 32 across): "
                  "CTAs of NVLS and NVLSTree");
  sub->add_flag("--steps", a->steps,
                "Simulate every ring/tree step (default: steps collapsed, exact on an idle fabric)");
  sub->add_flag("--profile", cli->profile,
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
  sub->add_option("-c,--check", cli->check, "nccl-tests -c (accepted; the simulation moves no data: #wrong is N/A)")
      ->check(CLI::IsMember({0, 1}));
  sub->callback([cli, &action] { action = [cli] { return bench(*cli); }; });
}

}  // namespace aidcsim::cli
