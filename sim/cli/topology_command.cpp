// `aidcsim topology [SCENARIO] [--graphml FILE] [--dot FILE]`: builds the scenario's fabric and
// prints its bill of materials (switches, links, optics, bisection bandwidth); optionally exports
// the graph for Gephi/yEd (GraphML) or Graphviz (DOT).
#include <fstream>
#include <optional>
#include <iostream>
#include <memory>

#include "models/common/errors.hpp"
#include "models/topology/fabric.hpp"
#include "sim/cli/commands.hpp"
#include "sim/results/atomic_file_writer.hpp"

namespace aidcsim::cli {
namespace {

struct TopologyArgs {
  std::string scenario, graphml, dot;
};

void write_text(const std::string& path, const std::function<void(std::ostream&)>& body) {
  write_atomically(path, [&](const std::string& tmp) {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) throw Error("cannot open '" + tmp + "' for writing");
    body(out);
    out.close();
    if (!out) throw Error("error writing '" + tmp + "'");
  });
}

int topology(const TopologyArgs& a) {
  return guarded([&] {
    const Scenario s = load_scenario_or_default(a.scenario);
    if (!a.graphml.empty()) check_writable_path(a.graphml);
    if (!a.dot.empty()) check_writable_path(a.dot);
    std::optional<topology::Fabric> fabric;
    try {
      fabric.emplace(topology::build_fabric(s.fabric));
    } catch (const ScenarioError&) {
      throw;
    } catch (const InvalidParameter& e) {
      throw s.locate(e);
    }
    for (const auto& w : fabric->warnings()) std::cerr << "aidcsim: warning: " << w << "\n";
    std::cout << topology::format_bom(fabric->bom());
    if (!a.graphml.empty()) write_text(a.graphml, [&](std::ostream& os) { topology::write_graphml(*fabric, os); });
    if (!a.dot.empty()) write_text(a.dot, [&](std::ostream& os) { topology::write_dot(*fabric, os); });
    return kExitOk;
  });
}

}  // namespace

void add_topology_command(CLI::App& app, Action& action) {
  auto args = std::make_shared<TopologyArgs>();
  CLI::App* sub = app.add_subcommand("topology", "Build a scenario's fabric and print its bill of materials");
  sub->add_option("scenario", args->scenario, "Scenario YAML file (default: the built-in stargate-uk-8k)");
  sub->add_option("--graphml", args->graphml, "Write the fabric graph as GraphML");
  sub->add_option("--dot", args->dot, "Write the fabric graph as Graphviz DOT");
  sub->callback([args, &action] { action = [args] { return topology(*args); }; });
}

}  // namespace aidcsim::cli
