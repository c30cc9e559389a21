// Fabric accessors, name lookup and failures (link down, switch down, degraded rate).
#include <algorithm>
#include <boost/graph/adjacency_list.hpp>
#include <stdexcept>

#include "models/common/errors.hpp"
#include "models/topology/fabric_impl.hpp"

namespace aidcsim::topology {

const char* tier_name(Tier t) {
  switch (t) {
    case Tier::NvLink:
      return "nvlink";
    case Tier::Access:
      return "access";
    case Tier::LeafSpine:
      return "leaf_spine";
    case Tier::SpineCore:
      return "spine_core";
  }
  return "?";
}

const char* kind_name(NodeKind k) {
  switch (k) {
    case NodeKind::Gpu:
      return "gpu";
    case NodeKind::NvSwitch:
      return "nvswitch";
    case NodeKind::Leaf:
      return "leaf";
    case NodeKind::Spine:
      return "spine";
    case NodeKind::Core:
      return "core";
    case NodeKind::Storage:
      return "storage";
  }
  return "?";
}

Fabric::Fabric(std::shared_ptr<Impl> impl) : impl_(std::move(impl)) {}

int Fabric::gpu_count() const { return impl_->spec.gpus; }
int Fabric::node_count() const { return impl_->n_nodes; }
int Fabric::link_count() const { return static_cast<int>(impl_->links.size() + impl_->side_links.size()); }
const Node& Fabric::node(int id) const { return impl_->nodes.at(id); }
const Link& Fabric::link(int id) const {
  const std::size_t n = impl_->links.size();
  return id >= 0 && static_cast<std::size_t>(id) >= n ? impl_->side_links.at(id - n) : impl_->links.at(id);
}
const FabricSpec& Fabric::spec() const { return impl_->spec; }
const Layout& Fabric::layout() const { return impl_->layout; }
const std::vector<std::string>& Fabric::warnings() const { return impl_->warnings; }

static void check_gpu(const Fabric::Impl& f, int gpu) {
  if (gpu < 0 || gpu >= f.spec.gpus)
    throw std::out_of_range("GPU rank " + std::to_string(gpu) + " outside [0, " + std::to_string(f.spec.gpus) + ")");
}

int Fabric::gpu_node(int gpu) const {
  check_gpu(*impl_, gpu);
  return gpu;
}
int Fabric::nvlink_domain_of(int gpu) const {
  check_gpu(*impl_, gpu);
  return gpu / impl_->spec.nvlink_domain;
}
int Fabric::planes() const { return impl_->planes; }
static std::size_t port(const Fabric::Impl& f, int gpu, int plane) {
  check_gpu(f, gpu);
  if (plane < 0 || plane >= f.planes)
    throw std::out_of_range("plane " + std::to_string(plane) + " outside [0, " + std::to_string(f.planes) + ")");
  return static_cast<std::size_t>(gpu) * f.planes + plane;
}
int Fabric::leaf_of(int gpu, int plane) const { return impl_->gpu_leaf[port(*impl_, gpu, plane)]; }
int Fabric::access_link(int gpu, int plane) const { return impl_->gpu_access[port(*impl_, gpu, plane)]; }
double Fabric::sharing_rate(int l) const {
  const Link& k = link(l);
  const double pcie = impl_->spec.nic_pcie_rate;
  if (!(pcie > 0) || k.tier != Tier::Access || k.a >= impl_->spec.gpus) return k.rate;
  // Multi-plane: the GPU's ports share its one PCIe attachment (NCCL merges a NIC's ports onto
  // one PCI link: topo.cc, pciPathToInt64); its transfers are split evenly over the planes
  // (network::FlowNetwork), so each port gets an even share.
  return std::min(k.rate, pcie / impl_->planes);
}
int Fabric::nvlink_link(int gpu) const {
  check_gpu(*impl_, gpu);
  return impl_->gpu_nvlink[gpu];
}

int Fabric::storage_count() const { return impl_->n_nodes - impl_->first_storage; }
static int server(const Fabric::Impl& f, int i) {
  if (i < 0 || i >= f.n_nodes - f.first_storage)
    throw std::out_of_range("storage server " + std::to_string(i) + " outside [0, " +
                            std::to_string(f.n_nodes - f.first_storage) + ")");
  return i;
}
int Fabric::storage_node(int i) const { return impl_->first_storage + server(*impl_, i); }
bool Fabric::is_endpoint(int node) const {
  return (node >= 0 && node < impl_->spec.gpus) || (node >= impl_->first_storage && node < impl_->n_nodes);
}
int Fabric::storage_write_link(int i) const { return impl_->stor_write[server(*impl_, i)]; }
int Fabric::storage_read_link(int i) const { return impl_->stor_read[server(*impl_, i)]; }
int Fabric::storage_access_link(int i, int nic) const {
  const int nics = impl_->spec.storage.nics_per_node;
  if (nic < 0 || nic >= nics)
    throw std::out_of_range("storage NIC " + std::to_string(nic) + " outside [0, " + std::to_string(nics) + ")");
  return impl_->stor_access[static_cast<std::size_t>(server(*impl_, i)) * nics + nic];
}

int Fabric::find_node(const std::string& name) const {
  auto it = impl_->by_name.find(name);
  return it == impl_->by_name.end() ? -1 : it->second;
}

std::vector<int> Fabric::find_links(const std::string& name) const {
  std::vector<int> out;
  // Split "a-b" or "a-b/k" at the '-' whose left side is a node name (names hold no '-').
  const auto dash = name.find('-');
  if (dash == std::string::npos) return out;
  std::string right = name.substr(dash + 1);
  int k = -1;
  if (auto slash = right.find('/'); slash != std::string::npos) {
    try {
      k = std::stoi(right.substr(slash + 1));
    } catch (const std::exception&) {
      return out;
    }
    right = right.substr(0, slash);
  }
  const int a = find_node(name.substr(0, dash)), b = find_node(right);
  if (a < 0 || b < 0) return out;
  for (auto [e, end] = boost::out_edges(a, impl_->g); e != end; ++e) {
    const int id = impl_->g[*e].link;
    const Link& x = impl_->links[id];
    if ((x.a == a && x.b == b) || (x.a == b && x.b == a)) out.push_back(id);
  }
  if (k >= 0) {
    if (k >= static_cast<int>(out.size())) return {};
    return {out[k]};  // out-edges of a are in link-id order, i.e. /0, /1, ...
  }
  return out;
}

void Fabric::set_link_up(int link, bool up) {
  Link& x = impl_->links.at(link);
  if (x.up == up) return;
  if (up && (!impl_->node_ok[x.a] || !impl_->node_ok[x.b]))
    throw SimulationError("cannot bring link " + x.name + " up: an end switch is down");
  x.up = up;
  impl_->link_up[link] = up;
  impl_->invalidate();
}

void Fabric::set_link_rate_factor(int link, double factor) {
  if (!(factor > 0 && factor <= 1))
    throw std::invalid_argument("link rate factor " + std::to_string(factor) + " outside (0, 1]");
  impl_->links.at(link).rate = impl_->built_rate.at(link) * factor;
}

void Fabric::fail_switch(int node) {
  const NodeKind k = impl_->nodes.at(node).kind;
  if (k == NodeKind::Gpu || k == NodeKind::Storage)
    throw std::invalid_argument("fail_switch: " + impl_->nodes[node].name + " is not a switch");
  impl_->node_ok[node] = 0;
  for (auto [e, end] = boost::out_edges(node, impl_->g); e != end; ++e) {
    impl_->links[impl_->g[*e].link].up = false;
    impl_->link_up[impl_->g[*e].link] = 0;
  }
  impl_->invalidate();
}

bool Fabric::node_up(int node) const { return impl_->node_ok.at(node) != 0; }

void Fabric::apply(const FailureSpec& f) {
  const std::string key = (f.key.empty() ? std::string("fabric.failures[]") : f.key) + ".element";
  const int n = find_node(f.element);
  const std::vector<int> ls = n < 0 ? find_links(f.element) : std::vector<int>{};
  if (n < 0 && ls.empty())
    throw InvalidParameter(key, f.element,
                           "a node name (e.g. \"leaf2\", \"spine0.3\", \"core5\") or a link name "
                           "(e.g. \"leaf2-spine0.3\") of the built fabric");
  switch (f.type) {
    case FailureSpec::Type::SwitchDown:
      if (n < 0 || impl_->nodes[n].kind == NodeKind::Gpu || impl_->nodes[n].kind == NodeKind::Storage)
        throw InvalidParameter(key, f.element, "a switch name for switch_down (e.g. \"spine0.3\")");
      fail_switch(n);
      break;
    case FailureSpec::Type::LinkDown:
      if (n >= 0) throw InvalidParameter(key, f.element, "a link name for link_down (e.g. \"leaf2-spine0.3\")");
      for (int id : ls) set_link_up(id, false);
      break;
    case FailureSpec::Type::Degrade:
      if (n >= 0) throw InvalidParameter(key, f.element, "a link name for degrade (e.g. \"leaf2-spine0.3\")");
      if (!(f.factor > 0 && f.factor <= 1))
        throw InvalidParameter((f.key.empty() ? std::string("fabric.failures[]") : f.key) + ".factor",
                               std::to_string(f.factor), "a fraction in (0, 1]");
      for (int id : ls) set_link_rate_factor(id, f.factor);
      break;
  }
}

std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

std::uint64_t ecmp_hash(std::uint64_t seed, int src, int dst, int flow) {
  std::uint64_t h = splitmix64(seed);
  h = splitmix64(h ^ static_cast<std::uint32_t>(src));
  h = splitmix64(h ^ (static_cast<std::uint64_t>(static_cast<std::uint32_t>(dst)) << 20));
  return splitmix64(h ^ static_cast<std::uint32_t>(flow));
}

}  // namespace aidcsim::topology
