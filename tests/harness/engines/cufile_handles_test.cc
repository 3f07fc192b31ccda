#include "harness/engines/cufile_handles.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <map>
#include <set>
#include <string>

#include "test_util.h"

namespace iofab {
namespace {

using testing::TempDir;

// cuFile as it behaves: one registration per descriptor, a second refused with 5028 until deregistered.
struct FakeCufile {
  std::set<int> registered;
  int register_calls = 0;
  int deregister_calls = 0;
  int next = 1;
  std::map<cufile_abi::Handle, int> fd_of;

  CufileHandles handles() {
    return CufileHandles(
        [this](int fd, cufile_abi::Handle* h) {
          ++register_calls;
          if (!registered.insert(fd).second) return cufile_abi::Error{.err = 5028, .cu_err = 0};
          *h = reinterpret_cast<cufile_abi::Handle>(static_cast<uintptr_t>(next++));
          fd_of[*h] = fd;
          return cufile_abi::Error{.err = 0, .cu_err = 0};
        },
        [this](cufile_abi::Handle h) {
          ++deregister_calls;
          registered.erase(fd_of.at(h));
        });
  }
};

int open_file(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  EXPECT_GE(fd, 0) << path;
  return fd;
}

// train_read's reader threads each have an engine, and each takes every shard's descriptor: the
// second registration cuFile itself would refuse is the first one, shared.
TEST(CufileHandles, EnginesSharingADescriptorShareOneRegistration) {
  TempDir dir;
  const int fd = open_file(dir.path() + "/shard");
  FakeCufile cufile;
  CufileHandles handles = cufile.handles();
  cufile_abi::Handle a = nullptr, b = nullptr;
  ASSERT_EQ(handles.acquire(fd, &a).err, 0);
  ASSERT_EQ(handles.acquire(fd, &b).err, 0);
  EXPECT_EQ(a, b);
  EXPECT_EQ(cufile.register_calls, 1);
  EXPECT_EQ(handles.holders(fd), 2);
  // One engine done: the other still reads through the registration.
  handles.release(fd, a);
  EXPECT_EQ(cufile.deregister_calls, 0);
  EXPECT_TRUE(cufile.registered.count(fd));
  handles.release(fd, b);
  EXPECT_EQ(cufile.deregister_calls, 1);
  EXPECT_FALSE(cufile.registered.count(fd));
  EXPECT_EQ(handles.holders(fd), 0);
  close(fd);
}

TEST(CufileHandles, AFailedRegistrationIsReportedAndNotKept) {
  TempDir dir;
  const int fd = open_file(dir.path() + "/f");
  FakeCufile cufile;
  cufile.registered.insert(fd);  // registered outside this registry
  CufileHandles handles = cufile.handles();
  cufile_abi::Handle h = nullptr;
  EXPECT_EQ(handles.acquire(fd, &h).err, 5028);
  EXPECT_EQ(handles.holders(fd), 0);
  cufile.registered.erase(fd);
  EXPECT_EQ(handles.acquire(fd, &h).err, 0);
  EXPECT_EQ(cufile.register_calls, 2);
  close(fd);
}

// A descriptor number closed without a release and reused for another file: the stale registration
// goes, the new file gets its own, and the old holder's late release leaves the new one alone.
TEST(CufileHandles, AReusedDescriptorNumberGetsAFreshRegistration) {
  TempDir dir;
  FakeCufile cufile;
  CufileHandles handles = cufile.handles();
  const int first = open_file(dir.path() + "/one");
  cufile_abi::Handle old_handle = nullptr;
  ASSERT_EQ(handles.acquire(first, &old_handle).err, 0);
  close(first);
  const int second = open_file(dir.path() + "/two");
  ASSERT_EQ(second, first);  // the lowest free number comes back
  cufile_abi::Handle fresh = nullptr;
  ASSERT_EQ(handles.acquire(second, &fresh).err, 0);
  EXPECT_NE(fresh, old_handle);
  EXPECT_EQ(cufile.register_calls, 2);
  EXPECT_EQ(cufile.deregister_calls, 1);
  handles.release(second, old_handle);
  EXPECT_EQ(handles.holders(second), 1);
  handles.release(second, fresh);
  EXPECT_EQ(handles.holders(second), 0);
  close(second);
}

}  // namespace
}  // namespace iofab
