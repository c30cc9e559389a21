#include "models/reliability/scaling_law.hpp"

#include <cmath>
#include <string>

#include "models/common/errors.hpp"

namespace aidcsim::reliability {

namespace {
// Hoffmann et al. 2022, Approach 3 (eq. 10).
constexpr double kE = 1.69, kA = 406.4, kB = 410.7, kAlpha = 0.34, kBeta = 0.28;
}  // namespace

double chinchilla_loss(double n, double d) { return kE + kA / std::pow(n, kAlpha) + kB / std::pow(d, kBeta); }

double tokens_for_loss(double loss, double n) {
  if (!(n > 0)) throw InvalidParameter("training.parameters", std::to_string(n), "a positive parameter count");
  const double floor_loss = kE + kA / std::pow(n, kAlpha);
  if (!(loss > floor_loss))
    throw InvalidParameter(
        "training.target_loss", std::to_string(loss),
        "a loss above " + std::to_string(floor_loss) + " (the Chinchilla fit's limit for this model size)");
  return std::pow(kB / (loss - floor_loss), 1.0 / kBeta);
}

void resolve_target(TrainingSpec& spec, double model_parameters) {
  if (!(spec.target_loss > 0)) return;
  spec.tokens = tokens_for_loss(spec.target_loss, spec.parameters > 0 ? spec.parameters : model_parameters);
}

}  // namespace aidcsim::reliability
