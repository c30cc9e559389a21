// `aidcsim topology [SCENARIO] [--set KEY=VALUE]... [--json FILE] [--graphml FILE] [--dot FILE]`: builds the
// scenario's fabric and prints its bill of materials (switches, links, bisection bandwidth) and its
// priced BOM (cable lengths, optics by reach and part, power, indicative cost); optionally writes
// the same as JSON for scripts (sim/cli/topology_json.hpp) and exports the graph for Gephi/yEd
// (GraphML) or Graphviz (DOT). The files are written as one set (sim/results/output_set.hpp).
#include <cstdio>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>

#include "models/common/errors.hpp"
#include "models/network/fabric_limits.hpp"
#include "models/topology/bom_price.hpp"
#include "models/topology/fabric.hpp"
#include "sim/cli/commands.hpp"
#include "sim/cli/topology_json.hpp"
#include "sim/results/output_set.hpp"

namespace aidcsim::cli {
namespace {

struct TopologyArgs {
  std::string scenario, json, graphml, dot;
  std::vector<std::string> set_texts;  ///< --set KEY=VALUE as typed
  std::vector<Override> overrides;
};

/// The brief's cable limit ("Cables under 50 m", network::FabricLimits) against the laid-out
/// scale-out cables, as `run`'s check "longest scale-out cable" judges it.
std::string long_cables_note(const topology::LongCables& over, const topology::Fabric& fabric) {
  std::string media;
  for (topology::Medium m : {topology::Medium::Singlemode, topology::Medium::Multimode, topology::Medium::Copper})
    if (over.by_medium[static_cast<int>(m)] > 0)
      media += (media.empty() ? "" : ", ") + std::to_string(over.by_medium[static_cast<int>(m)]) + " " +
               topology::medium_name(m);
  char limit[32], longest[32];
  std::snprintf(limit, sizeof limit, "%.0f m", over.limit);
  std::snprintf(longest, sizeof longest, "%.1f m", over.longest);
  return std::to_string(over.links) + " scale-out cables are not under the brief's " + limit + " (\"Cables under " +
         limit + "\"): " + media + "; the longest " + longest + " (" + fabric.link(over.longest_link).name +
         "); `aidcsim run` fails its check 'longest scale-out cable' (lengths from the layout model, bom.layout)";
}

std::string text_of(const std::function<void(std::ostream&)>& body) {
  std::ostringstream os;
  body(os);
  return os.str();
}

int topology(const TopologyArgs& a) {
  return guarded([&] {
    const Scenario s = load_scenario_or_default(a.scenario, a.overrides);
    OutputSet outputs;  // paths checked before the fabric is built; every file or none
    const std::size_t js = a.json.empty() ? 0 : outputs.add(a.json);
    const std::size_t gml = a.graphml.empty() ? 0 : outputs.add(a.graphml);
    const std::size_t dot = a.dot.empty() ? 0 : outputs.add(a.dot);
    std::optional<topology::Fabric> fabric;
    try {
      fabric.emplace(topology::build_fabric(s.fabric));
    } catch (const ScenarioError&) {
      throw;
    } catch (const InvalidParameter& e) {
      throw s.locate(e);
    }
    for (const auto& w : fabric->warnings()) std::cerr << "aidcsim: warning: " << w << "\n";
    std::ostream& out = outputs.uses_stdout() ? std::cerr : std::cout;
    const topology::FabricCost cost = topology::price_fabric(*fabric, s.bom);
    out << topology::format_bom(fabric->bom(), cost) << "\n" << topology::format_fabric_cost(cost);
    // A rollout grows the fabric: this is cluster.gpus's, `run` reports the last phase's.
    std::vector<std::string> notes;
    const topology::LongCables over = topology::cables_at_or_over(cost, network::FabricLimits{}.cable_length_max);
    if (over.links > 0) notes.push_back(long_cables_note(over, *fabric));
    if (!s.training.phases.empty()) {
      std::string list;
      for (const auto& p : s.training.phases)
        list += (list.empty() ? "" : ", ") + (p.name.empty() ? p.key : p.name) + " " + std::to_string(p.gpus);
      notes.push_back("the fabric of cluster.gpus (" + std::to_string(s.fabric.gpus) +
                      " GPUs); the scenario's rollout.phases grow it (" + list +
                      " GPUs), and `aidcsim run` reports the last phase's fabric and bill of materials");
    }
    for (const auto& n : notes) out << "  note: " << n << "\n";
    if (!a.json.empty()) outputs.set_content(js, topology_json_text(s.name, s.file, *fabric, cost, notes));
    if (!a.graphml.empty())
      outputs.set_content(gml, text_of([&](std::ostream& os) { topology::write_graphml(*fabric, os); }));
    if (!a.dot.empty()) outputs.set_content(dot, text_of([&](std::ostream& os) { topology::write_dot(*fabric, os); }));
    outputs.commit();
    return kExitOk;
  });
}

}  // namespace

void add_topology_command(CLI::App& app, Action& action) {
  auto args = std::make_shared<TopologyArgs>();
  CLI::App* sub = app.add_subcommand("topology", "Build a scenario's fabric and print its bill of materials");
  sub->add_option("scenario", args->scenario, "Scenario YAML file (default: the built-in stargate-uk-8k)");
  add_set_option(sub, args->set_texts);
  CLI::Option* json = sub->add_option(
      "--json", args->json, "Write the bill of materials, priced BOM and notes as JSON ('-': standard output)");
  sub->add_option("--graphml", args->graphml, "Write the fabric graph as GraphML");
  sub->add_option("--dot", args->dot, "Write the fabric graph as Graphviz DOT");
  sub->callback([args, json, &action] {
    if (json->count() > 0 && args->json.empty()) throw CLI::ValidationError("--json", "the path is empty");
    // `topology --json mine.yaml` (the scenario after an option taking a path) would replace it.
    refuse_output_over_input("--json", args->json, args->scenario, "topology", "topology.json");
    refuse_output_over_input("--graphml", args->graphml, args->scenario, "topology", "fabric.graphml");
    refuse_output_over_input("--dot", args->dot, args->scenario, "topology", "fabric.dot");
    // A swapped option wrote one format under the other's name (`--dot fabric.graphml`).
    if (ends_with_any(args->graphml, {".dot", ".gv"}))
      throw CLI::ValidationError(
          "--graphml", "'" + args->graphml + "': --graphml writes GraphML; for DOT use --dot " + args->graphml);
    if (ends_with_any(args->dot, {".graphml", ".xml"}))
      throw CLI::ValidationError(
          "--dot", "'" + args->dot + "': --dot writes Graphviz DOT; for GraphML use --graphml " + args->dot);
    if (ends_with_any(args->json, {".graphml", ".xml", ".dot", ".gv"}))
      throw CLI::ValidationError("--json",
                                 "'" + args->json + "': --json writes JSON; for the graph use --graphml or --dot");
    args->overrides = parse_set_options(args->set_texts);
    action = [args] { return topology(*args); };
  });
}

}  // namespace aidcsim::cli
