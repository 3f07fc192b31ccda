#include "test_util.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <atomic>
#include <cerrno>
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

// Under ctest, IOFAB_TEST_REPORTS_DIR names a folder (tests/CMakeLists.txt): every report a run printed
// ("report: PATH") is copied there, and ReportSchema.EveryReportTheTestsWrote validates them all against
// docs/report.schema.json after the tests, so the schema cannot drift from what iofab writes.
static void collect_reports(const CommandResult& r) {
  const char* dir = std::getenv("IOFAB_TEST_REPORTS_DIR");
  if (dir == nullptr || *dir == '\0') return;
  static std::atomic<unsigned> counter{0};
  std::istringstream lines(r.out);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("report: ", 0) != 0) continue;
    const fs::path from = line.substr(8);
    const std::string name =
        std::to_string(getpid()) + "-" + std::to_string(counter++) + "-" + from.filename().string();
    std::error_code ec;
    fs::copy_file(from, fs::path(dir) / name, fs::copy_options::overwrite_existing, ec);
  }
}

std::string write_one_ingest_suite(const std::string& dir, const std::string& name) {
  const std::string path = dir + "/suite.json";
  write_file(path,
             R"({"name": ")" + name + R"(", "phases": [{"kind": "ingest", "name": "ingest", "workers": 1,
    "files_per_worker": 1, "file_size": "1MiB", "block_size": "256KiB", "direct": false,
    "checks": [{"metric": "write_bytes", "op": ">=", "value": 1}]}]})");
  return path;
}

CommandResult run_iofab(const std::vector<std::string>& args) {
  std::vector<std::string> argv{IOFAB_BINARY};
  argv.insert(argv.end(), args.begin(), args.end());
  CommandResult r = run_command(argv);
  collect_reports(r);
  return r;
}

CommandResult mpirun_iofab(int ranks, const std::vector<std::string>& args) {
  std::vector<std::string> argv{IOFAB_MPIEXEC, "--allow-run-as-root", "--oversubscribe", "-x",
                                "ASAN_OPTIONS=detect_leaks=0", "-np", std::to_string(ranks), IOFAB_BINARY};
  argv.insert(argv.end(), args.begin(), args.end());
  CommandResult r = run_command(argv);
  collect_reports(r);
  return r;
}

pid_t start_mpirun_iofab(int ranks, const std::vector<std::string>& args, const std::string& log) {
  std::vector<std::string> argv{"-np", std::to_string(ranks), IOFAB_BINARY};
  argv.insert(argv.end(), args.begin(), args.end());
  return start_mpirun(argv, log);
}

RunFiles::RunFiles(const std::string& base)
    : dir(base),
      suite(dir.path() + "/s.json"),
      target(dir.path() + "/t"),
      report(dir.path() + "/r.json"),
      log(dir.path() + "/log") {}

pid_t start_long_sweep(const RunFiles& f, int ranks, const std::string& bytes, const std::string& phase_name) {
  write_file(f.suite, R"({"phases": [{"kind": "collectives", "name": ")" + phase_name +
                          R"(", "mode": "sweep", "min_bytes": ")" + bytes + R"(", "max_bytes": ")" + bytes +
                          R"(", "iters": 100000, "warmup": 1, "ops": ["all_reduce"]}]})");
  return start_mpirun_iofab(ranks, {"run", f.suite, "--target", f.target, "--out", f.report, "--quiet"}, f.log);
}

pid_t start_mpirun(const std::vector<std::string>& tail, const std::string& log) {
  std::vector<std::string> argv{IOFAB_MPIEXEC, "--allow-run-as-root", "--oversubscribe", "-x",
                                "ASAN_OPTIONS=detect_leaks=0"};
  argv.insert(argv.end(), tail.begin(), tail.end());
  pid_t pid = fork();
  if (pid == 0) {
    int fd = open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    dup2(fd, 1);
    dup2(fd, 2);
    std::vector<char*> cargv;
    for (auto& a : argv) cargv.push_back(a.data());
    cargv.push_back(nullptr);
    execv(cargv[0], cargv.data());
    _exit(127);
  }
  return pid;
}

