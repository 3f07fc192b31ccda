// A real filesystem for an integration test, set up and torn down by ci/target-fs (the same script
// ci/targets uses): GlusterFS over FUSE, or XFS, btrfs, ext4 on a loop device.
#pragma once

#include <string>

#include "test_util.h"

namespace iofab::testing {

class RealFs {
 public:
  // kind: "gluster", "xfs", "btrfs" or "ext4".
  explicit RealFs(const std::string& kind);
  ~RealFs();
  RealFs(const RealFs&) = delete;
  RealFs& operator=(const RealFs&) = delete;

  bool mounted() const { return !path_.empty(); }
  // Why it is not mounted (ci/target-fs's own words): the test skips with it.
  const std::string& why_not() const { return why_not_; }
  const std::string& path() const { return path_; }

 private:
  TempDir base_;
  std::string dir_;
  std::string path_;
  std::string why_not_;
};

}  // namespace iofab::testing
