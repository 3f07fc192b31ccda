#include "driver/cli/child_process.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>

namespace iofab {
namespace {

// Reads both pipes until both close, so neither side blocks on a full pipe.
void drain(int out_fd, int err_fd, ChildResult* r) {
  pollfd fds[2] = {{.fd = out_fd, .events = POLLIN, .revents = 0},
                   {.fd = err_fd, .events = POLLIN, .revents = 0}};
  int open = 2;
  char buf[65536];
  while (open > 0) {
    if (::poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      return;
    }
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || fds[i].revents == 0) continue;
      const ssize_t n = ::read(fds[i].fd, buf, sizeof buf);
      if (n <= 0) {
        fds[i].fd = -1;
        --open;
        continue;
      }
      std::string& to = i == 0 ? r->out : r->err;
      to.append(buf, static_cast<size_t>(n));
      if (i == 1 && to.size() > 4096) to.erase(0, to.size() - 4096);
    }
  }
}

}  // namespace

Status run_child(const std::vector<std::string>& argv, ChildResult* result) {
  int out_pipe[2], err_pipe[2];
  if (::pipe2(out_pipe, O_CLOEXEC) != 0) return Status::FromErrno("pipe", errno);
  if (::pipe2(err_pipe, O_CLOEXEC) != 0) {
    ::close(out_pipe[0]);
    ::close(out_pipe[1]);
    return Status::FromErrno("pipe", errno);
  }
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  const pid_t pid = ::fork();
  if (pid == 0) {
    const int null = ::open("/dev/null", O_RDONLY);
    ::dup2(null, 0);
    ::dup2(out_pipe[1], 1);
    ::dup2(err_pipe[1], 2);
    ::execvp(args[0], args.data());
    ::_exit(127);
  }
  ::close(out_pipe[1]);
  ::close(err_pipe[1]);
  if (pid < 0) {
    ::close(out_pipe[0]);
    ::close(err_pipe[0]);
    return Status::FromErrno("fork", errno);
  }
  *result = {};
  drain(out_pipe[0], err_pipe[0], result);
  ::close(out_pipe[0]);
  ::close(err_pipe[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  result->exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return Status::Ok();
}

}  // namespace iofab
