#include "models/workload/schedule_batch.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "models/workload/pipeline.hpp"

namespace aidcsim::workload {
namespace {

/// Tokens as the scenario writes them, to `digits` significant digits: "4M", "8.258M", "512K".
std::string tokens_text(double t, int digits) {
  char s[40];
  if (t >= 1e6)
    std::snprintf(s, sizeof s, "%.*gM", digits, t / 1e6);
  else if (t >= 1e3)
    std::snprintf(s, sizeof s, "%.*gK", digits, t / 1e3);
  else
    std::snprintf(s, sizeof s, "%.*g", digits, t);
  return s;
}

}  // namespace

bool ScheduledBatch::changed() const { return std::abs(tokens - written) > 1e-9 * written; }

ScheduledBatch scheduled_batch(const JobSpec& job, double tokens) {
  ScheduledBatch b;
  b.written = tokens;
  const double unit = 1.0 * job.par.dp * job.microbatch_size;  // sequences per microbatch round
  b.exact = tokens / job.model.sequence_length / unit;
  b.whole = static_cast<int>(std::max(1LL, std::llround(b.exact)));
  b.microbatches = nearest_valid_microbatches(job.par.pp, job.par.virtual_stages, job.par.microbatch_group_size,
                                              b.whole, job.par.flexible_interleaving());
  if (b.microbatches != b.whole)
    b.refused = interleaving_error(job.par.pp, job.par.virtual_stages, job.par.microbatch_group_size, b.whole,
                                   job.par.flexible_interleaving());
  b.sequences = 1LL * b.microbatches * job.par.dp * job.microbatch_size;
  b.tokens = static_cast<double>(b.sequences) * job.model.sequence_length;
  return b;
}

std::string batch_rounding_warning(const std::string& key, const ScheduledBatch& b, const JobSpec& job) {
  if (!b.changed()) return "";
  char exact[32], total[32];
  std::snprintf(exact, sizeof exact, "%.3g", b.exact);
  std::snprintf(total, sizeof total, "%.0f", b.tokens);
  // Four significant digits, more when they would show the two batches alike (1.18M vs 1,179,648).
  int digits = 4;
  while (digits < 12 && tokens_text(b.written, digits) == tokens_text(b.tokens, digits)) ++digits;
  const std::string written = tokens_text(b.written, digits), whole = std::to_string(b.whole);
  std::string w = key + ": " + written + " tokens written, simulated as " + tokens_text(b.tokens, digits) + " (" +
                  total + " tokens = " + std::to_string(b.microbatches) + " microbatches per DP replica x dp " +
                  std::to_string(job.par.dp) + " x microbatch_size " + std::to_string(job.microbatch_size) +
                  " x sequence_length " + std::to_string(job.model.sequence_length) +
                  "): a step runs whole microbatches per DP replica (" + written + " tokens make " + exact + ")";
  if (b.whole != b.microbatches)
    w += " and the interleaved 1F1B schedule (" + job.par.interleaved_schedule +
         " rules, virtual_stages = " + std::to_string(job.par.virtual_stages) + ") refuses " + whole + ": it needs " +
         b.refused + "; the nearest accepted count is " + std::to_string(b.microbatches);
  else
    w += ", the nearest is " + whole;
  return w + ". Time-to-train takes this entry's tokens/s from the simulated batches (/step/by_batch)";
}

}  // namespace aidcsim::workload
