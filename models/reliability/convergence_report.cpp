#include "models/reliability/convergence_report.hpp"

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

namespace aidcsim::reliability {
namespace {

std::string fmt_number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

std::string tokens_text(double t) {
  char buf[48];
  if (t == 0) return "0";
  if (std::fabs(t) >= 1e12)
    std::snprintf(buf, sizeof buf, "%.3gT", t / 1e12);
  else if (std::fabs(t) >= 1e9)
    std::snprintf(buf, sizeof buf, "%.3gB", t / 1e9);
  else
    std::snprintf(buf, sizeof buf, "%.3gM", t / 1e6);
  return buf;
}

}  // namespace

void report_convergence(Results& r, const ConvergenceSpec& conv, double lo, double hi, const PhasedResult& p) {
  if (conv.model == ConvergenceModel::None) {
    r.notes.push_back(
        "convergence vs batch size: off (training.convergence.model: none), the tokens to the target do not depend "
        "on the global batch" +
        (hi > lo ? " although it goes from " + tokens_text(lo) + " to " + tokens_text(hi) +
                       " tokens per step: beyond the critical batch size a run needs more tokens for the same loss "
                       "(McCandlish et al. 2018), training.convergence.model: kaplan estimates the cost"
                 : std::string(" (one batch of ") + tokens_text(lo) + " tokens per step throughout)"));
    return;
  }
  const auto& t = p.overall;
  r.add("tokens_trained", t.tokens_trained, "1",
        "Mean tokens actually trained to reach the target (training_tokens are counted at the reference batch)");
  r.add("extra_tokens", t.tokens_trained - t.tokens, "1",
        "Tokens the batches above the reference batch cost beyond training_tokens (critical batch size model)");
  r.add("reference_batch", t.reference_batch, "1", "Tokens per step training_tokens are counted at");
  std::string model = conv.model == ConvergenceModel::Kaplan
                          ? "Kaplan et al. 2020 fit B_crit = " + tokens_text(conv.b_star) + " / L^(1/" +
                                fmt_number(conv.alpha_b) + ") at the Chinchilla loss of the progress"
                          : "a fixed B_crit of " + tokens_text(conv.critical_batch) + " tokens";
  std::string phases;
  if (p.phases.size() > 1) {
    std::vector<double> extra, crit, progress;
    for (const auto& ph : p.phases) {
      extra.push_back(ph.mean_tokens_trained - ph.mean_tokens);
      crit.push_back(ph.critical_batch);
      progress.push_back(ph.mean_tokens);
      char item[240];
      const std::string at_start = ph.critical_batch > 0 ? "B_crit " + tokens_text(ph.critical_batch) + " at its start"
                                                         : "from the first step, B_crit ~0";
      std::snprintf(item, sizeof item, "; %s at %s tokens/step (%s): %s%s tokens", ph.name.c_str(),
                    tokens_text(ph.batch).c_str(), at_start.c_str(),
                    ph.mean_tokens_trained >= ph.mean_tokens ? "+" : "",
                    tokens_text(ph.mean_tokens_trained - ph.mean_tokens).c_str());
      phases += item;
    }
    r.datasets.push_back(vector_dataset("/phases/extra_tokens", extra, "1",
                                        "Mean tokens the phase's batch costs beyond the reference batch's for the same "
                                        "progress (critical batch size model)",
                                        "phase"));
    r.datasets.push_back(vector_dataset("/phases/critical_batch", crit, "1",
                                        "Critical batch (tokens) where the phase starts on average", "phase"));
    r.datasets.push_back(vector_dataset("/phases/progress_tokens", progress, "1",
                                        "Mean progress of the phase in tokens at the reference batch", "phase"));
  }
  char head[240];
  std::snprintf(head, sizeof head,
                "convergence vs batch size: %s tokens at the reference batch of %s tokens take %s tokens (%+.1f %%)",
                tokens_text(t.tokens).c_str(), tokens_text(t.reference_batch).c_str(),
                tokens_text(t.tokens_trained).c_str(), 100.0 * (t.tokens_trained / t.tokens - 1));
  r.notes.push_back(std::string(head) +
                    ", E = E_min (1 + B/B_crit) (McCandlish et al. 2018 eq. 2.11, which assumes "
                    "a learning rate tuned at each batch) with " +
                    model + phases +
                    (conv.model == ConvergenceModel::Kaplan
                         ? ". Kaplan's fit is from WebText2 losses of models up to 1.5B parameters, applied here to "
                           "Chinchilla's loss (other data, other tokenizer): an estimate (Zhang et al. 2024, "
                           "arXiv:2410.21676, find B_crit scaling with the data seen rather than the model); "
                           "training.convergence.b_star/alpha_b or model: fixed take a measured value"
                         : ""));
}

}  // namespace aidcsim::reliability
