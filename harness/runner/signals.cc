#include "harness/runner/signals.h"

#include <signal.h>
#include <unistd.h>

#include "harness/fs/atomic_file.h"

namespace iofab {
namespace {

std::atomic<bool> g_stop{false};
std::atomic<int> g_signal{0};

void on_signal(int sig) {
  if (g_stop.exchange(true)) {
    remove_partial_report_file();
    _exit(128 + sig);
  }
  g_signal.store(sig);
  static const char kMsg[] = "\niofab: stopping, cleaning up (signal again to exit at once)\n";
  ssize_t ignored = write(2, kMsg, sizeof kMsg - 1);
  (void)ignored;
}

}  // namespace

void install_stop_handlers() {
  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = 0;  // no SA_RESTART: a blocked syscall returns EINTR and workers notice the flag
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
}

std::atomic<bool>& stop_flag() { return g_stop; }
int stop_signal() { return g_signal.load(); }

}  // namespace iofab
