#include "harness/runner/signals.h"

#include <signal.h>
#include <sys/eventfd.h>
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

void on_signal(int sig) {
  if (g_stop.exchange(true)) {
    remove_partial_report_file();
    _exit(128 + sig);
  }
  g_signal.store(sig);
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
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
}

std::atomic<bool>& stop_flag() { return g_stop; }
int stop_signal() { return g_signal.load(); }
int stop_wake_fd() { return g_wake_fd.load(); }

}  // namespace iofab
