#pragma once
// The inputs of `aidcsim bench-collective` and of aidcsim.bench_collective() (Python) as the user
// writes them (sizes "8G", rates "400 Gbps", names "all_reduce"), checked and turned into the
// BenchOptions of sim/engine/collective_bench.hpp. One validator for both front ends: the same
// inputs are refused with the same message, naming the argument as each front end spells it
// (BenchArgNames: the CLI's "-b", Python's "min_bytes").
#include <string>

#include "models/common/errors.hpp"
#include "sim/engine/collective_bench.hpp"
#include "sim/scenario/scenario.hpp"

namespace aidcsim {

/// The arguments as written; defaults are the CLI's (and nccl-tests': -b 8 -e 8G -f 2 -n 20 -w 5,
/// float, sum, root 0).
struct BenchArgs {
  /// The cluster of a scenario (its fabric and GPU model), already loaded; nullptr: the options
  /// gpu ... sharp below describe it.
  const Scenario* scenario = nullptr;
  int ranks = 0;  ///< GPUs taking part: the first `ranks` of the cluster (0: all)
  std::string gpu = "H100";
  std::string gpu_file;  ///< GPU catalogue file adding or overriding models ("": the built-in one)
  int nodes = 1;
  int ngpus = 8;                      ///< nccl-tests -g: GPUs per process (here: per node)
  int nthreads = 1;                   ///< nccl-tests -t: GPUs per node = ngpus x nthreads
  int nvlink_domain = 0;              ///< GPUs per NVLink domain (0: one node)
  int nics_per_node = 0;              ///< 0: one per GPU
  std::string nic_rate = "400 Gbps";  ///< per NIC
  std::string link_rate;              ///< "": the NIC rate, at least default_link_rate
  /// The switch port rate when link_rate is "" and the NIC is slower (the CLI's --link-rate
  /// default, kept as it was when moved here; an input, so written as one).
  std::string default_link_rate = "400 Gbps";
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
  int max_channels = 0;   ///< NCCL_MAX_NCHANNELS (0: NCCL's)
  int min_channels = 0;   ///< NCCL_MIN_NCHANNELS (0: NCCL's)
  int max_ctas = 0;       ///< NCCL_MAX_CTAS (0: NCCL's)
  int min_ctas = 0;       ///< NCCL_MIN_CTAS (0: NCCL's); at most max_ctas when both are set
  int nvls_channels = 0;  ///< NCCL_NVLS_NCHANNELS (0: NCCL's)
  std::string min_bytes = "8";
  std::string max_bytes = "8G";
  std::string step_bytes;  ///< "": sizes grow by `factor`
  std::string factor = "2";
  std::string datatype = "float";
  std::string redop = "sum";
  int root = 0;
  int iters = 20;
  int warmup = 5;
  bool steps = false;  ///< simulate every ring/tree step (BenchOptions::collapse = false)
};

/// How the front end names each argument in messages. The defaults are the CLI's options;
/// `assign` false writes "NAME VALUE" ("-g 1"), true "NAME=VALUE" (Python's "ngpus=1").
struct BenchArgNames {
  std::string ranks = "--gpus", gpu = "--gpu", nodes = "-N", ngpus = "-g", nthreads = "-t",
              nvlink_domain = "--nvlink-domain", nics_per_node = "--nics-per-node", nic_rate = "--nic-rate",
              link_rate = "--link-rate", topology = "--topology", wiring = "--wiring", oversub = "--oversubscription",
              spine_oversub = "--spine-oversubscription", radix = "--radix", planes = "--planes",
              collective = "--collective", algo = "--algo", proto = "--proto", max_channels = "--max-channels",
              min_channels = "--min-channels", max_ctas = "--max-ctas", min_ctas = "--min-ctas",
              nvls_channels = "--nvls-channels", min_bytes = "-b", max_bytes = "-e", step_bytes = "-i", factor = "-f",
              datatype = "-d", redop = "-o", root = "-r";
  bool assign = false;
  /// `name` given `value`, as the user would write it: "-g 1" or "gpus_per_node=1"; a `text`
  /// value quoted in the second form ("collective='all_gather'").
  std::string given(const std::string& name, const std::string& value, bool text = false) const {
    return assign ? name + "=" + (text ? "'" + value + "'" : value) : name + " " + value;
  }
  /// What sets the GPUs per node: "-g/-t" (ngpus x nthreads), or `ngpus` alone when the front end
  /// has no nthreads (empty name).
  std::string per_node() const { return nthreads.empty() ? ngpus : ngpus + "/" + nthreads; }
  /// What sets the cluster's GPU count: "-N x -g x -t".
  std::string cluster() const { return nodes + " x " + ngpus + (nthreads.empty() ? "" : " x " + nthreads); }
};

/// An argument outside its domain: an InvalidParameter whose key() is the argument's name
/// (BenchArgNames), value() the value given, expected() the reason and hint() a suggestion ("did
/// you mean 'H100'?", or ""); what() reads "NAME: REASON" (+ "; HINT"), as `aidcsim
/// bench-collective` prints it after its own name.
class BenchArgumentError : public InvalidParameter {
 public:
  BenchArgumentError(const std::string& name, const std::string& reason, const std::string& value = {},
                     const std::string& hint = {})
      : InvalidParameter(name, value, reason, hint),
        message_(name + ": " + reason + (hint.empty() ? "" : "; " + hint)) {}
  const char* what() const noexcept override { return message_.c_str(); }

 private:
  std::string message_;
};

/// Checks `args` and returns the benchmark's options: the cluster (the scenario's, or built from
/// the options within the scenario schema's ranges of the matching keys), the collective, NCCL's
/// algorithm / protocol choice, and the sizes from min_bytes to max_bytes (nccl-tests' parsesize:
/// K, M, G binary) by `factor` or `step_bytes`. Throws BenchArgumentError for a bad argument,
/// ScenarioError / FileError for a bad `gpu_file`.
BenchOptions bench_options(const BenchArgs& args, const BenchArgNames& names = {});

}  // namespace aidcsim
