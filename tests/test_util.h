// Helpers shared by tests: scratch folders on tmpfs and on the disk, and
// running the iofab binary as a user would.
#pragma once

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

struct CommandResult {
  int exit_code = -1;  // 128+N when killed by signal N
  std::string out;     // stdout
  std::string err;     // stderr
};

// Runs argv (argv[0] a path) with stdin from /dev/null; waits for it.
CommandResult run_command(const std::vector<std::string>& argv);
// Runs the built iofab binary with args.
CommandResult run_iofab(const std::vector<std::string>& args);
// Runs the built iofab binary under mpirun with ranks processes (oversubscribed,
// allowed as root). LeakSanitizer is off inside: OpenMPI's own allocations at
// exit are not ours to fix, while ASan's other checks stay on.
CommandResult mpirun_iofab(int ranks, const std::vector<std::string>& args);

std::string read_file(const std::string& path);
void write_file(const std::string& path, const std::string& text);
// Files (not folders) under dir, recursively, as paths relative to dir.
std::vector<std::string> list_files(const std::string& dir);

}  // namespace iofab::testing
