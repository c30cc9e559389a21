#pragma once
// Declarations of SimGrid 3.32's max-min solver (simgrid::kernel::lmm::System), the code that
// shares bandwidth between flows in every SimGrid network model. libsimgrid exports these
// functions, but Debian's libsimgrid-dev does not install their header (src/kernel/lmm/System.hpp
// of the SimGrid 3.32 sources); the public headers only forward-declare the class and expose it
// through kernel::resource::Model::get_maxmin_system() and Action::get_variable().
//
// Only the non-virtual member functions aidcsim calls are declared, with the exact signatures of
// SimGrid 3.32 (so their mangled names match the exported symbols). The class is never
// constructed, copied, deleted or accessed by layout here: a System is created by
// System::build() inside libsimgrid and owned (and deleted) by the Model it is given to.
// CMakeLists.txt pins SimGrid to 3.32 for this reason; tests/unit/network/test_sharing.cpp checks
// the solver against closed-form max-min shares.
//
// Include only from models/network/sharing.cpp.
#include <simgrid/kernel/resource/Action.hpp>
#include <simgrid/kernel/resource/Model.hpp>

#include <cstddef>
#include <string_view>

namespace simgrid::kernel::lmm {

class Constraint;
class Variable;

class System {
 public:
  /// "maxmin" (SimGrid's default exact max-min solver); selective_update: lazy re-solving of the
  /// components whose constraints changed, with the changed actions in the modified set.
  static System* build(std::string_view solver_name, bool selective_update);
  /// A resource of capacity `bound_value` (B/s for a link direction, FLOP/s for a GPU).
  Constraint* constraint_new(resource::Resource* id, double bound_value);
  /// A variable (one flow or computation) of sharing weight `sharing_penalty` (1 = plain max-min),
  /// rate bound `bound` (-1: none), using at most `number_of_constraints` constraints.
  Variable* variable_new(resource::Action* id, double sharing_penalty, double bound, std::size_t number_of_constraints);
  /// The variable consumes `value` units of the constraint per unit of its rate.
  void expand(Constraint* cnst, Variable* var, double value, bool force_creation);
  /// Takes a variable out of the system (its constraints are re-solved at the next solve()) and
  /// returns it to the system's variable pool; what Action::~Action does with the action's variable.
  void variable_free(Variable* var);
  void update_constraint_bound(Constraint* cnst, double bound);
  void solve();

  System() = delete;
  System(const System&) = delete;
  System& operator=(const System&) = delete;
  ~System() = delete;
};

}  // namespace simgrid::kernel::lmm
