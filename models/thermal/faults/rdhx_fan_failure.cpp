// rdhx_fan_failure: the rack cooler's fans (rear door or in-row) of the targeted racks stop for the
// fault's duration; the rack's exhaust then reaches the hall uncooled.
#include <fmt/format.h>

#include "models/thermal/faults/fault_type.hpp"

namespace aidcsim::thermal {
namespace {

void schedule(FaultState& st, const FaultSpec& f, const std::vector<int>& rs) {
  st.events.emplace(f.at, [&st, rs](double t) {
    for (int r : rs) st.cond.rdhx_fans_ok[r] = 0;
    st.changed = true;
    st.log(t, "warning", "fault", fmt::format("rack-cooler fans failed on {} rack(s)", rs.size()), 0, 0);
  });
  st.events.emplace(f.at + f.duration, [&st, rs](double t) {
    for (int r : rs) st.cond.rdhx_fans_ok[r] = 1;
    st.changed = true;
    st.log(t, "info", "fault", "rack-cooler fans restored", 0, 0);
  });
}

std::string where(const FaultSpec& f) { return on_target(f, "rack"); }

}  // namespace

FaultType rdhx_fan_failure_type() {
  return {"rdhx_fan_failure",
          "the fans of a rack's cooler (rear door, or its in-row unit) stop",
          FaultTarget::Rack,
          false,
          true,
          schedule,
          where,
          nullptr};
}

}  // namespace aidcsim::thermal
