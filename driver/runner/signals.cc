#include "driver/runner/signals.h"

#include <signal.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include <cstdint>

#include "harness/fs/atomic_file.h"

namespace iofab {
namespace {

std::atomic<bool> g_stop{false};
std::atomic<int> g_signal{0};
// Written once by the first signal, never read: it stays readable, so a thread can sleep in poll()
// until a stop instead of polling the flag (a wake-up every few ms steals a busy rank's core).
std::atomic<int> g_wake_fd{-1};
// When the first stop signal came (CLOCK_MONOTONIC, ns); 0 until its handler has stored it.
std::atomic<int64_t> g_first_ns{0};

int64_t monotonic_ns() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);  // async-signal-safe
  return static_cast<int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

void on_signal(int sig) {
  const int64_t now = monotonic_ns();
  if (g_stop.exchange(true)) {
    // One request that arrives twice is still one: GNU timeout signals its child and then its whole
    // process group, the child included, and a terminal's Ctrl-C reaches the launcher and every rank.
    // Only a signal well after the first (a second Ctrl-C by hand) exits at once. A first handler
    // still running on another thread (no time stored yet) makes this one a repeat too.
    const int64_t first = g_first_ns.load();
    if (first == 0 || now - first < kRepeatSignalWindowNs) return;
    remove_partial_report_file();
    _exit(128 + sig);
  }
  g_signal.store(sig);
  g_first_ns.store(now > 0 ? now : 1);
  if (const int fd = g_wake_fd.load(); fd >= 0) {
    const uint64_t one = 1;
    ssize_t woke = write(fd, &one, sizeof one);
    (void)woke;
  }
  static const char kMsg[] = "\niofab: stopping, cleaning up (signal again to exit at once)\n";
  ssize_t ignored = write(2, kMsg, sizeof kMsg - 1);
  (void)ignored;
}

}  // namespace

void install_stop_handlers() {
  if (g_wake_fd.load() < 0) g_wake_fd.store(eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK));
  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = 0;  // no SA_RESTART: a blocked syscall returns EINTR and workers notice the flag
  for (const int sig : {SIGINT, SIGTERM, SIGHUP}) sigaction(sig, &sa, nullptr);
  // After a hangup (an ssh session dropped) the console may be a pipe nobody reads: a write to it must
  // fail (EPIPE), not kill the run before it removes its files and writes the report.
  signal(SIGPIPE, SIG_IGN);
}

std::atomic<bool>& stop_flag() { return g_stop; }
int stop_signal() { return g_signal.load(); }
int stop_wake_fd() { return g_wake_fd.load(); }

}  // namespace iofab
