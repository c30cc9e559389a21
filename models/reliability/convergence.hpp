#pragma once
// Convergence against the global batch: the critical batch size of McCandlish et al. 2018 and the
// Kaplan et al. 2020 fit of it against the loss, turned into the tokens a run needs at one batch
// compared with another.
//
// Model (McCandlish, Kaplan, Zhang, OpenAI Dota Team, "An Empirical Model of Large-Batch
// Training", arXiv:1812.06162, §2.3 eq. 2.11; restated by Kaplan et al., "Scaling Laws for Neural
// Language Models", arXiv:2001.08361, §5.1): to reach a given loss, training at batch B takes
// S steps and processes E = B S tokens with
//     (S / S_min - 1) (E / E_min - 1) = 1,   B_crit = E_min / S_min,
// so E = E_min (1 + B / B_crit) and S = S_min (1 + B_crit / B): at B = B_crit a run needs twice
// the minimum tokens and twice the minimum steps. B_crit grows as the loss falls; Kaplan et al.
// fit B_crit(L) = B_* / L^(1/alpha_B), B_* ~ 2e8 tokens, alpha_B ~ 0.21 (L in nats/token on
// WebText2): it doubles for every ~13 % decrease of the loss.
//
// Used here (time_to_train.cpp): a run's progress is counted in tokens at a reference batch
// B_ref; a token trained at batch B is worth (B_crit + B_ref) / (B_crit + B) reference tokens
// (dE_min is the same for both), with B_crit at the loss reached so far (Chinchilla fit of the
// reference tokens). Caveat, said in every run's notes: Kaplan's fit comes from GPT-2-tokenizer
// WebText2 losses of models up to 1.5B parameters with Adam at a fixed schedule; later
// measurements find larger critical batches for modern data and schedules (Zhang et al., "How Does
// Critical Batch Size Scale in Pre-training?", arXiv:2410.21676; Merrill et al., arXiv:2505.23971).
#include <vector>

#include "models/reliability/training_spec.hpp"

namespace aidcsim::reliability {

/// Kaplan et al. 2020 eq. 1.4 (= eq. 5.3, §5.1) fit: B_crit(L) = b_star / loss^(1 / alpha_b), tokens. loss in nats/token
/// (> 0), b_star > 0 tokens, alpha_b > 0. Defaults of the paper: b_star 2e8, alpha_b 0.21.
double kaplan_critical_batch(double loss, double b_star = 2e8, double alpha_b = 0.21);

/// E / E_min = 1 + batch / critical (McCandlish et al. 2018 eq. 2.11): tokens processed at `batch`
/// over the minimum (batch -> 0) to reach the same loss. batch, critical in tokens (> 0).
double tokens_over_minimum(double batch, double critical);
/// S / S_min = 1 + critical / batch: steps at `batch` over the minimum (batch -> infinity).
double steps_over_minimum(double batch, double critical);

/// Tokens needed at `batch` per token at `reference` for the same progress:
/// (critical + batch) / (critical + reference); batch / reference when critical = 0 (the start of
/// training, where the Kaplan fit's critical batch tends to 0). Tokens, all >= 0, reference > 0.
double batch_token_cost(double batch, double reference, double critical);

/// Critical batch (tokens) at a run's progress: fixed, or Kaplan's fit at the Chinchilla loss
/// L(N, tokens) (scaling_law.hpp) after `reference_tokens` tokens at the reference batch.
/// Throws InvalidParameter("training.parameters") for the Kaplan model without a parameter count.
class CriticalBatch {
 public:
  /// `parameters` N for the loss (> 0 for the Kaplan model; ignored otherwise).
  CriticalBatch(const ConvergenceSpec& spec, double parameters);
  bool enabled() const { return spec_.model != ConvergenceModel::None; }
  /// B_crit in tokens after `reference_tokens` (>= 0) tokens of training at the reference batch.
  double at(double reference_tokens) const;
  /// Loss (nats/token, Chinchilla fit) after `reference_tokens`; 0 for the fixed model.
  double loss_at(double reference_tokens) const;

 private:
  ConvergenceSpec spec_;
  double parameters_ = 0;
};

/// Edges of the piecewise-constant token-cost grid over [0, target] used by time_to_train:
/// 0, then `cells` geometric edges from target x 1e-6 to target (the loss, hence B_crit, changes
/// with log tokens). The cost of a cell is taken at its geometric midpoint (arithmetic for the
/// first one): measured against a 200,000-point quadrature in tests/unit/reliability/test_convergence.cpp.
std::vector<double> convergence_grid(double target, int cells);

}  // namespace aidcsim::reliability
