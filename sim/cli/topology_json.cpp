#include "sim/cli/topology_json.hpp"

#include <cmath>
#include <nlohmann/json.hpp>

#include "models/common/units.hpp"
#include "models/common/version.hpp"
#include "models/network/fabric_limits.hpp"

namespace aidcsim::cli {
namespace {

using json = nlohmann::ordered_json;
using topology::Medium;

json number(double v) { return std::isfinite(v) ? json(v) : json(nullptr); }
double bits(double bytes_per_s) { return bytes_per_s * units::kBitsPerByte; }

// One priced line: count x each = total.
json bom_line(const std::string& part, const char* kind, long long count, double power, double price) {
  return {{"part", part},
          {"kind", kind},
          {"count", count},
          {"power_W_each", number(power)},
          {"price_USD_each", number(price)},
          {"power_W", number(power * static_cast<double>(count))},
          {"price_USD", number(price * static_cast<double>(count))}};
}

}  // namespace

std::string topology_json_text(const std::string& name, const std::string& file, const topology::Fabric& fabric,
                               const topology::FabricCost& c, const std::vector<std::string>& notes) {
  const topology::BillOfMaterials b = fabric.bom();
  const topology::FabricSpec& fs = fabric.spec();
  const auto& media = c.media;
  json doc;
  doc["format_version"] = kTopologyJsonFormatVersion;
  doc["aidcsim_version"] = version();
  doc["git_sha"] = git_sha();
  doc["scenario"] = {{"name", name}, {"file", file}};
  doc["fabric"] = {{"topology", fs.kind == topology::FabricKind::LeafSpine ? "leaf_spine" : "clos3"},
                   {"wiring", fs.wiring == topology::Wiring::RackLocal ? "rack_local" : "rail_optimized"},
                   {"gpus", b.gpus},
                   {"gpus_per_node", fs.gpus_per_node},
                   {"nvlink_domain", fs.nvlink_domain},
                   {"planes", fs.planes},
                   {"switch_radix_ports", fs.switch_radix},
                   {"link_rate_bit_per_s", number(bits(fs.link_rate))},
                   {"nic_rate_bit_per_s", number(bits(fs.nic_rate))},
                   {"tiers", b.tiers},
                   {"diameter_switches", b.diameter},
                   {"bisection_bandwidth_bit_per_s", number(bits(b.bisection_bandwidth))},
                   {"oversubscription_leaf", number(b.oversub_leaf)},
                   {"oversubscription_spine", b.oversub_spine > 0 ? number(b.oversub_spine) : json(nullptr)}};
  doc["switches"] = {{"nvlink_logical", b.nvswitches},
                     {"leaf", b.leaves},
                     {"spine", b.spines},
                     {"core", b.cores},
                     {"scale_out", b.switches}};
  const auto links_of = [&](Medium m) { return media[static_cast<int>(m)].links; };
  doc["links"] = {{"nvlink", b.nvlink_links},
                  {"access", b.access_links},
                  {"leaf_spine", b.leaf_spine_links},
                  {"spine_core", b.spine_core_links},
                  {"scale_out_cables", b.scaleout_cables},
                  {"copper_dac", links_of(Medium::Copper)},
                  {"optical", links_of(Medium::Multimode) + links_of(Medium::Singlemode)},
                  {"without_parts_at_their_rate", c.links_unpriced},
                  {"beyond_reach", c.links_beyond_reach}};
  doc["optical_modules"] = topology::optical_modules(c);
  doc["layout"] = {{"gpus_per_rack", c.gpus_per_rack},
                   {"compute_racks", c.compute_racks},
                   {"network_racks", c.network_racks},
                   {"rows", c.rows}};
  json ml = json::array();
  for (Medium m : {Medium::Copper, Medium::Multimode, Medium::Singlemode}) {
    const topology::MediumLinks& l = media[static_cast<int>(m)];
    ml.push_back({{"medium", topology::medium_name(m)},
                  {"links", l.links},
                  {"total_length_m", number(l.length)},
                  {"mean_length_m", number(l.links ? l.length / static_cast<double>(l.links) : 0.0)},
                  {"longest_m", number(l.longest)}});
  }
  doc["media"] = std::move(ml);
  // The brief's "Cables under 50 m" against the laid-out scale-out cables (run's check "longest
  // scale-out cable").
  const topology::LongCables over = topology::cables_at_or_over(c, network::FabricLimits{}.cable_length_max);
  json by_medium = json::object();
  for (Medium m : {Medium::Copper, Medium::Multimode, Medium::Singlemode})
    by_medium[topology::medium_name(m)] = over.by_medium[static_cast<int>(m)];
  doc["cable_limit"] = {
      {"limit_m", number(over.limit)},
      {"links_at_or_over", over.links},
      {"links_at_or_over_by_medium", std::move(by_medium)},
      {"longest_m", number(over.longest)},
      {"longest_link", over.longest_link >= 0 ? json(fabric.link(over.longest_link).name) : json(nullptr)}};
  // The priced lines, as the power and cost totals add them: switches, optics by part, NICs.
  json bom = json::array();
  if (!c.switch_model.empty()) {
    json sw = bom_line(c.switch_model, "switch", c.switches, c.switch_power, c.switch_price);
    sw["estimated"] = c.switch_estimated;
    bom.push_back(std::move(sw));
  }
  for (const auto& o : c.optics) {
    json line = bom_line(o.name, "optic", o.modules, o.power, o.price);
    line["medium"] = topology::medium_name(o.medium);
    line["form_factor"] = o.form_factor;
    line["ports_per_module"] = o.ports;
    line["rate_bit_per_s"] = number(bits(o.rate));
    line["end"] = o.switch_end ? "switch" : "nic";
    bom.push_back(std::move(line));
  }
  bom.push_back(bom_line("scale-out NIC", "nic", c.nics, c.nic_power, c.nic_price));
  doc["bom"] = std::move(bom);
  doc["switch_model_estimated"] = c.switch_estimated;
  const double gpus = c.nics > 0 ? static_cast<double>(c.nics) : NAN;
  doc["power_W"] = {{"switches", number(c.power_switches)},
                    {"optics", number(c.power_optics)},
                    {"nics", number(c.power_nics)},
                    {"total", number(c.power_total)},
                    {"per_gpu", number(c.power_total / gpus)}};
  doc["cost_USD"] = {{"switches", number(c.cost_switches)},
                     {"optics", number(c.cost_optics)},
                     {"nics", number(c.cost_nics)},
                     {"total", number(c.cost_total)},
                     {"per_gpu", number(c.cost_total / gpus)}};
  json all_notes = json::array();
  for (const auto& n : c.notes) all_notes.push_back(n);
  for (const auto& n : notes) all_notes.push_back(n);
  doc["notes"] = std::move(all_notes);
  doc["warnings"] = fabric.warnings();
  return doc.dump(2) + "\n";
}

}  // namespace aidcsim::cli
