#include "models/reliability/convergence.hpp"

#include <cmath>
#include <limits>
#include <string>

#include "models/common/errors.hpp"
#include "models/reliability/scaling_law.hpp"

namespace aidcsim::reliability {

double kaplan_critical_batch(double loss, double b_star, double alpha_b) {
  if (!(loss > 0) || !std::isfinite(loss)) return 0;  // infinite loss at 0 tokens: B_crit -> 0
  return b_star / std::pow(loss, 1.0 / alpha_b);
}

double tokens_over_minimum(double batch, double critical) { return 1.0 + batch / critical; }
double steps_over_minimum(double batch, double critical) { return 1.0 + critical / batch; }

double batch_token_cost(double batch, double reference, double critical) {
  if (!std::isfinite(critical)) return 1.0;  // no convergence model: a token is a token
  return (critical + batch) / (critical + reference);
}

CriticalBatch::CriticalBatch(const ConvergenceSpec& spec, double parameters) : spec_(spec), parameters_(parameters) {
  if (spec.model == ConvergenceModel::Kaplan && !(parameters > 0))
    throw InvalidParameter("training.parameters", std::to_string(parameters),
                           "a parameter count for the loss behind the Kaplan critical batch "
                           "(training.convergence.model: kaplan)");
  if (spec.model == ConvergenceModel::Fixed && !(spec.critical_batch > 0))
    throw InvalidParameter("training.convergence.critical_batch", std::to_string(spec.critical_batch),
                           "a positive token count with training.convergence.model: fixed");
}

double CriticalBatch::loss_at(double reference_tokens) const {
  if (spec_.model != ConvergenceModel::Kaplan) return 0;
  return chinchilla_loss(parameters_, reference_tokens);
}

double CriticalBatch::at(double reference_tokens) const {
  switch (spec_.model) {
    case ConvergenceModel::None:
      return std::numeric_limits<double>::infinity();
    case ConvergenceModel::Fixed:
      return spec_.critical_batch;
    case ConvergenceModel::Kaplan:
      return kaplan_critical_batch(loss_at(reference_tokens), spec_.b_star, spec_.alpha_b);
  }
  return 0;
}

std::vector<double> convergence_grid(double target, int cells) {
  std::vector<double> edges{0.0};
  if (!(target > 0) || cells < 1) return edges;
  const double lo = target * 1e-6;
  for (int i = 0; i < cells; ++i) edges.push_back(lo * std::pow(target / lo, static_cast<double>(i) / cells));
  return edges;  // the last cell runs from the last edge to the end of training
}

}  // namespace aidcsim::reliability
