#include "sim/cli/signals.hpp"

#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <thread>
#include <utility>

#include "models/common/cancel.hpp"
#include "sim/results/output_set.hpp"

namespace aidcsim::cli {
namespace {

// Self-pipe: the handler writes the signal number, the watcher thread reads it.
int g_pipe[2] = {-1, -1};
struct sigaction g_old_int {
}, g_old_term{};

void on_signal(int sig) {
  const int saved = errno;
  request_cancel(sig);
  const unsigned char b = static_cast<unsigned char>(sig);
  if (g_pipe[1] >= 0) (void)!::write(g_pipe[1], &b, 1);
  errno = saved;
}

void write_err(const char* s) { (void)!::write(2, s, std::strlen(s)); }

// Stops the process now (async-signal-safe calls only from here on).
[[noreturn]] void force_exit(int sig) {
  while (outputs_publishing()) ::usleep(1000);  // a set being published finishes first
  remove_registered_temporaries();
  print_stopped(sig, "; no output written\n");
  ::_exit(exit_code_for_signal(sig));
}

void watch() {
  unsigned char b = 0;
  while (true) {  // wait for a signal, or the end byte (0) from the destructor
    const ssize_t n = ::read(g_pipe[0], &b, 1);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0 || b == 0) return;
    break;
  }
  const int sig = b;
  pollfd p{g_pipe[0], POLLIN, 0};
  int left = static_cast<int>(kGraceSeconds * 1000);
  while (left > 0) {
    const int r = ::poll(&p, 1, 100);
    if (r > 0) {
      unsigned char c = 0;
      if (::read(g_pipe[0], &c, 1) == 1 && c == 0) return;  // the command ended by itself
      force_exit(c);                                        // a second signal
    }
    left -= 100;
  }
  force_exit(sig);  // the run did not stop in time
}

std::thread g_watcher;

}  // namespace

int exit_code_for_signal(int signal) { return signal > 0 ? 128 + signal : 1; }

void print_stopped(int signal, const char* detail) {
  if (signal == SIGINT)
    write_err("aidcsim: interrupted (SIGINT)");
  else if (signal == SIGTERM)
    write_err("aidcsim: terminated (SIGTERM)");
  else
    write_err("aidcsim: stopped");
  write_err(detail);
}

SignalGuard::SignalGuard() {
  reset_cancel();
  if (::pipe2(g_pipe, O_CLOEXEC) != 0) return;  // no watcher: the first signal still cancels
  g_watcher = std::thread(watch);
  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;
  // Caught even when inherited ignored: a non-interactive shell starts `aidcsim run ... &` with
  // SIGINT ignored, and `kill -INT $!` must still stop it with its line and 130 (case step/11).
  // nohup ignores SIGHUP only, which is not touched here.
  for (auto [sig, old] : {std::pair{SIGINT, &g_old_int}, std::pair{SIGTERM, &g_old_term}})
    if (::sigaction(sig, nullptr, old) == 0) ::sigaction(sig, &sa, nullptr);
}

SignalGuard::~SignalGuard() {
  ::sigaction(SIGINT, &g_old_int, nullptr);
  ::sigaction(SIGTERM, &g_old_term, nullptr);
  if (g_watcher.joinable()) {
    const unsigned char end = 0;
    (void)!::write(g_pipe[1], &end, 1);
    g_watcher.join();
  }
  for (int& fd : g_pipe)
    if (fd >= 0) ::close(fd), fd = -1;
}

}  // namespace aidcsim::cli
