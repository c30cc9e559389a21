#pragma once
// A ring emitted step by step, run as one of its channels when the channels are exact images of
// each other on the fabric.
//
// NCCL's rail-aligned rings (flow_ring.cpp) are C channels over the same GPUs: channel c enters and
// leaves every NVLink domain on other GPUs than channel 0, but its position i (the i-th hop of the
// ring) is in the same domain, with the same bytes, delay and repetitions. Its scale-out hops are
// on other rails, its NVLink hops leave and enter other GPUs; each GPU's NVLink port carries one
// hop of every other channel, each at another position. If every link direction a hop (c, i)
// crosses has the same rate and carries the same multiset of positions as the link direction the
// reduced hop (0, i) crosses at the same place of its route, the max-min system of the C channels
// is a C-fold cover of the reduced one: the reduced trajectory, copied to every channel, satisfies
// the full system's equations (every flow gets the same rate from the same bottleneck), and the
// simulation is deterministic, so both have the same times. The reduced ring keeps channel 0 and
// sends all the NVLink hops of a domain through one GPU pair of that domain, so that this pair's
// NVLink ports carry every NVLink position of the domain as each GPU's ports do in the full ring.
// The check is done link by link on the real routes; anything else (ECMP collisions between
// channels, unequal rails, sub-flows; unequal domain shares, where a domain of more members than
// channels has GPUs whose ports carry fewer positions than others) returns nothing and the full
// ring is simulated. NCCL's copies of its channels (ncclTopoPostset: order c runs the GPUs of order
// c mod P, with its own hashes) reduce to the m = C / P copies of channel 0, a flow labelled by
// (copy, position) instead of its position: order c maps onto copy c / P. Where the copies of a
// hop hash onto other spines than channel 0's copies do, there is no cover and nothing returns.
#include <optional>

#include "models/collectives/collective.hpp"
#include "models/common/schedule.hpp"

namespace aidcsim::topology {
class Fabric;
}

namespace aidcsim::collectives {

/// The ring `e` (emit() of an Algorithm::Ring collective over `n` GPUs with collapse false: its
/// activities [e.first, e.last) of `schedule`, e.rings >= 2 ring orders ("channels") of n
/// positions x the same activities per position (pipeline_ring's lanes, or one repeated transfer),
/// in order) reduced to channel 0 as above, as a schedule of channel 0's activities (same order;
/// dependencies renumbered; gpu_flops copied), when every channel is channel 0 shifted (the same
/// transfers, dependencies at the same places of its own block, none outside) and the check passes
/// on `fabric` (hash ECMP, one flow per pair, routes as network::FlowNetwork takes them); nullopt
/// otherwise. The reduced run's times are those of channel 0 in the full run (and of every
/// channel: they are equal), so its makespan is the full ring's. With copies (period P < C of the
/// orders' GPUs) the schedule holds the C / P copies of channel 0 in order, copy t's times those of
/// every order c with c / P = t.
std::optional<network::Schedule> ring_one_channel(const network::Schedule& schedule, const Emitted& e, int n,
                                                  const topology::Fabric& fabric);

}  // namespace aidcsim::collectives
