// Helpers shared by tests: scratch folders on tmpfs and on the disk, and
// running the iofab binary as a user would.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <ios>
#include <string>
#include <vector>

namespace iofab::testing {

// A fresh folder, removed with everything under it on destruction.
class TempDir {
 public:
  // base: "/dev/shm" for tmpfs, "/var/tmp" for the root disk.
  explicit TempDir(const std::string& base = "/tmp");
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// One run's files in a scratch folder: the suite, the target, the report and the launcher's log.
struct RunFiles {
  explicit RunFiles(const std::string& base);
  TempDir dir;
  std::string suite, target, report, log;
};

struct CommandResult {
  int exit_code = -1;  // 128+N when killed by signal N
  std::string out;     // stdout
  std::string err;     // stderr
};

// Writes dir/suite.json, a suite named name of one small ingest phase ("ingest": one worker, one 1 MiB
// file) with one check that passes, and returns its path: the run a test of the outputs needs.
std::string write_one_ingest_suite(const std::string& dir, const std::string& name);

// Runs argv (argv[0] a path) with stdin from /dev/null; waits for it.
CommandResult run_command(const std::vector<std::string>& argv);
// Runs the built iofab binary with args.
CommandResult run_iofab(const std::vector<std::string>& args);
// Runs the built iofab binary under mpirun with ranks processes (oversubscribed,
// allowed as root). LeakSanitizer is off inside: OpenMPI's own allocations at
// exit are not ours to fix, while ASan's other checks stay on.
CommandResult mpirun_iofab(int ranks, const std::vector<std::string>& args);
// The same, started without waiting, stdout and stderr to the file log; returns mpirun's pid.
pid_t start_mpirun_iofab(int ranks, const std::vector<std::string>& args, const std::string& log);
// Writes a suite of one collectives sweep, one size of `bytes` repeated for far longer than any test
// waits, into f.suite, and starts `iofab run` on it under mpirun with ranks processes (report f.report,
// log f.log): the run a test interrupts or takes a rank from. Returns mpirun's pid.
pid_t start_long_sweep(const RunFiles& f, int ranks, const std::string& bytes, const std::string& phase_name);
// The same with argv given whole after mpirun's own options (for an MPMD line: "-np 1 strace ... : -np 2 iofab ...").
pid_t start_mpirun(const std::vector<std::string>& argv, const std::string& log);
// Waits up to limit for the child pid to exit, then kills it; true when it ended on its own
// (or was reaped already).
bool wait_for_exit(pid_t pid, std::chrono::seconds limit, int* status);
// The pid of the iofab process whose environment says it is MPI rank `rank` and whose
// command line holds `marker` (a path unique to the test); -1 when none.
pid_t find_rank_pid(int rank, const std::string& marker);
// Waits up to limit until no process whose command line holds `marker` and "iofab" remains
// (ranks, their report couriers, wrappers); true when none is left. The report courier may
// finish its write after mpirun has returned.
bool wait_until_no_process(const std::string& marker, std::chrono::seconds limit);
// Kills every such process (SIGKILL): a failed test must leave no stopped or orphaned rank.
void kill_every_process(const std::string& marker);
// True when that process holds a file descriptor open on a path that starts with prefix
// (its run folder, say: the runner holds it open from before the first phase to the end).
bool rank_holds_open(int rank, const std::string& marker, const std::string& prefix);
// Polls (up to 30 s) until each of ranks holds a file open under target's run folder (so it is in the
// run, its stop handlers set) and, when min_rss is given, holds more than min_rss bytes resident
// (its buffers allocated; under ASan a rank holds more than a small buffer from the start).
bool wait_until_ranks_in_run(const std::vector<int>& ranks, const std::string& marker, const std::string& target,
                             uint64_t min_rss = 0);
// That process's resident memory in bytes; 0 when there is none.
uint64_t rank_rss(int rank, const std::string& marker);

// Whether text holds part (a message names what it must).
inline bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

std::string read_file(const std::string& path);
void write_file(const std::string& path, const std::string& text);
// Flips the lowest bit of the byte at offset at of path, in place (a corrupted byte for the verify tests);
// a file that does not open fails the calling test.
void flip_byte(const std::string& path, std::streamoff at);
// Files (not folders) under dir, recursively, as paths relative to dir.
std::vector<std::string> list_files(const std::string& dir);

// A small tmpfs (64 MiB unless told) mounted for the object's life, under a temp folder in /var/tmp;
// mounted() is false where mounting is not allowed (not root): callers skip.
class SmallTmpfs {
 public:
  explicit SmallTmpfs(const std::string& size = "64m");
  ~SmallTmpfs();
  SmallTmpfs(const SmallTmpfs&) = delete;
  SmallTmpfs& operator=(const SmallTmpfs&) = delete;
  bool mounted() const { return mounted_; }
  const std::string& path() const { return path_; }

 private:
  TempDir dir_;
  std::string path_;
  bool mounted_ = false;
};

}  // namespace iofab::testing
