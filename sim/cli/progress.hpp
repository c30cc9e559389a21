#pragma once
// Progress of a run on stderr, fed by RunOptions::progress. On a terminal: one status line
// redrawn in place ("[ 42%] simulating step  3.1 s"); otherwise (a log file, CI): one plain line
// per stage so logs stay readable; with --quiet: nothing.
#include <chrono>
#include <string>

namespace aidcsim::cli {

class ProgressPrinter {
 public:
  /// `quiet`: print nothing. `terminal`: stderr is a TTY (redraw in place).
  ProgressPrinter(bool quiet, bool terminal);
  /// Reports `stage` at `fraction` in [0, 1] of the whole run (values outside are clamped).
  void update(const std::string& stage, double fraction);
  /// Ends the status line and prints the wall time of the run (unless quiet).
  void finish();
  /// Ends the status line without a summary (before an error message).
  void abort();

 private:
  double elapsed() const;
  bool quiet_, terminal_;
  bool drawn_ = false;
  std::string stage_;
  int percent_ = -1;
  double last_draw_ = -1;
  std::chrono::steady_clock::time_point start_;
};

/// True when stderr is a terminal.
bool stderr_is_terminal();

}  // namespace aidcsim::cli
