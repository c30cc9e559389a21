#pragma once
// docs/scenario-reference.md, rendered from full_schema() so the page cannot drift from the
// validator. Regenerate after adding keys:
//   AIDCSIM_UPDATE_DOCS=1 build/bin/test_scenario "[reference]"
// (tests/unit/scenario/test_reference.cpp fails while the checked-in page is stale).
#include <string>

namespace aidcsim {

/// The whole reference page as Markdown: an introduction to the unit syntax (one row per quantity
/// kind: accepted spellings and the SI unit values are stored in), then every field of
/// full_schema() grouped by top-level section, with its key, kind, default, allowed range (in the
/// default's unit, autoscaled), choices, whether it is required, and its documentation line.
/// Deterministic: same schemas, same text.
std::string scenario_reference_markdown();

}  // namespace aidcsim
