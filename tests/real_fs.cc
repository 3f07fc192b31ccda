#include "real_fs.h"

#include <gtest/gtest.h>

namespace iofab::testing {

RealFs::RealFs(const std::string& kind) : base_("/var/tmp"), dir_(base_.path() + "/fs") {
  const std::string script = std::string(IOFAB_SOURCE_DIR) + "/ci/target-fs";
  CommandResult r = run_command({"/bin/bash", script, "up", kind, dir_});
  if (r.exit_code == 0) {
    path_ = r.out;
    while (!path_.empty() && (path_.back() == '\n' || path_.back() == ' ')) path_.pop_back();
    return;
  }
  why_not_ = r.err.empty() ? "ci/target-fs up " + kind + " exited " + std::to_string(r.exit_code) : r.err;
  // A setup that failed part-way (not a skip) is a test failure, not a reason to skip.
  if (r.exit_code != 77) ADD_FAILURE() << "ci/target-fs up " << kind << " failed: " << r.err;
}

RealFs::~RealFs() {
  // After a failed `up` too: whatever it started before failing is recorded and undone.
  CommandResult r = run_command({"/bin/bash", std::string(IOFAB_SOURCE_DIR) + "/ci/target-fs", "down", dir_});
  if (r.exit_code != 0) ADD_FAILURE() << "ci/target-fs down " << dir_ << " failed: " << r.err;
}

}  // namespace iofab::testing
