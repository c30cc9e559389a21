#pragma once
// Console writer: the human-readable summary `aidcsim run` prints on stdout. Generic over the
// Results: every summary Scalar is printed (key, value, unit, description) in the engine's order,
// grouped under a heading when keys carry a dotted prefix ("network.max_link_utilization" goes
// under "network"); then the checklist with pass/fail and headroom; then the notes.
#include <string>

#include "models/common/results.hpp"

namespace aidcsim {

/// A number as a person reads it: integers with thousands separators ("8,064"), 4 significant
/// digits without exponent between 1e-3 and 1e5 ("12.35", "0.1234"), thousands separators and no
/// decimals up to 1e15 ("14,680,064"), otherwise scientific ("1.235e+18"); "n/a" for NaN,
/// "inf"/"-inf" for infinities.
std::string format_figure(double value);

/// The whole summary as text (lines end in '\n'; UTF-8; no terminal colour codes).
std::string format_console_summary(const Results& results);

}  // namespace aidcsim
