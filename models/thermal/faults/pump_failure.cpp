// pump_failure: one running pump of each targeted CDU stops; a standby pump, if any, takes over
// after pumps.failover_time (the VFD holds design flow while the running capacity allows); the
// failed pump, once repaired, becomes the standby again (or runs, if none took over). Judged by the
// brief's failover rule: loop flow back at design within limits.failover_max.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <memory>

#include "models/thermal/faults/fault_type.hpp"
#include "models/thermal/transient.hpp"

namespace aidcsim::thermal {
namespace {

void schedule(FaultState& st, const FaultSpec& f, const std::vector<int>& cs) {
  auto replaced = std::make_shared<std::vector<char>>(st.running.size(), 0);
  st.events.emplace(f.at, [&st, cs, replaced](double t) {
    for (int c : cs) {
      st.running[c] = std::max(0, st.running[c] - 1);
      if (st.spare[c] > 0) {
        --st.spare[c];
        (*replaced)[c] = 1;
        st.events.emplace(t + st.spec.pumps.failover_time, [&st, c](double t2) {
          ++st.running[c];
          st.changed = true;
          st.log(t2, "info", "pump", fmt::format("CDU {}: standby pump took over", c), 0, 0);
        });
      }
    }
    st.changed = true;
    st.log(t, "warning", "fault",
           fmt::format("pump failure on {} CDU(s){}", cs.size(),
                       (*replaced)[cs[0]] ? ", standby starting" : ", no standby"),
           0, 0);
  });
  const double end = f.at + f.duration;
  if (std::isfinite(end))
    st.events.emplace(end, [&st, cs, replaced](double t) {
      for (int c : cs) ((*replaced)[c] ? st.spare[c] : st.running[c]) += 1;
      st.changed = true;
      st.log(t, "info", "fault", "failed pump repaired", 0, 0);
    });
}

std::string where(const FaultSpec& f) { return on_target(f, "CDU"); }

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
          "one running pump of a CDU stops (standby takes over after failover_time)",
          FaultTarget::Cdu,
          true,
          false,
          schedule,
          where,
          rule};
}

}  // namespace aidcsim::thermal
