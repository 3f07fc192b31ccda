// The process's cuFile file registrations, one per open file, counted.
// cuFile keeps one registration per descriptor for the whole process: a second
// cuFileHandleRegister of a descriptor is refused (CU_FILE_HANDLE_ALREADY_REGISTERED,
// 5028), and one cuFileHandleDeregister ends it for every holder. Engines of one
// process share descriptors (train_read gives each reader thread an engine, and every
// one of them takes every shard), so they take the registration from here.
#pragma once

#include <sys/types.h>

#include <functional>
#include <map>
#include <mutex>

#include "harness/engines/cufile_abi.h"

namespace iofab {

class CufileHandles {
 public:
  using RegisterFn = std::function<cufile_abi::Error(int fd, cufile_abi::Handle* handle)>;
  using DeregisterFn = std::function<void(cufile_abi::Handle handle)>;

  CufileHandles(RegisterFn reg, DeregisterFn dereg)
      : register_(std::move(reg)), deregister_(std::move(dereg)) {}

  // The registration of fd: made on first use, else the one already made for this very file (a
  // descriptor number reused for another file gets one of its own). A failure is cuFile's status.
  cufile_abi::Error acquire(int fd, cufile_abi::Handle* handle);

  // One holder done with fd's registration (the handle acquire gave); the last one deregisters it.
  void release(int fd, cufile_abi::Handle handle);

  // Holders of fd's registration (0: none): for tests.
  int holders(int fd) const;

 private:
  struct Entry {
    cufile_abi::Handle handle = nullptr;
    dev_t dev = 0;
    ino_t ino = 0;
    int refs = 0;
  };
  RegisterFn register_;
  DeregisterFn deregister_;
  mutable std::mutex mu_;
  std::map<int, Entry> by_fd_;
};

}  // namespace iofab
