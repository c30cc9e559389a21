#pragma once
// NCCL-style collective algorithms turned into network::Schedule activities (transfers between
// GPUs with dependencies), so the flow network shows their congestion on the real routes.
//
// Protocol efficiency: FlowNetwork moves bytes at link line rate; NCCL reaches only part of it.
// Every transfer therefore carries  data / efficiency + alpha_step x line_rate  bytes, which makes
// an uncongested transfer last  data / (eff x rate) + alpha_step + route latency , i.e. the
// alpha-beta model with B = eff x rate. Constants (Protocol) with their sources below.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "models/collectives/closed_form.hpp"
#include "models/network/schedule.hpp"

namespace aidcsim::topology { class Fabric; }

namespace aidcsim::collectives {

enum class Algorithm { Auto, Ring, Tree, Hierarchical, Nvls, Sharp, HalvingDoubling, Direct };
const char* algorithm_name(Algorithm a);
/// "auto", "ring", "tree", "hierarchical", "nvls", "sharp", "halving_doubling", "direct";
/// throws aidcsim::Error otherwise.
Algorithm algorithm_from(const std::string& name);

/// Protocol efficiencies and per-step latency (NCCL Simple protocol, large messages).
struct Protocol {
  /// NVLink: 450 GB/s line rate, "~20 % protocol overhead -> ~370 GB/s" (nccl-tests issue #212,
  /// sjeaugey); A100 235 of 300 GB/s (published-figures.md §4.3) -> 0.80.
  double nvlink = 0.80;
  /// NIC: NDR 400 Gb/s "you should see 46-48 GB/s per NIC" (nccl-tests issue #290) -> 47/50.
  double nic = 0.94;
  /// NVLS (NVLink SHARP) all-reduce, fraction of NVLink line rate per direction seen as algbw:
  /// H100 busbw 480 GB/s = algbw 274 GB/s of 450 (issue #212; GTC24 S62129) -> 0.60.
  double nvls = 0.60;
  /// Software latency per algorithm step (s): 8xH200 1 MiB ring all-reduce at 39.9 GB/s busbw
  /// (ml-engineering all-reduce-8xH200.md) -> ~46 us over 14 steps -> ~3 us.
  double alpha = 3e-6;
  /// NCCL may use NVLS (NCCL_NVLS_ENABLE); it does only where the hardware can (Layout::nvls).
  bool nvls_capable = true;
};

/// Where the GPUs are: NVLink domain of each GPU and the line rates (B/s per direction).
struct Layout {
  std::function<int(int)> domain_of;  ///< NVLink domain index of a GPU
  double nvlink_rate = 450e9;         ///< B/s per GPU per direction inside a domain
  double nic_rate = 50e9;             ///< B/s per GPU scale-out NIC
  double nvlink_latency = 0;          ///< s, route latency GPU -> NVSwitch -> GPU
  double net_latency = 0;             ///< s, route latency of a rail-aligned scale-out hop (same local GPU, next domain)
  bool nvls = true;                   ///< NVLink switches reduce in the switch (FabricSpec::nvls, from the GPU model)
  /// From a fabric (domains and rates from its spec). The fabric must outlive the Layout.
  static Layout from(const topology::Fabric& fabric);
};

/// One collective on one group of GPUs.
struct Collective {
  Op op = Op::AllReduce;
  Algorithm algorithm = Algorithm::Auto;
  std::vector<int> gpus;          ///< members in rank order (size n >= 1); root = gpus[0]
  double bytes = 0;               ///< nccl-tests size S (see closed_form.hpp), B
  /// true: symmetric algorithm steps collapsed to one flow per neighbour pair carrying every
  /// step's data (exact for bandwidth when every step has the same flow set, DESIGN.md); the
  /// (steps-1) per-step latencies are folded into its bytes. false: one transfer per step with
  /// the true step-to-step dependencies (small groups, validation).
  bool collapse = true;
  int chunks = 8;                 ///< pipeline chunks for tree / broadcast
  std::vector<int> after;         ///< activities every first transfer waits for
  int tag = 0;                    ///< copied to every activity
  std::uint64_t hash = 0;         ///< ECMP hash seed of this collective's flows
};

/// Indices of what was emitted.
struct Emitted {
  std::vector<int> done;          ///< activities whose completion means the collective is done
  int first = 0, last = 0;        ///< [first, last) activity index range
  Algorithm algorithm = Algorithm::Ring;  ///< the algorithm used (Auto resolved)
};

/// Whether emit() implements `op` with algorithm `a` (Auto: always). All-reduce: every algorithm
/// but Direct; all-gather and reduce-scatter: Ring only (NCCL runs them with ring, NVLS, CollNet
/// and PAT, not tree; the others are not modelled here yet); all-to-all: Direct; broadcast, reduce
/// and send/recv: their one algorithm (a chain, a direct send), named Ring or Direct.
bool implements(Algorithm a, Op op);

/// NCCL-like choice when `algorithm == Auto`: the algorithm with the lowest alpha-beta time
/// (NCCL's tuner also picks the minimum of its modelled times): in one NVLink domain NVLS for
/// all-reduce when capable, else ring vs tree; across domains ring vs tree vs hierarchical.
Algorithm choose_algorithm(const Collective& c, const Layout& layout, const Protocol& p);

/// Appends the activities of `c` to `schedule`. Throws aidcsim::Error for an algorithm that
/// does not implement the operation (implements() false, or halving-doubling with n not a power
/// of two).
Emitted emit(network::Schedule& schedule, const Collective& c, const Layout& layout,
             const Protocol& p = {});

/// Alpha-beta estimate (s) of `c` on an uncongested fabric with the same algorithm and
/// constants as emit(): per-step alpha = Protocol::alpha + the layout's route latency, B = the
/// bottleneck effective bandwidth per GPU.
double estimate_time(const Collective& c, const Layout& layout, const Protocol& p = {});

}  // namespace aidcsim::collectives
