#pragma once
// Relaxed link directions: an exact decomposition of the max-min sharing problem (FlowNetwork::
// set_relaxed_tiers). Link directions of the chosen tiers are left out of the solver while the
// rates it finds keep them within capacity; the first solve that would put one at capacity puts
// it back in (its items are re-added with it) and solves again; once its load has fallen to 90 % of
// its capacity it is relaxed again.
//
// Why it is exact: the weighted max-min fair allocation of a system is unique, and an allocation
// that is max-min fair for a system with fewer constraints (the relaxed one) and feasible for the
// full system is max-min fair for the full system (every allocation feasible for the full system
// is feasible for the relaxed one, so none can improve on it in the max-min order). So every solve
// gives the full system's rates, up to the solver's own rounding (SimGrid's lmm is a numerical
// solver; results may differ in the last bits from a solve with the links in, so the option is off
// by default and the run's notes say when it is on).
//
// Why it helps: SimGrid 3.32's lmm re-solves the whole connected component of every change. With
// the DP rings of a PP-inside-DP job crossing an oversubscribed core, the spine-core links join
// every cross-pod flow in flight into one component (~10^4 items at 16K GPUs), re-solved at each
// of millions of events, though the core is not where the flows are bottlenecked (docs/
// benchmarks.md, "relaxed core links"). Without those links the components are the leaf pairs'.
#include <cstdint>
#include <vector>

namespace aidcsim::network::detail {

struct RunCtx;

struct RelaxedLinks {
  bool on = false;
  std::uint32_t tiers = 0;  ///< bit t set: links of topology::Tier t are relaxed (until they bind)
  /// Per solver resource: -1 not known yet, 0 in the solver (not of a relaxed tier), 1 relaxed,
  /// 2 put back in the solver (it would have bound; relaxed again when its load falls).
  std::vector<signed char> state;
  std::vector<double> load;  ///< per solver resource: B/s, sum of the current rates of its items
  std::vector<double> cap;   ///< per solver resource: B/s (relaxed ones)
  std::vector<int> touched;  ///< relaxed resources whose load changed since the last check
  std::vector<char> is_touched;
  std::vector<int> buf;         ///< scratch: an item's resources in the solver
  long long put_back = 0;       ///< relaxed directions put back in the solver (profile)
  long long relaxed_again = 0;  ///< directions put back, then relaxed again (profile)
  long long re_added = 0;       ///< items re-added with a direction put back or relaxed again (profile)
};

/// Resources of sub-flow f (its route's `n` resources at `res`) that go into the solver: those not
/// relaxed; `kept` is set to their count. Returns `res` itself when relaxation is off.
const int* relax_filter(RunCtx& c, int f, const int* res, int n, int& kept);
/// Sub-flow f's rate changed by `delta` B/s: the loads of its relaxed directions follow.
void relax_rate(RunCtx& c, int f, double delta);
/// After a solve: puts every relaxed direction whose load reached its capacity (within 1e-6) back
/// in the solver, and relaxes again those put back whose load fell to 90 % of it, re-adding the
/// items that use them. Returns whether any was put back: then solve again.
bool relax_check(RunCtx& c);

}  // namespace aidcsim::network::detail
