#include "models/thermal/network.hpp"

#include "models/common/errors.hpp"

namespace aidcsim::thermal {

void RcNetwork::clear() {
  cap_.clear();
  copies_.clear();
  source_.clear();
  fixed_.clear();
  boundary_.clear();
  terms_.clear();
  t_.resize(0);
  dirty_ = true;
  factored_dt_ = -1;
}

int RcNetwork::add_node(double capacitance, double copies, double initial_temp) {
  cap_.push_back(capacitance);
  copies_.push_back(copies);
  source_.push_back(0);
  fixed_.push_back(0);
  boundary_.push_back(0);
  t_.conservativeResize(t_.size() + 1);
  t_[t_.size() - 1] = initial_temp;
  dirty_ = true;
  return size() - 1;
}

int RcNetwork::add_boundary(double temperature) {
  int id = add_node(0, 1, temperature);
  boundary_[id] = 1;
  fixed_[id] = temperature;
  return id;
}

int RcNetwork::add_transfer(int src, int dst, int a, int b, double g, double n) {
  terms_.push_back({src, dst, a, b, g, n, false});
  dirty_ = true;
  return static_cast<int>(terms_.size()) - 1;
}

int RcNetwork::add_advection(int from, int to, double mcp, double n) {
  // Heat into `to`: n mcp (T_from - T_to); the matching outflow is carried by the downstream
  // node's own advection term, so no row for `from`.
  terms_.push_back({-1, to, from, to, mcp, n, true});
  dirty_ = true;
  return static_cast<int>(terms_.size()) - 1;
}

void RcNetwork::set_term_g(int term, double g) {
  if (terms_[term].g != g) {
    terms_[term].g = g;
    dirty_ = true;
  }
}

void RcNetwork::set_source(int node, double watts) { source_[node] = watts; }

void RcNetwork::set_boundary(int node, double temperature) {
  fixed_[node] = temperature;
  t_[node] = temperature;
}

void RcNetwork::set_temperature(int node, double temperature) { t_[node] = temperature; }

void RcNetwork::factorize(double dt) {
  const int n = size();
  std::vector<Eigen::Triplet<double>> trip;
  trip.reserve(n + 4 * terms_.size());
  for (int i = 0; i < n; ++i) {
    if (boundary_[i])
      trip.emplace_back(i, i, 1.0);
    else if (dt > 0 && cap_[i] > 0)
      trip.emplace_back(i, i, copies_[i] * cap_[i] / dt);
  }
  // Row r of "M C dT/dt - sum(flows) = M P": a flow w = g (T_a - T_b) into r adds -g, +g.
  auto add = [&](int row, int a, int b, double coef) {
    if (row < 0 || boundary_[row]) return;
    trip.emplace_back(row, a, -coef);
    trip.emplace_back(row, b, coef);
  };
  for (const Term& k : terms_) {
    const double c = k.g * k.n;
    add(k.dst, k.a, k.b, c);
    if (!k.advection) add(k.src, k.a, k.b, -c);
  }
  Eigen::SparseMatrix<double> a(n, n);
  a.setFromTriplets(trip.begin(), trip.end());
  a.makeCompressed();
  lu_.analyzePattern(a);
  lu_.factorize(a);
  if (lu_.info() != Eigen::Success)
    throw SimulationError("thermal network: singular matrix (a heated part has no path to a boundary)");
  boundary_terms_.clear();
  for (size_t k = 0; k < terms_.size(); ++k) {
    const Term& t = terms_[k];
    if ((t.dst >= 0 && boundary_[t.dst]) || (!t.advection && t.src >= 0 && boundary_[t.src]))
      boundary_terms_.push_back(static_cast<int>(k));
  }
  ++factorizations_;
  factored_dt_ = dt;
  dirty_ = false;
}

double RcNetwork::term_flow(int k) const {
  const Term& t = terms_[k];
  return t.g * t.n * (t_[t.a] - t_[t.b]);
}

double RcNetwork::heat_into(int node) const {
  double r = 0;
  auto add = [&](const Term& t) {
    const double w = t.g * t.n * (t_[t.a] - t_[t.b]);
    if (t.dst == node) r += w;
    if (!t.advection && t.src == node) r -= w;
  };
  if (dirty_)  // not factorized since the last change: the boundary-term list is stale
    for (const Term& t : terms_) add(t);
  else
    for (int k : boundary_terms_) add(terms_[k]);
  return r;
}

double RcNetwork::removed_now() const {
  double r = 0;
  for (int k : boundary_terms_) {
    const Term& t = terms_[k];
    const double w = t.g * t.n * (t_[t.a] - t_[t.b]);
    if (t.dst >= 0 && boundary_[t.dst]) r += w;
    if (!t.advection && t.src >= 0 && boundary_[t.src]) r -= w;
  }
  return r;
}

const Eigen::VectorXd& RcNetwork::solve_steady() {
  if (dirty_ || factored_dt_ != 0) factorize(0);
  Eigen::VectorXd rhs(size());
  for (int i = 0; i < size(); ++i) rhs[i] = boundary_[i] ? fixed_[i] : copies_[i] * source_[i];
  t_ = lu_.solve(rhs);
  if (lu_.info() != Eigen::Success || !t_.allFinite())
    throw SimulationError("thermal network: steady-state solve failed");
  last_diss_ = last_stored_ = 0;
  last_removed_ = removed_now();
  return t_;
}

const Eigen::VectorXd& RcNetwork::step(double dt) {
  if (dirty_ || factored_dt_ != dt) factorize(dt);
  Eigen::VectorXd& rhs = rhs_;  // kept between steps: no allocation per step
  rhs.resize(size());
  double diss = 0;
  for (int i = 0; i < size(); ++i) {
    if (boundary_[i]) {
      rhs[i] = fixed_[i];
      continue;
    }
    const double p = copies_[i] * source_[i];
    diss += p;
    rhs[i] = copies_[i] * cap_[i] / dt * t_[i] + p;
  }
  // lu_.solve(rhs) step by step (Eigen 3.4 SparseLU::_solve_impl: X = Pr B, L then U solved in
  // place, Pc^-1 X), the same operations, with the last permutation into a second buffer instead
  // of in place (which allocates a mask on every call).
  work_.noalias() = lu_.rowsPermutation() * rhs;
  lu_.matrixL().solveInPlace(work_);
  lu_.matrixU().solveInPlace(work_);
  Eigen::VectorXd& next = next_;
  next.noalias() = lu_.colsPermutation().inverse() * work_;
  if (!next.allFinite()) throw SimulationError("thermal network: transient solve failed");
  double stored = 0;
  for (int i = 0; i < size(); ++i)
    if (!boundary_[i]) stored += copies_[i] * cap_[i] * (next[i] - t_[i]);
  t_.swap(next);
  last_diss_ = diss * dt;
  last_stored_ = stored;
  last_removed_ = removed_now() * dt;
  return t_;
}

}  // namespace aidcsim::thermal
