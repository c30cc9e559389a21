#pragma once
// `aidcsim topology --json`: what the command prints (structure, layout, media, optics, switch,
// NICs, power, indicative cost, notes), for scripts. Units are in the key names, SI throughout
// (bit_per_s, m, W, USD), except counts.
//
// {"format_version": "1", "aidcsim_version", "git_sha",
//  "scenario": {"name", "file"},
//  "fabric": {"topology": "clos3" | "leaf_spine", "wiring", "gpus", "gpus_per_node", "nvlink_domain",
//             "planes", "switch_radix_ports", "link_rate_bit_per_s", "nic_rate_bit_per_s", "tiers",
//             "diameter_switches", "bisection_bandwidth_bit_per_s" (one direction),
//             "oversubscription_leaf", "oversubscription_spine" (as built; null without a core tier)},
//  "switches": {"nvlink_logical", "leaf", "spine", "core", "scale_out"},
//  "links": {"nvlink", "access", "leaf_spine", "spine_core", "scale_out_cables", "copper_dac",
//            "optical", "without_parts_at_their_rate", "beyond_reach"},
//  "optical_modules",
//  "layout": {"gpus_per_rack", "compute_racks", "network_racks", "rows"},
//  "media": [{"medium", "links", "total_length_m", "mean_length_m", "longest_m"}, ...],
//  "cable_limit": {"limit_m", "links_at_or_over", "links_at_or_over_by_medium": {medium: n},
//                  "longest_m", "longest_link"},   // the brief's "Cables under 50 m"
//  "bom": [{"part", "kind": "switch" | "optic" | "nic", "count", "power_W_each", "price_USD_each",
//           "power_W", "price_USD", ...part fields}, ...],
//  "switch_model_estimated": bool,
//  "power_W": {"switches", "optics", "nics", "total", "per_gpu"},
//  "cost_USD": {"switches", "optics", "nics", "total", "per_gpu"},   // indicative
//  "notes": [...], "warnings": [...]}   // warnings: the fabric built otherwise than asked
// A non-finite number is written as null.
#include <string>
#include <vector>

#include "models/topology/bom_price.hpp"
#include "models/topology/fabric.hpp"

namespace aidcsim::cli {

/// Version of the layout above.
inline constexpr const char* kTopologyJsonFormatVersion = "1";

/// The JSON text above (indented by 2, final newline) of `fabric` priced as `cost`, for the scenario
/// `name` read from `file` (empty: the built-in default). `notes` follow cost.notes (the command's
/// own, e.g. the rollout note).
std::string topology_json_text(const std::string& name, const std::string& file, const topology::Fabric& fabric,
                               const topology::FabricCost& cost, const std::vector<std::string>& notes);

}  // namespace aidcsim::cli
