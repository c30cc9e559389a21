#pragma once
// Rank -> GPU placement of a TP x CP x PP x DP job. Ranks are ordered [TP, CP, DP, PP] (innermost
// first: Megatron Core's default, DeepSpeed's) or [TP, CP, PP, DP] (Megatron-LM's
// --use-tp-pp-dp-mapping); GPU index = rank, so TP (and CP) groups fill an NVLink domain first
// when tp x cp divides the domain.
#include <vector>

#include "models/workload/job_spec.hpp"

namespace aidcsim::workload {

struct Coord {
  int tp = 0, cp = 0, pp = 0, dp = 0;
};

class Placement {
 public:
  /// Throws aidcsim::Error for an unknown order.
  explicit Placement(const Parallelism& p);
  int gpu(const Coord& c) const;
  Coord coord(int gpu) const;
  int gpus() const { return p_.tp * p_.cp * p_.pp * p_.dp; }
  /// GPUs of the TP group / CP group / DP group (over DP and CP, as Megatron reduces gradients
  /// over both) / EP group (ep consecutive DP replicas) containing coordinate `c`.
  std::vector<int> tp_group(const Coord& c) const;
  std::vector<int> cp_group(const Coord& c) const;
  std::vector<int> dp_group(const Coord& c) const;
  std::vector<int> ep_group(const Coord& c) const;

 private:
  Parallelism p_;
  bool pp_inner_ = false;  ///< order tp,cp,pp,dp (else tp,cp,dp,pp)
};

}  // namespace aidcsim::workload
