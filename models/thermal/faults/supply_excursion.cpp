// supply_excursion: the facility water supply rises by `magnitude` for the fault's duration (on top
// of the daily outdoor cycle, if any).
#include <fmt/format.h>

#include "models/thermal/faults/fault_type.hpp"

namespace aidcsim::thermal {
namespace {

void schedule(FaultState& st, const FaultSpec& f, const std::vector<int>&) {
  st.events.emplace(f.at, [&st, f](double t) {
    st.cond.facility_supply += f.magnitude;
    st.excursion += f.magnitude;
    st.changed = true;
    st.log(t, "warning", "fault", fmt::format("facility supply +{:.1f} K", f.magnitude), st.cond.facility_supply, 0);
  });
  st.events.emplace(f.at + f.duration, [&st, f](double t) {
    st.cond.facility_supply -= f.magnitude;
    st.excursion -= f.magnitude;
    st.changed = true;
    st.log(t, "info", "fault", "facility supply back to set point", st.cond.facility_supply, 0);
  });
}

std::string where(const FaultSpec& f) { return fmt::format(" of +{:g} K", f.magnitude); }

}  // namespace

FaultType supply_excursion_type() {
  return {"supply_excursion",
          "facility supply rises by magnitude (heat wave)",
          FaultTarget::None,
          false,
          false,
          schedule,
          where,
          nullptr};
}

}  // namespace aidcsim::thermal
