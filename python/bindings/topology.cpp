// The fabric graph for Python (models/topology/fabric.hpp): build from scenario text, bill of
// materials, node/link tables as numpy-friendly lists, routes and ECMP path counts.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <sstream>

#include "models/common/errors.hpp"
#include "models/topology/bom_price.hpp"
#include "models/topology/fabric.hpp"
#include "python/bindings/bindings.hpp"
#include "python/bindings/convert.hpp"
#include "sim/scenario/scenario.hpp"

namespace aidcsim::bind {
namespace {

using topology::Fabric;

py::list hops_to_py(const Fabric& f, const std::vector<topology::Hop>& hops) {
  using namespace py::literals;
  py::list out;
  for (const auto& h : hops) {
    const auto& l = f.link(h.link);
    const auto& from = f.node(h.forward ? l.a : l.b);
    const auto& to = f.node(h.forward ? l.b : l.a);
    out.append(py::dict("link"_a = h.link, "name"_a = l.name, "tier"_a = topology::tier_name(l.tier),
                        "from"_a = from.name, "to"_a = to.name, "forward"_a = h.forward, "rate"_a = l.rate,
                        "latency"_a = l.latency));
  }
  return out;
}

void check_gpu(const Fabric& f, int gpu) {
  if (gpu < 0 || gpu >= f.gpu_count())
    throw py::index_error("GPU " + std::to_string(gpu) + " out of range [0, " + std::to_string(f.gpu_count()) + ")");
}

// What fail_switch accepts, per switch kind: count and first..last name ("32 spine: spine0.0 ..
// spine3.7"), for the error naming a bad switch.
std::string switch_names(const Fabric& f) {
  std::string out;
  for (auto kind :
       {topology::NodeKind::NvSwitch, topology::NodeKind::Leaf, topology::NodeKind::Spine, topology::NodeKind::Core}) {
    int count = 0;
    std::string first, last;
    for (int id = 0; id < f.node_count(); ++id) {
      const auto& n = f.node(id);
      if (n.kind != kind) continue;
      if (count++ == 0) first = n.name;
      last = n.name;
    }
    if (count == 0) continue;
    out += (out.empty() ? "" : ", ") + std::to_string(count) + " " + topology::kind_name(kind) + ": " + first +
           (count > 1 ? " .. " + last : "");
  }
  return "a switch of this fabric (" + (out.empty() ? std::string("none") : out) + ")";
}

}  // namespace

py::dict bom_to_py(const topology::BillOfMaterials& b) {
  using namespace py::literals;
  return py::dict(
      "gpus"_a = b.gpus, "nvswitches"_a = b.nvswitches, "leaves"_a = b.leaves, "spines"_a = b.spines,
      "cores"_a = b.cores, "switches"_a = b.switches, "nvlink_links"_a = b.nvlink_links,
      "access_links"_a = b.access_links, "leaf_spine_links"_a = b.leaf_spine_links,
      "spine_core_links"_a = b.spine_core_links, "scaleout_cables"_a = b.scaleout_cables,
      "copper_cables"_a = b.copper_cables, "bisection_bandwidth"_a = b.bisection_bandwidth, "diameter"_a = b.diameter,
      "tiers"_a = b.tiers, "oversub_leaf"_a = b.oversub_leaf,
      // no spine uplinks (2 tiers): None, where `aidcsim bom` and compare print "-"
      "oversub_spine"_a = b.oversub_spine > 0 ? py::object(py::float_(b.oversub_spine)) : py::object(py::none()));
}

// The module's topology bindings (long by nature: one .def per bound member).
void register_topology(py::module_& m) {
  using namespace py::literals;
  py::class_<Fabric>(m, "FabricCore", "C++ topology::Fabric; use aidcsim.Fabric.")
      .def_property_readonly("gpu_count", &Fabric::gpu_count)
      .def_property_readonly("node_count", &Fabric::node_count)
      .def_property_readonly("link_count", &Fabric::link_count)
      .def_property_readonly("warnings", &Fabric::warnings,
                             "What was built otherwise than asked (oversubscription, tiers), one sentence each.")
      .def(
          "nodes",
          [](const Fabric& f) {
            py::list kind, index, pod, name;
            for (int i = 0; i < f.node_count(); ++i) {
              const auto& n = f.node(i);
              kind.append(topology::kind_name(n.kind));
              index.append(n.index);
              pod.append(n.pod);
              name.append(n.name);
            }
            return py::dict("kind"_a = kind, "index"_a = index, "pod"_a = pod, "name"_a = name);
          },
          "Node table as columns: kind, index (within kind), pod, name; row = node id.")
      .def(
          "links",
          [](const Fabric& f) {
            py::list a, b, rate, latency, tier, name, up;
            for (int i = 0; i < f.link_count(); ++i) {
              const auto& l = f.link(i);
              a.append(f.node(l.a).name);
              b.append(f.node(l.b).name);
              rate.append(l.rate);
              latency.append(l.latency);
              tier.append(topology::tier_name(l.tier));
              name.append(l.name);
              up.append(l.up);
            }
            return py::dict("name"_a = name, "a"_a = a, "b"_a = b, "tier"_a = tier, "rate"_a = rate,
                            "latency"_a = latency, "up"_a = up);
          },
          "Link table as columns: name, a, b (node names, a = lower tier), tier, rate [B/s per "
          "direction], latency [s], up; row = link id.")
      .def(
          "bom", [](const Fabric& f) { return bom_to_py(f.bom()); },
          "Bill of materials (topology::BillOfMaterials): counts, bisection_bandwidth [B/s]; oversub_spine "
          "None without spine uplinks (2 tiers).")
      .def(
          "route",
          [](const Fabric& f, int src, int dst, std::uint64_t flow_hash) {
            check_gpu(f, src);
            check_gpu(f, dst);
            return hops_to_py(f, f.route(src, dst, flow_hash));
          },
          py::arg("src"), py::arg("dst"), py::arg("flow_hash") = 0,
          "ECMP route of one flow: list of hops {link, name, tier, from, to, forward, rate, latency}.")
      .def(
          "routes",
          [](const Fabric& f, int src, int dst, std::size_t limit) {
            check_gpu(f, src);
            check_gpu(f, dst);
            py::list out;
            for (const auto& r : f.routes(src, dst, limit)) out.append(hops_to_py(f, r));
            return out;
          },
          py::arg("src"), py::arg("dst"), py::arg("limit") = 1024)
      .def(
          "path_count",
          [](const Fabric& f, int src, int dst) {
            check_gpu(f, src);
            check_gpu(f, dst);
            return f.path_count(src, dst);
          },
          py::arg("src"), py::arg("dst"))
      .def("nvlink_domain_of",
           [](const Fabric& f, int gpu) {
             check_gpu(f, gpu);
             return f.nvlink_domain_of(gpu);
           })
      .def(
          "set_link_up",
          [](Fabric& f, const std::string& name, bool up) {
            auto ids = f.find_links(name);
            if (ids.empty())
              throw InvalidParameter("name", name,
                                     f.link_count() == 0 ? "a link of this fabric (it has none)"
                                                         : "a link of this fabric (" + std::to_string(f.link_count()) +
                                                               " links, e.g. " + f.link(f.link_count() - 1).name +
                                                               "; Fabric.links() lists them)");
            for (int id : ids) f.set_link_up(id, up);
            return ids.size();
          },
          py::arg("name"), py::arg("up"), "Fails (up=False) or restores every link named `name`.")
      .def(
          "fail_switch",
          [](Fabric& f, const std::string& name) {
            const int id = f.find_node(name);
            const auto kind = id < 0 ? topology::NodeKind::Gpu : f.node(id).kind;
            if (kind == topology::NodeKind::Gpu || kind == topology::NodeKind::Storage)
              throw InvalidParameter("name", name, switch_names(f));
            f.fail_switch(id);
          },
          py::arg("name"))
      .def("graphml",
           [](const Fabric& f) {
             std::ostringstream os;
             topology::write_graphml(f, os);
             return os.str();
           })
      .def("dot", [](const Fabric& f) {
        std::ostringstream os;
        topology::write_dot(f, os);
        return os.str();
      });

  m.def(
      "build_fabric",
      [](const std::string& text, const std::string& name) {
        Scenario s = load_scenario_text(text, name);
        try {
          return topology::build_fabric(s.fabric);
        } catch (const ScenarioError&) {
          throw;
        } catch (const InvalidParameter& e) {
          throw s.locate(e);
        }
      },
      py::arg("text"), py::arg("name") = "<string>",
      "Builds the fabric of scenario YAML `text`. Raises aidcsim.ScenarioError (bad scenario or a "
      "topology that cannot be built, at the key's file:line).");
  m.def(
      "fabric_cost",
      [](const std::string& text, const std::string& name) {
        Scenario s = load_scenario_text(text, name);
        topology::FabricCost c;
        std::string bom_text;
        try {
          const topology::Fabric f = topology::build_fabric(s.fabric);
          c = topology::price_fabric(f, s.bom);
          bom_text = topology::format_bom(f.bom(), c);
        } catch (const ScenarioError&) {
          throw;
        } catch (const InvalidParameter& e) {
          throw s.locate(e);
        }
        py::list optics;
        for (const auto& o : c.optics)
          optics.append(py::dict("name"_a = o.name, "medium"_a = topology::medium_name(o.medium), "rate"_a = o.rate,
                                 "ports"_a = o.ports, "form_factor"_a = o.form_factor,
                                 "end"_a = o.switch_end ? "switch" : "nic", "modules"_a = o.modules,
                                 "power"_a = o.power, "price"_a = o.price));
        py::dict d("switch_model"_a = c.switch_model, "switch_estimated"_a = c.switch_estimated,
                   "switches"_a = c.switches, "switch_power"_a = c.switch_power, "switch_price"_a = c.switch_price,
                   "nics"_a = c.nics, "nic_power"_a = c.nic_power, "nic_price"_a = c.nic_price,
                   "gpus_per_rack"_a = c.gpus_per_rack, "compute_racks"_a = c.compute_racks,
                   "network_racks"_a = c.network_racks, "rows"_a = c.rows,
                   "links_beyond_reach"_a = c.links_beyond_reach, "links_unpriced"_a = c.links_unpriced,
                   "optics"_a = optics, "power_switches"_a = c.power_switches, "power_optics"_a = c.power_optics,
                   "power_nics"_a = c.power_nics, "power_total"_a = c.power_total, "cost_switches"_a = c.cost_switches,
                   "cost_optics"_a = c.cost_optics, "cost_nics"_a = c.cost_nics, "cost_total"_a = c.cost_total,
                   "notes"_a = c.notes, "text"_a = topology::format_fabric_cost(c), "bom_text"_a = bom_text);
        for (topology::Medium med :
             {topology::Medium::Copper, topology::Medium::Multimode, topology::Medium::Singlemode}) {
          const auto& ml = c.media[static_cast<int>(med)];
          const std::string k = topology::medium_name(med);
          d[py::str("links_" + k)] = ml.links;
          d[py::str("cable_length_" + k)] = ml.length;
          d[py::str("longest_" + k)] = ml.longest;
        }
        return d;
      },
      py::arg("text"), py::arg("name") = "<string>",
      "Priced bill of materials of scenario YAML `text` (topology::price_fabric): media, optics by part, "
      "power [W], INDICATIVE cost [USD], notes. Raises aidcsim.ScenarioError.");
}

}  // namespace aidcsim::bind
