#pragma once
// A halving / doubling all-reduce in compact form for the fluid estimate of its waves, without the
// Schedule emit() would build (at 32K GPUs 983,040 transfers of ~170 B each, plus the flow plan).
#include <optional>

#include "models/collectives/collective.hpp"
#include "models/network/fluid_bound.hpp"

namespace aidcsim::collectives {

/// The transfers emit(c) appends for `sel` (select(c, l, p) of an Algorithm::HalvingDoubling
/// collective) as network::RegularWaves: the same sources, destinations, amounts, delays and flow
/// hashes, in the same order, computed as plan_halving_doubling and materialize compute them (the
/// longest dependency path and the busiest port's total, then amount = payload x bw_time / T and
/// delay = latency / D - route latency). network::fluid_bound_waves of the result equals that of
/// the emitted schedule bit for bit (tests/unit/engine/test_bench_fluid.cpp, "[compact]", which
/// also compares every transfer's fields with emit()'s). Empty (use emit()) unless the algorithm
/// is halving / doubling, the ranks are distinct GPUs and a power of two >= 2, c.bytes > 0 and
/// c.after is empty.
std::optional<network::RegularWaves> halving_doubling_waves(const Collective& c, const Layout& l, const Selection& sel);

}  // namespace aidcsim::collectives
