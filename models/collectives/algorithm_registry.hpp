#pragma once
// Internal to models/collectives: the collective algorithms by name. Each entry says what the
// algorithm is called (scenario key `dp_algorithm`, `aidcsim bench-collective --algo`), what it
// implements, which of NCCL's algorithms the tuner may pick for it, and how its traffic is planned
// as flows (flow_*.cpp) and, outside NCCL's tuner, how long it takes (estimate.hpp). Adding an
// algorithm: its enum value (collective.hpp), its flow plan (and estimate, if not one of NCCL's) in
// its own file, one entry in algorithm_registry.cpp, a test, docs/collectives.md.
#include <string>
#include <vector>

#include "models/collectives/collective.hpp"
#include "models/collectives/estimate.hpp"
#include "models/collectives/flow_plan.hpp"

namespace aidcsim::collectives::detail {

using Domains = std::vector<std::vector<int>>;

struct AlgorithmEntry {
  Algorithm id = Algorithm::Auto;
  const char* name = "";             ///< canonical name (lower case, underscores)
  const char* description = "";      ///< one line: what it does and whose it is
  std::vector<const char*> aliases;  ///< other accepted spellings (matched like the name)
  std::vector<Op> ops;               ///< operations it implements
  /// NCCL algorithms the tuner may choose from for it (NCCL_ALGO); empty: not one of NCCL's, its
  /// time comes from `estimate`.
  std::vector<nccl::Algo> nccl;
  /// Flow plan of one collective of the group (doms: its GPUs by NVLink domain); null for Auto.
  FlowPlan (*plan)(const EmitContext& ctx, const Domains& doms) = nullptr;
  /// Execution-model time of an algorithm outside NCCL's tuner (`nccl` empty); null for NCCL's,
  /// whose time is NCCL's cost model (nccl_selection).
  Selection (*estimate)(const EstimateContext& x) = nullptr;
  /// Traffic emitted as phases of other collectives instead of `plan` (hierarchical): returns false
  /// when the phases do not apply and `plan` runs; null when `plan` always runs.
  bool (*emit_phases)(network::Schedule& s, const EmitContext& ctx, const Domains& doms,
                      std::vector<int>* done) = nullptr;
};

/// Every algorithm, Auto first, in the order of the Algorithm enum.
const std::vector<AlgorithmEntry>& algorithm_registry();

/// The entry of `a` (every enum value has one: a test checks it).
const AlgorithmEntry& algorithm_entry(Algorithm a);

/// "auto, ring, tree, ..." for error messages.
std::string algorithm_names();

}  // namespace aidcsim::collectives::detail
