// What a suite may hold on a target of a given kind, checked wherever the target is known (`run`, and
// `validate --target` or a suite with "target"), before anything is written or any server is asked:
// - on an s3:// target: only the phase kinds that run on an object store, params that make sense there,
//   engines that reach an object, no concurrent group, and no key longer than S3's 1,024 bytes (the run's
//   prefix and the longest path a phase makes below it);
// - on a folder target: no check on a figure only an object store's requests produce (request_errors).
// InvalidArgument (exit 2), each error naming its JSON path, one a line.
#pragma once

#include <cstddef>
#include <string_view>

#include "harness/core/status.h"
#include "harness/suite/suite.h"

namespace iofab {

// S3's limit on a key's length, in bytes of UTF-8.
inline constexpr size_t kMaxS3KeyBytes = 1024;
// "iofab-" and a run id ("20260101T000000Z-abcdef"): the run's own prefix below the target's.
inline constexpr size_t kRunPrefixBytes = 6 + 23;

// ranks: how many ranks run the suite (phases' file names hold rank numbers); 1 where not known yet.
Status check_suite_for_target(const Suite& suite, std::string_view target, int ranks);

// target_scope "host": each host's own folder, so a phase that reads what another rank made (a restore of
// the checkpoint, a dataset rank 0 generates) would find nothing on the other hosts. Such phases appended
// to *errors (target_scope.cc).
void check_target_scope(const Suite& suite, std::vector<std::string>* errors);

}  // namespace iofab
