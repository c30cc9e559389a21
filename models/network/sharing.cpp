// MaxMinSharing on SimGrid 3.32's lmm::System (see simgrid_maxmin.hpp for why the declarations
// are aidcsim's own). Items are kernel::resource::Action objects of a private Model so that
// the solver's selective update can report the changed ones (System::solve() puts the actions of
// every re-solved component in the model's modified set).
#include "models/network/sharing.hpp"

#include <cmath>
#include <string>

#include "models/common/errors.hpp"
#include "models/network/simgrid_maxmin.hpp"

namespace aidcsim::network::detail {

namespace {

namespace res = simgrid::kernel::resource;
namespace lmm = simgrid::kernel::lmm;

/// The Model that owns the solver. Model's virtual functions (SimGrid's own event handling) are
/// not used: the event loop is flow_network.cpp's.
class SharingModel final : public res::Model {
 public:
  SharingModel() : res::Model("aidcsim-sharing") {}
};

/// One item. update_remains_lazy is SimGrid's hook for its own lazy event loop, unused here.
/// Items are pooled: a removed item keeps its Action (only its lmm variable is freed) and is
/// reused by the next add_item, so that the hot path has no Action construction, destruction or
/// heap allocation (Action::Action / ~Action and their malloc/free were ~5 % of the event loop at
/// 31K GPUs). The solver sees the same sequence of variable_new / expand / variable_free calls
/// as with a fresh Action per item, hence the same results bit for bit.
///
/// The lmm Variable itself is not kept across items (measured, docs/benchmarks.md "Driving
/// SimGrid's lmm"): parking a removed item's variable disabled (update_variable_penalty(v, 0)) and
/// re-enabling it for the next item on the same route gives the same results only with
/// update_variable_bound before the enable (enabling marks just the first constraint when that one
/// is already modified: the other constraints are then not re-solved, a link over-subscribed), and
/// it costs more than it saves: on the rollout a route's next item comes after > 16K other
/// removals, so the parked variables are cold and hold +350 MB (rollout CPU +0.8 s). Most of the
/// add/remove cost is the selective-update marking of the touched component, which a disable and
/// enable do as well.
class Item final : public res::Action {
 public:
  Item(res::Model* m, int tag) : res::Action(m, 0.0, false), tag(tag) {}
  void update_remains_lazy(double) override {}
  int tag;
};

}  // namespace

struct MaxMinSharing::Impl {
  SharingModel model;
  lmm::System* sys = nullptr;
  std::vector<lmm::Constraint*> cnst;
  std::vector<Item*> items;  ///< by handle; a free handle's Item has no variable (pooled)
  /// By handle: the item's lmm variable (what items[h]->get_variable() holds), so that a removal
  /// does not touch the Action object, a cache miss per removal at 31K GPUs.
  std::vector<lmm::Variable*> vars;
  std::vector<std::uint32_t> free_handles;
};

MaxMinSharing::MaxMinSharing() : impl_(std::make_unique<Impl>()) {
  // Selective update: re-solve only the components whose constraints changed.
  impl_->model.set_maxmin_system(lmm::System::build("maxmin", true));
  impl_->sys = impl_->model.get_maxmin_system();
}

MaxMinSharing::~MaxMinSharing() {
  if (!impl_) return;
  impl_->model.get_modified_set()->clear();
  // Deleting an Item frees its lmm variable; a pooled one's pointer is stale (remove_item).
  for (std::size_t h = 0; h < impl_->items.size(); ++h) {
    if (impl_->vars[h] == nullptr) impl_->items[h]->set_variable(nullptr);
    delete impl_->items[h];
  }
  // The Model deletes the System (and its constraints) in its destructor.
}

int MaxMinSharing::add_resource(double capacity) {
  if (!(capacity > 0)) throw SimulationError("network: resource capacity " + std::to_string(capacity) + " <= 0");
  impl_->cnst.push_back(impl_->sys->constraint_new(nullptr, capacity));
  return static_cast<int>(impl_->cnst.size()) - 1;
}

void MaxMinSharing::set_capacity(int r, double capacity) {
  if (!(capacity > 0)) throw SimulationError("network: resource capacity " + std::to_string(capacity) + " <= 0");
  impl_->sys->update_constraint_bound(impl_->cnst.at(r), capacity);
}

int MaxMinSharing::resource_count() const { return static_cast<int>(impl_->cnst.size()); }

std::uint32_t MaxMinSharing::add_item(const int* resources, int n, int tag, double weight, double bound) {
  if (!(weight > 0) || !std::isfinite(weight))
    throw SimulationError("network: item weight " + std::to_string(weight) + " is not a finite value > 0");
  Impl& m = *impl_;
  std::uint32_t h;
  Item* it;
  if (!m.free_handles.empty()) {  // a pooled Item (same handle order as before pooling)
    h = m.free_handles.back();
    m.free_handles.pop_back();
    it = m.items[h];
    it->tag = tag;
    // Hint (no effect on results): the next add_item takes this Item, most often within the
    // same start of a transfer's sub-flows.
    if (!m.free_handles.empty()) prefetch(m.items[m.free_handles.back()]);
  } else {
    h = static_cast<std::uint32_t>(m.items.size());
    it = new Item(&m.model, tag);
    m.items.push_back(it);
    m.vars.push_back(nullptr);
  }
  // lmm: rate = share / sharing_penalty, so a weight w is a penalty 1 / w; bound -1 = none.
  const double lmm_bound = bound > 0 && std::isfinite(bound) ? bound : -1.0;
  lmm::Variable* v = m.sys->variable_new(it, 1.0 / weight, lmm_bound, static_cast<std::size_t>(n));
  it->set_variable(v);
  m.vars[h] = v;
  for (int k = 0; k < n; ++k) m.sys->expand(m.cnst[resources[k]], v, 1.0, false);
  return h;
}

void MaxMinSharing::remove_item(std::uint32_t h) {
  Impl& m = *impl_;
  // What Action::~Action does for an item: free the variable. The item is never in the modified
  // set here (read_changed empties it) nor in an action heap (SimGrid's lazy update is not used).
  // The Item keeps its stale variable pointer until add_item reuses it (never read meanwhile).
  m.sys->variable_free(m.vars.at(h));
  m.vars[h] = nullptr;
  m.free_handles.push_back(h);
}

void MaxMinSharing::solve_only() { impl_->sys->solve(); }

void MaxMinSharing::read_changed(std::vector<std::pair<int, double>>& out) {
  out.clear();
  auto* mod = impl_->model.get_modified_set();
  while (!mod->empty()) {
    res::Action& a = mod->front();
    mod->pop_front();
    // Hint (no effect on results): the next item's Action is fetched while this one's variable is.
    if (!mod->empty()) prefetch(&mod->front());
    const auto& it = static_cast<const Item&>(a);
    out.emplace_back(it.tag, a.get_rate());
  }
}

}  // namespace aidcsim::network::detail
