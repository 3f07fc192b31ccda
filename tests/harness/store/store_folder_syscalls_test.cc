// A held folder costs one system call a stat, a create's open or a remove; by path, each call first opens
// the parent folder (dup or openat, then close). Counted with strace around this test binary itself: the
// counted work is a disabled test that the counting test runs under strace.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include "harness/store/posix_store.h"
#include "harness/store/store_folder.h"
#include "test_util.h"

namespace iofab::testing {
namespace {

constexpr int kNames = 1000;

// The work strace counts: kNames creates, stats and removes in one folder, held or by path; with n 0,
// the same set-up alone (the binary's start, the temp folder, the store), whose calls are subtracted.
void work(bool held, int count = kNames) {
  TempDir dir("/dev/shm");
  std::unique_ptr<Store> store;
  ASSERT_TRUE(open_posix_store(dir.path(), false, &store).ok());
  ASSERT_TRUE(store->make_folder("d").ok());
  std::unique_ptr<StoreFolder> d;
  ASSERT_TRUE(store->open_folder("d", &d).ok());
  EntryInfo info;
  for (int i = 0; i < count; ++i) {
    const std::string n = "f" + std::to_string(i);
    StoreFile f;
    ASSERT_TRUE((held ? d->create(n, {}, &f) : store->create("d/" + n, {}, &f)).ok());
  }
  for (int i = 0; i < count; ++i) {
    const std::string n = "f" + std::to_string(i);
    ASSERT_TRUE((held ? d->stat(n, &info) : store->stat("d/" + n, &info)).ok());
  }
  for (int i = 0; i < count; ++i) {
    const std::string n = "f" + std::to_string(i);
    ASSERT_TRUE((held ? d->remove(n) : store->remove("d/" + n)).ok());
  }
}

TEST(StoreFolderSyscalls, DISABLED_HeldWork) { work(true); }
TEST(StoreFolderSyscalls, DISABLED_ByPathWork) { work(false); }
TEST(StoreFolderSyscalls, DISABLED_SetUpAlone) { work(true, 0); }

// strace -c's calls per system call for the disabled test named test, run in this binary.
std::map<std::string, long> count_calls(const std::string& test, const std::string& out) {
  const std::string cmd = "strace -f -qq -c -o " + out + " /proc/" + std::to_string(getpid()) +
                          "/exe --gtest_also_run_disabled_tests --gtest_filter=StoreFolderSyscalls." + test +
                          " >/dev/null 2>&1";
  std::map<std::string, long> calls;
  if (std::system(cmd.c_str()) != 0) return calls;
  std::ifstream in(out);
  std::string line;
  // "% time     seconds  usecs/call     calls    errors syscall" rows: calls is the 4th column, the name last.
  while (std::getline(in, line)) {
    std::istringstream ls(line);
    std::vector<std::string> f;
    std::string tok;
    while (ls >> tok) f.push_back(tok);
    if (f.size() >= 5 && std::isdigit(static_cast<unsigned char>(f[0][0])) && f[0].find('.') != std::string::npos) {
      calls[f.back()] = std::stol(f[3]);
    }
  }
  return calls;
}

TEST(StoreFolderSyscalls, AHeldFolderCostsOneCallAStatACreateAndARemove) {
  if (std::system("command -v strace >/dev/null 2>&1") != 0) GTEST_SKIP() << "strace is not installed";
  TempDir tmp;
  const auto base = count_calls("DISABLED_SetUpAlone", tmp.path() + "/base");
  const auto held = count_calls("DISABLED_HeldWork", tmp.path() + "/held");
  const auto by_path = count_calls("DISABLED_ByPathWork", tmp.path() + "/path");
  if (base.empty() || held.empty() || by_path.empty()) GTEST_SKIP() << "strace cannot trace here (no ptrace)";
  // Calls beyond the set-up alone (the binary's start: its libraries, gtest, the temp folder).
  auto work_calls = [&](const std::map<std::string, long>& m, std::initializer_list<const char*> names) {
    long n = 0;
    for (const char* name : names) {
      const auto it = m.find(name), b = base.find(name);
      n += (it == m.end() ? 0 : it->second) - (b == base.end() ? 0 : b->second);
    }
    return n;
  };
  constexpr long kSlack = 10;  // a run's own variation (a lazily loaded library, a page of the test list)
  EXPECT_LE(work_calls(held, {"newfstatat", "statx"}), kNames + kSlack);  // the stats
  EXPECT_LE(work_calls(held, {"openat", "openat2"}), kNames + kSlack);    // the creates
  EXPECT_LE(work_calls(held, {"unlinkat"}), kNames + kSlack);             // the removes
  EXPECT_LE(work_calls(held, {"dup"}), kSlack);
  EXPECT_LE(work_calls(held, {"close"}), kNames + kSlack);                // each created file's close
  // By path, each stat and remove first takes the parent folder (a dup or an openat) and closes it.
  EXPECT_GE(work_calls(by_path, {"dup", "openat", "openat2"}), 3L * kNames);
  EXPECT_GE(work_calls(by_path, {"close"}), 3L * kNames);
}

}  // namespace
}  // namespace iofab::testing
