#pragma once
// The reliability area's convergence-vs-batch figures (training.convergence, convergence.hpp):
// what the batches above the reference batch cost in tokens, per phase, or a note that the run
// assumes they cost nothing. Adding a convergence output metric means adding it here.
#include "models/common/results.hpp"
#include "models/reliability/time_to_train.hpp"
#include "models/reliability/training_spec.hpp"

namespace aidcsim::reliability {

/// `lo`, `hi`: the smallest and largest global batch of the run (tokens per step, over phases and
/// the batch schedule). With a convergence model: summary tokens_trained, extra_tokens,
/// reference_batch (tokens), /phases/extra_tokens, critical_batch, progress_tokens for a rollout,
/// and the note; with none, only a note (which says whether the batch varies).
void report_convergence(Results& r, const ConvergenceSpec& conv, double lo, double hi, const PhasedResult& p);

}  // namespace aidcsim::reliability
