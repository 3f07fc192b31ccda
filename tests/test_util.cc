#include "test_util.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

extern char** environ;

namespace iofab::testing {

namespace fs = std::filesystem;

TempDir::TempDir(const std::string& base) {
  std::string tmpl = base + "/iofab-test-XXXXXX";
  if (mkdtemp(tmpl.data()) == nullptr) throw std::runtime_error("mkdtemp failed under " + base);
  path_ = tmpl;
}

TempDir::~TempDir() {
  std::error_code ec;
  fs::remove_all(path_, ec);
}

static std::string drain(int fd) {
  std::string s;
  char buf[65536];
  ssize_t n;
  while ((n = read(fd, buf, sizeof buf)) > 0) s.append(buf, static_cast<size_t>(n));
  close(fd);
  return s;
}

CommandResult run_command(const std::vector<std::string>& argv) {
  int out_pipe[2], err_pipe[2];
  if (pipe(out_pipe) != 0 || pipe(err_pipe) != 0) throw std::runtime_error("pipe failed");
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&fa, out_pipe[1], 1);
  posix_spawn_file_actions_adddup2(&fa, err_pipe[1], 2);
  posix_spawn_file_actions_addclose(&fa, out_pipe[0]);
  posix_spawn_file_actions_addclose(&fa, err_pipe[0]);
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid;
  int rc = posix_spawn(&pid, args[0], &fa, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  close(out_pipe[1]);
  close(err_pipe[1]);
  CommandResult r;
  if (rc != 0) {
    close(out_pipe[0]);
    close(err_pipe[0]);
    r.err = "posix_spawn failed";
    return r;
  }
  std::string err_text;
  std::thread err_reader([&] { err_text = drain(err_pipe[0]); });
  r.out = drain(out_pipe[0]);
  err_reader.join();
  r.err = std::move(err_text);
  int status = 0;
  waitpid(pid, &status, 0);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return r;
}

CommandResult run_iofab(const std::vector<std::string>& args) {
  std::vector<std::string> argv{IOFAB_BINARY};
  argv.insert(argv.end(), args.begin(), args.end());
  return run_command(argv);
}

CommandResult mpirun_iofab(int ranks, const std::vector<std::string>& args) {
  std::vector<std::string> argv{IOFAB_MPIEXEC, "--allow-run-as-root", "--oversubscribe", "-x",
                                "ASAN_OPTIONS=detect_leaks=0", "-np", std::to_string(ranks), IOFAB_BINARY};
  argv.insert(argv.end(), args.begin(), args.end());
  return run_command(argv);
}

std::string read_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

void write_file(const std::string& path, const std::string& text) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f << text;
}

std::vector<std::string> list_files(const std::string& dir) {
  std::vector<std::string> out;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec)) {
    if (!it->is_directory(ec)) out.push_back(fs::relative(it->path(), dir).string());
  }
  return out;
}

}  // namespace iofab::testing
