#pragma once
// Lumped RC thermal network with advection, solved with Eigen's SparseLU: steady state, and
// backward-Euler (implicit) steps that reuse the LU factorization until the network changes.
//
// Nodes may stand for `copies` identical physical nodes (grouping tier, site.hpp): every equation
// is written per copy, and each coupling term carries the number `n` of physical instances it
// stands for. Row i in total form:
//   M_i C_i dT_i/dt = sum_terms n * flow + M_i P_i,
// so energy sums need no special casing and grouping is exact when the copies are identical.
#include <Eigen/Sparse>
#include <Eigen/SparseLU>
#include <string>
#include <vector>

namespace aidcsim::thermal {

class RcNetwork {
 public:
  /// Removes every node and term (the factorization is redone on the next solve).
  void clear();
  /// Node with heat capacity C (J/K per copy, >= 0) standing for `copies` physical nodes.
  int add_node(double capacitance, double copies = 1.0, double initial_temp = 293.15);
  /// Node held at a fixed temperature (K): facility water, room air. Heat into it is "removed".
  int add_boundary(double temperature);
  /// Heat flow g (T_a - T_b) (W per instance, g in W/K) leaving node `src` and entering `dst`;
  /// n instances. A conductance between a and b is transfer(a, b, a, b, g, n).
  int add_transfer(int src, int dst, int a, int b, double g, double n = 1.0);
  int add_conductance(int a, int b, double g, double n = 1.0) { return add_transfer(a, b, a, b, g, n); }
  /// Advection into `to` from upstream `from`: n mcp (T_from - T_to), mcp = m_dot cp (W/K).
  /// Upwind finite volume; energy is conserved when every node's inflow equals its outflow.
  int add_advection(int from, int to, double mcp, double n = 1.0);

  /// Changes the conductance of a term (a flow change): the next solve refactorizes.
  void set_term_g(int term, double g);
  /// Heat source (W per copy). Only the right-hand side changes.
  void set_source(int node, double watts);
  void set_boundary(int node, double temperature);
  void set_temperature(int node, double temperature);

  /// Steady state (capacitances ignored). Throws SimulationError if singular (a part of the
  /// network with a source has no path to a boundary).
  const Eigen::VectorXd& solve_steady();
  /// One backward-Euler step of dt seconds: (M C/dt + A) T' = M C/dt T + M P + boundary terms.
  const Eigen::VectorXd& step(double dt);

  const Eigen::VectorXd& temperatures() const { return t_; }
  double temperature(int node) const { return t_[node]; }
  int size() const { return static_cast<int>(cap_.size()); }

  /// Energy of the last step (J): dissipated = sum M P dt; stored = sum M C (T' - T);
  /// removed = heat into boundary nodes at T'. dissipated - stored - removed is round-off.
  double last_dissipated() const { return last_diss_; }
  double last_stored() const { return last_stored_; }
  double last_removed() const { return last_removed_; }
  /// Heat flowing through term `k` at the current temperatures, W (all n instances).
  double term_flow(int k) const;
  /// Heat flowing into boundary node `b` at the current temperatures, W (its share of "removed").
  double heat_into(int b) const;
  /// Number of LU factorizations so far (reuse check), over clear()s; reset_factorizations() zeroes it.
  int factorizations() const { return factorizations_; }
  void reset_factorizations() { factorizations_ = 0; }

 private:
  struct Term {
    int src, dst, a, b;
    double g, n;
    bool advection;
  };
  void factorize(double dt);
  double removed_now() const;

  std::vector<double> cap_, copies_, source_, fixed_;
  std::vector<char> boundary_;
  std::vector<Term> terms_;
  std::vector<int> boundary_terms_;  // terms touching a boundary node (refreshed at factorization)
  Eigen::VectorXd t_;
  Eigen::VectorXd rhs_, work_, next_;  // step() buffers, kept between steps
  Eigen::SparseLU<Eigen::SparseMatrix<double>> lu_;
  double factored_dt_ = -1;  // <0: no valid factorization; 0: steady
  bool dirty_ = true;
  int factorizations_ = 0;
  double last_diss_ = 0, last_stored_ = 0, last_removed_ = 0;
};

}  // namespace aidcsim::thermal
