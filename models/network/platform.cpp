// The SimGrid platform of a fabric: one parentless routing zone per fabric structure, recycled
// across FlowNetworks (SimGrid 3.32 cannot remove hosts or links), and the process-wide engine
// configuration. Why a custom zone and zero-latency routes: see flow_network.cpp.
#include <xbt/log.h>

#include <cstring>
#include <string>

#include "models/common/errors.hpp"
#include "models/network/flow_network_internal.hpp"

namespace aidcsim::network {
namespace detail {

std::vector<std::unique_ptr<ZoneEntry>>& registry() {
  static std::vector<std::unique_ptr<ZoneEntry>> r;  // zones live as long as the engine (process)
  return r;
}

std::uint64_t fingerprint(const Fabric& f) {
  std::uint64_t h = 1469598103934665603ull;
  auto mix = [&h](std::uint64_t v) {
    for (int i = 0; i < 8; ++i) {
      h ^= (v >> (8 * i)) & 0xff;
      h *= 1099511628211ull;
    }
  };
  mix(static_cast<std::uint64_t>(f.gpu_count()));
  mix(static_cast<std::uint64_t>(f.node_count()));
  mix(static_cast<std::uint64_t>(f.link_count()));
  for (int l = 0; l < f.link_count(); ++l) {
    const auto& k = f.link(l);
    mix(static_cast<std::uint64_t>(k.a));
    mix(static_cast<std::uint64_t>(k.b));
    std::uint64_t bits;
    static_assert(sizeof(bits) == sizeof(k.latency));
    std::memcpy(&bits, &k.latency, sizeof(bits));
    mix(bits);
  }
  return h;
}

ZoneEntry* build_zone(const Fabric& f, std::uint64_t fp) {
  static int counter = 0;
  const int id = counter++;
  std::string prefix = "f" + std::to_string(id);
  prefix += '.';  // appended separately: GCC 12 warns (-Wrestrict) on "f" + s + "." (a false positive)
  auto e = std::make_unique<ZoneEntry>();
  e->fingerprint = fp;
  auto* zone = new FabricZone("aidcsim.fabric" + std::to_string(id));
  // Parentless zone (the root is sealed by the first Engine::run, so it cannot take children
  // afterwards); routes never leave the zone, so SimGrid's common-ancestor search stops here.
  auto* root = sg::Engine::get_instance()->get_netzone_root()->get_impl();
  zone->set_network_model(root->get_network_model());
  zone->set_cpu_pm_model(root->get_cpu_pm_model());
  zone->set_cpu_vm_model(root->get_cpu_vm_model());
  zone->set_disk_model(root->get_disk_model());
  zone->set_host_model(root->get_host_model());
  sg::NetZone* iface = zone->get_iface();
  e->hosts.reserve(f.gpu_count());
  for (int g = 0; g < f.gpu_count(); ++g) {
    sg::Host* h = iface->create_host(prefix + "gpu" + std::to_string(g), kRefSpeed);
    h->seal();
    if (h->get_netpoint()->id() != static_cast<unsigned long>(g))
      throw SimulationError("network: SimGrid netpoint ids do not follow GPU ranks");
    e->hosts.push_back(h);
    e->mailboxes.push_back(sg::Mailbox::by_name(prefix + "mb" + std::to_string(g)));
  }
  e->sink = iface->create_host(prefix + "sink", kRefSpeed);
  e->sink->seal();
  const int L = f.link_count();
  e->up.resize(L);
  e->down.resize(L);
  e->applied_rate.resize(L);
  zone->fwd.resize(L);
  zone->rev.resize(L);
  for (int l = 0; l < L; ++l) {
    const auto& k = f.link(l);
    sg::SplitDuplexLink* link = iface->create_split_duplex_link(prefix + "l" + std::to_string(l), k.rate);
    link->set_latency(k.latency);  // informative only: routes carry zero latency (see top)
    link->seal();
    e->up[l] = link->get_link_up();
    e->down[l] = link->get_link_down();
    e->applied_rate[l] = k.rate;
    zone->fwd[l] = e->up[l]->get_impl();
    zone->rev[l] = e->down[l]->get_impl();
  }
  zone->seal();
  e->zone = zone;
  registry().push_back(std::move(e));
  return registry().back().get();
}

}  // namespace detail

namespace sg = simgrid::s4u;

void init_simgrid() {
  if (sg::Engine::has_instance()) return;
  xbt_log_control_set("root.thresh:critical");
  static sg::Engine* engine = new sg::Engine("aidcsim");  // process singleton, never destroyed
  (void)engine;
  sg::Engine::set_config("network/model:CM02");
  sg::Engine::set_config("network/crosstraffic:0");
  sg::Engine::set_config("network/TCP-gamma:0");
  sg::Engine::set_config("contexts/stack-size:16");
  sg::Engine::set_config("contexts/guard-size:0");
  // Extra SimGrid options for experiments, e.g. AIDCSIM_SIMGRID_CFG="network/optim:Full;...".
  if (const char* extra = std::getenv("AIDCSIM_SIMGRID_CFG")) {
    std::string all(extra);
    for (std::size_t p = 0; p <= all.size();) {
      const std::size_t q = std::min(all.find(';', p), all.size());
      if (q > p) sg::Engine::set_config(all.substr(p, q - p));
      p = q + 1;
    }
  }
  // The first zone becomes the root and instantiates the models from the configuration above.
  sg::create_empty_zone("aidcsim")->seal();
}

}  // namespace aidcsim::network
