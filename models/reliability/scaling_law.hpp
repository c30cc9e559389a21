#pragma once
// Training target from a loss: the Chinchilla parametric fit.
#include "models/reliability/training_spec.hpp"

namespace aidcsim::reliability {

/// Chinchilla loss fit L(N, D) = E + A / N^alpha + B / D^beta (nats/token), N parameters, D
/// training tokens. Constants: E = 1.69, A = 406.4, B = 410.7, alpha = 0.34, beta = 0.28.
/// Source: Hoffmann et al., "Training Compute-Optimal Large Language Models", NeurIPS 2022
/// (arXiv:2203.15556), §3.3 Approach 3, eq. (10).
double chinchilla_loss(double parameters, double tokens);

/// Tokens D with L(N, D) = loss: D = (B / (loss - E - A/N^alpha))^(1/beta).
/// Throws InvalidParameter("training.target_loss") when the loss is not reachable with N
/// parameters (loss <= E + A/N^alpha) and ("training.parameters") when N <= 0.
double tokens_for_loss(double loss, double parameters);

/// Sets spec.tokens from spec.target_loss (when given) with N = spec.parameters, or
/// `model_parameters` (from the workload, counted by the engine) when spec.parameters is 0.
/// Leaves spec.tokens unchanged when no target loss is given. Throws as tokens_for_loss().
void resolve_target(TrainingSpec& spec, double model_parameters);

}  // namespace aidcsim::reliability
