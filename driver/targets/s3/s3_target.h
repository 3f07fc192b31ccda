// An s3:// target: a bucket and a prefix on an S3 endpoint, the run's keys under
// <prefix>/iofab-<run id>/ (s3_run.h), the suite's "s3" section its settings.
#pragma once

#include <cstddef>
#include <iosfwd>
#include <memory>
#include <string>
#include <string_view>

#include "driver/targets/run_target.h"

namespace iofab {

// S3's limit on a key's length, in bytes of UTF-8.
inline constexpr size_t kMaxS3KeyBytes = 1024;
// "iofab-" and a run id ("20260101T000000Z-abcdef"): the run's own prefix below the target's.
inline constexpr size_t kRunPrefixBytes = 6 + 23;

std::unique_ptr<RunTarget> make_s3_run_target(const std::string& target, const Suite& suite);
// What a suite may hold on an s3:// target (suite_target.cc).
Status check_suite_on_s3(const Suite& suite, std::string_view target, int ranks);
// `iofab clean --target s3://bucket/prefix` (clean_s3.cc): the objects and unfinished multipart uploads
// under <prefix>/iofab-<run id>/ only (run prefixes of iofab's naming), by the folder's rules.
int clean_s3_target(const CleanArgs& args, bool interactive, std::istream& in, std::ostream& out,
                    std::ostream& err);

}  // namespace iofab
