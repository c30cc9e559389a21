// cdu_loss: the targeted CDUs lose their heat exchange for the fault's duration. The brief's
// fallback: auxiliary air cooling (air_fallback) engages after its switch time if it is configured
// and the loss lasts longer than that. Judged by the brief's rule: training interrupted for less
// than limits.interruption_max.
#include <fmt/format.h>

#include "models/thermal/faults/fault_type.hpp"
#include "models/thermal/transient.hpp"

namespace aidcsim::thermal {
namespace {

void schedule(FaultState& st, const FaultSpec& f, const std::vector<int>& cs) {
  st.events.emplace(f.at, [&st, cs](double t) {
    for (int c : cs) st.cond.cdu_lost[c] = 1;
    st.changed = true;
    st.log(t, "critical", "fault", fmt::format("CDU heat exchange lost on {} CDU(s)", cs.size()), 0, 0);
  });
  const auto& air = st.spec.air_fallback;
  if (air.capacity_per_rack > 0 && air.switch_time < f.duration)
    st.events.emplace(f.at + air.switch_time, [&st, cs](double t) {
      for (int c : cs) st.cond.air_fallback[c] = 1;
      st.changed = true;
      st.log(t, "warning", "fault", fmt::format("auxiliary air cooling engaged on {} CDU(s)", cs.size()), 0, 0);
    });
  st.events.emplace(f.at + f.duration, [&st, cs](double t) {
    for (int c : cs) st.cond.cdu_lost[c] = 0, st.cond.air_fallback[c] = 0;
    st.changed = true;
    st.log(t, "info", "fault", "CDU restored", 0, 0);
  });
}

std::string where(const FaultSpec& f) { return on_target(f, "CDU"); }

std::optional<ChecklistItem> rule(const CoolingSpec& spec, const TransientResult& r) {
  const auto& lim = spec.limits;
  return limit_below("training interruption (liquid cooling lost)", r.halted_time, lim.interruption_max, "s",
                     fmt::format("job halted {:.0f} s (brief: fall back to air with an interruption < {:.0f} s; "
                                 "air fallback {:.0f} kW/rack after {:.0f} s)",
                                 r.halted_time, lim.interruption_max, spec.air_fallback.capacity_per_rack / 1e3,
                                 spec.air_fallback.switch_time));
}

}  // namespace

FaultType cdu_loss_type() {
  return {"cdu_loss",
          "the CDU's heat exchange to facility water stops (auxiliary air takes over after air_fallback.switch_time)",
          FaultTarget::Cdu,
          true,
          false,
          schedule,
          where,
          rule};
}

}  // namespace aidcsim::thermal