bool wait_for_exit(pid_t pid, std::chrono::seconds limit, int* status) {
  const auto until = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < until) {
    const pid_t r = waitpid(pid, status, WNOHANG);
    if (r == pid || (r < 0 && errno == ECHILD)) return true;  // ECHILD: reaped already
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  kill(pid, SIGKILL);
  waitpid(pid, status, 0);
  return false;
}

namespace {

// The pids of processes whose command line holds marker and "iofab".
std::vector<std::string> marked_pids(const std::string& marker) {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator("/proc", ec)) {
    const std::string pid = e.path().filename().string();
    if (pid.find_first_not_of("0123456789") != std::string::npos) continue;
    const std::string cmdline = read_file("/proc/" + pid + "/cmdline");
    if (cmdline.find(marker) == std::string::npos || cmdline.find("iofab") == std::string::npos) continue;
    // A zombie has exited: it only waits for its parent to reap it.
    const std::string stat = read_file("/proc/" + pid + "/stat");
    const auto close_paren = stat.rfind(')');
    if (close_paren != std::string::npos && close_paren + 2 < stat.size() && stat[close_paren + 2] == 'Z') continue;
    out.push_back(pid);
  }
  return out;
}

}  // namespace

bool wait_until_no_process(const std::string& marker, std::chrono::seconds limit) {
  const auto until = std::chrono::steady_clock::now() + limit;
  while (!marked_pids(marker).empty()) {
    if (std::chrono::steady_clock::now() >= until) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return true;
}

void kill_every_process(const std::string& marker) {
  for (const auto& pid : marked_pids(marker)) kill(static_cast<pid_t>(std::stoi(pid)), SIGKILL);
}

pid_t find_rank_pid(int rank, const std::string& marker) {
  for (const auto& pid : marked_pids(marker)) {
    // The rank itself: not its report courier ("iofab-courier"), nor a wrapper such as strace.
    if (read_file("/proc/" + pid + "/comm") != "iofab\n") continue;
    const std::string env = read_file("/proc/" + pid + "/environ");
    if (env.find("OMPI_COMM_WORLD_RANK=" + std::to_string(rank) + std::string(1, '\0')) != std::string::npos) {
      return static_cast<pid_t>(std::stoi(pid));
    }
  }
  return -1;
}

bool rank_holds_open(int rank, const std::string& marker, const std::string& prefix) {
  const pid_t pid = find_rank_pid(rank, marker);
  if (pid <= 0) return false;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator("/proc/" + std::to_string(pid) + "/fd", ec)) {
    const auto target = std::filesystem::read_symlink(e.path(), ec);
    if (!ec && target.string().rfind(prefix, 0) == 0) return true;
  }
  return false;
}

uint64_t rank_rss(int rank, const std::string& marker) {
  const pid_t pid = find_rank_pid(rank, marker);
  if (pid <= 0) return 0;
  const std::string status = read_file("/proc/" + std::to_string(pid) + "/status");
  const auto at = status.find("VmRSS:");
  return at == std::string::npos ? 0 : std::stoull(status.substr(at + 6)) * 1024;
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

void flip_byte(const std::string& path, std::streamoff at) {
  std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
  if (!f.good()) {
    ADD_FAILURE() << "cannot open " << path;
    return;
  }
  f.seekg(at);
  char c = 0;
  f.read(&c, 1);
  c = static_cast<char>(c ^ 0x01);
  f.seekp(at);
  f.write(&c, 1);
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

SmallTmpfs::SmallTmpfs(const std::string& size) : dir_("/var/tmp") {
  path_ = dir_.path() + "/mnt";
  fs::create_directory(path_);
  mounted_ = mount("tmpfs", path_.c_str(), "tmpfs", 0, ("size=" + size).c_str()) == 0;
}

SmallTmpfs::~SmallTmpfs() {
  if (mounted_) umount2(path_.c_str(), MNT_DETACH);
}

bool wait_until_ranks_in_run(const std::vector<int>& ranks, const std::string& marker, const std::string& target,
                             uint64_t min_rss) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (std::chrono::steady_clock::now() < until) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    bool all = true;
    for (int r : ranks) {
      all = all && rank_holds_open(r, marker, target + "/iofab-") && (min_rss == 0 || rank_rss(r, marker) > min_rss);
    }
    if (all) return true;
  }
  return false;
}

}  // namespace iofab::testing
