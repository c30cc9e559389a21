#include "sim/cli/progress.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include <fmt/format.h>

namespace aidcsim::cli {

bool stderr_is_terminal() { return ::isatty(STDERR_FILENO) == 1; }

ProgressPrinter::ProgressPrinter(bool quiet, bool terminal)
    : quiet_(quiet), terminal_(terminal), start_(std::chrono::steady_clock::now()) {}

double ProgressPrinter::elapsed() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

void ProgressPrinter::update(const std::string& stage, double fraction) {
  if (quiet_) return;
  const int percent = static_cast<int>(std::floor(100 * std::clamp(std::isnan(fraction) ? 0.0 : fraction, 0.0, 1.0)));
  const double t = elapsed();
  if (terminal_) {
    // Redraw on a new stage or percent, at most every 0.1 s otherwise (keeps the elapsed time live).
    if (stage == stage_ && percent == percent_ && t - last_draw_ < 0.1) return;
    fmt::print(stderr, "\r\033[K[{:3d}%] {}  {:.1f} s", percent, stage, t);
    std::fflush(stderr);
    drawn_ = true;
    last_draw_ = t;
  } else if (stage != stage_) {
    fmt::print(stderr, "[{:3d}%] {}  ({:.1f} s)\n", percent, stage, t);
  }
  stage_ = stage;
  percent_ = percent;
}

void ProgressPrinter::abort() {
  if (terminal_ && drawn_) fmt::print(stderr, "\r\033[K");
  drawn_ = false;
}

void ProgressPrinter::finish() {
  if (quiet_) return;
  abort();
  fmt::print(stderr, "simulated in {:.1f} s (wall time)\n", elapsed());
}

}  // namespace aidcsim::cli
