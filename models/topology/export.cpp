// GraphML and Graphviz DOT export of a fabric with Boost.Graph's writers.
#include <boost/graph/graphml.hpp>
#include <boost/graph/graphviz.hpp>
#include <boost/property_map/dynamic_property_map.hpp>
#include <boost/property_map/function_property_map.hpp>
#include <ostream>

#include "models/topology/fabric_impl.hpp"

namespace aidcsim::topology {
namespace {

/// Reads a node attribute by vertex id.
template <class F>
auto node_map(const Fabric& f, F fn) {
  return boost::make_function_property_map<Graph::vertex_descriptor>(
      [&f, fn](Graph::vertex_descriptor v) { return fn(f.node(static_cast<int>(v))); });
}

}  // namespace

void write_graphml(const Fabric& f, std::ostream& os) {
  Graph g(f.node_count());
  for (int id = 0; id < f.link_count(); ++id) boost::add_edge(f.link(id).a, f.link(id).b, EdgeProp{id}, g);
  boost::dynamic_properties dp;
  dp.property("name", node_map(f, [](const Node& n) { return n.name; }));
  dp.property("kind", node_map(f, [](const Node& n) { return std::string(kind_name(n.kind)); }));
  dp.property("pod", node_map(f, [](const Node& n) { return n.pod; }));
  auto edge = [&](auto fn) {
    return boost::make_function_property_map<Graph::edge_descriptor>(
        [&g, &f, fn](Graph::edge_descriptor e) { return fn(f.link(g[e].link)); });
  };
  dp.property("name", edge([](const Link& l) { return l.name; }));
  dp.property("tier", edge([](const Link& l) { return std::string(tier_name(l.tier)); }));
  dp.property("rate", edge([](const Link& l) { return l.rate; }));
  dp.property("latency", edge([](const Link& l) { return l.latency; }));
  dp.property("up", edge([](const Link& l) { return l.up; }));
  boost::write_graphml(os, g, dp, true);
}

void write_dot(const Fabric& f, std::ostream& os) {
  Graph g(f.node_count());
  for (int id = 0; id < f.link_count(); ++id) boost::add_edge(f.link(id).a, f.link(id).b, EdgeProp{id}, g);
  boost::dynamic_properties dp;
  dp.property("node_id", node_map(f, [](const Node& n) { return n.name; }));
  dp.property("label", boost::make_function_property_map<Graph::edge_descriptor>([&g, &f](Graph::edge_descriptor e) {
                const Link& l = f.link(g[e].link);
                return std::string(tier_name(l.tier)) + (l.up ? "" : " (down)");
              }));
  boost::write_graphviz_dp(os, g, dp);
}

}  // namespace aidcsim::topology
