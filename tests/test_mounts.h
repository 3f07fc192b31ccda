// Test helpers around mounts and background runs: a bind mount held for a scope, and the iofab
// binary started without waiting.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

namespace iofab::testing {

// src bind-mounted at dst (an existing folder) for the object's life; read_only: remounted read-only.
// mounted() is false where mounting is not allowed (why() says why): callers skip.
class BindMount {
 public:
  BindMount(const std::string& src, const std::string& dst, bool read_only = false);
  ~BindMount();
  BindMount(const BindMount&) = delete;
  BindMount& operator=(const BindMount&) = delete;
  bool mounted() const { return mounted_; }
  const std::string& why() const { return why_; }

 private:
  std::string dst_;
  bool mounted_ = false;
  std::string why_;
};

// Starts the built iofab binary with args, stdout and stderr to the file log, without waiting; its pid.
pid_t start_iofab(const std::vector<std::string>& args, const std::string& log);

}  // namespace iofab::testing
