// pump_failure: `pumps` running pumps (the scenario's magnitude, default 1) of each targeted CDU
// stop at once; a standby pump, while any is left, takes over for each after pumps.failover_time
// (the VFD holds design flow while the running capacity allows); each failed pump, once repaired,
// becomes a standby again (or runs, if none took over for it). Judged by the brief's failover rule:
// loop flow back at design within limits.failover_max.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <memory>

#include "models/thermal/faults/fault_type.hpp"
#include "models/thermal/transient.hpp"

namespace aidcsim::thermal {
namespace {

void schedule(FaultState& st, const FaultSpec& f, const std::vector<int>& cs) {
  // Per CDU: pumps this fault stopped, and how many of them a standby replaced.
  auto failed = std::make_shared<std::vector<int>>(st.running.size(), 0);
  auto replaced = std::make_shared<std::vector<int>>(st.running.size(), 0);
  const int pumps = f.pumps;
  st.events.emplace(f.at, [&st, cs, failed, replaced, pumps](double t) {
    for (int c : cs) {
      (*failed)[c] = std::min(pumps, st.running[c]);
      st.running[c] -= (*failed)[c];
      (*replaced)[c] = std::min((*failed)[c], st.spare[c]);
      st.spare[c] -= (*replaced)[c];
      if ((*replaced)[c] > 0) {
        const int n = (*replaced)[c];
        st.events.emplace(t + st.spec.pumps.failover_time, [&st, c, n](double t2) {
          st.running[c] += n;
          st.changed = true;
          st.log(t2, "info", "pump",
                 n == 1 ? fmt::format("CDU {}: standby pump took over", c)
                        : fmt::format("CDU {}: {} standby pumps took over", c, n),
                 0, 0);
        });
      }
    }
    st.changed = true;
    const int lost = (*failed)[cs[0]], spares = (*replaced)[cs[0]];
    st.log(t, "warning", "fault",
           fmt::format("{} on {} CDU(s){}",
                       lost == 1 ? std::string("pump failure") : fmt::format("{} pumps failed", lost), cs.size(),
                       lost == 0        ? ", no running pump left"
                       : spares == lost ? ", standby starting"
                       : spares > 0     ? fmt::format(", {} standby starting", spares)
                                        : ", no standby"),
           0, 0);
  });
  const double end = f.at + f.duration;
  if (std::isfinite(end))
    st.events.emplace(end, [&st, cs, failed, replaced](double t) {
      for (int c : cs) {
        st.spare[c] += (*replaced)[c];
        st.running[c] += (*failed)[c] - (*replaced)[c];
      }
      st.changed = true;
      st.log(t, "info", "fault", "failed pump repaired", 0, 0);
    });
}

std::string where(const FaultSpec& f) {
  return (f.pumps == 1 ? std::string() : fmt::format(" of {} pumps", f.pumps)) + on_target(f, "CDU");
}

std::optional<ChecklistItem> rule(const CoolingSpec& spec, const TransientResult& r) {
  const auto& lim = spec.limits;
  return limit_below("pump failover (loop flow back at design)", r.flow_deficit_time, lim.failover_max, "s",
                     fmt::format("loop flow below design for {:.0f} s (brief: standby takes over in < {:.0f} s; "
                                 "{} standby pump(s) per CDU)",
                                 r.flow_deficit_time, lim.failover_max, spec.pumps.spare));
}

}  // namespace

FaultType pump_failure_type() {
  return {"pump_failure",
          "magnitude (default 1) running pumps of a CDU stop (a standby takes over for each, while any is left, "
          "after failover_time)",
          FaultTarget::Cdu,
          true,
          false,
          schedule,
          where,
          rule};
}

}  // namespace aidcsim::thermal
