// What a suite may hold on an s3:// target: what any object store's target may hold (object_store_suite.h:
// the phase kinds that run there, params that make sense there, engines that reach an object, no
// concurrent group), and no key longer than S3's 1,024 bytes (the run's prefix and the longest path a
// phase makes below it).
#include <string>
#include <vector>

#include "harness/s3/s3_config.h"
#include "driver/suite/suite.h"
#include "driver/targets/object_store_suite.h"
#include "driver/targets/s3/s3_target.h"

namespace iofab {

namespace {

// The longest key the suite makes: <prefix>/iofab-<run id>/<phase>/<its longest path>.
void check_key_lengths(const Suite& suite, std::string_view target, const std::string& prefix, int ranks,
                       std::vector<std::string>* errors) {
  const size_t run_prefix = (prefix.empty() ? 0 : prefix.size() + 1) + kRunPrefixBytes + 1;
  for (const auto& p : suite.phases) {
    const size_t tail = p.phase->longest_path_bytes(ranks);
    if (tail == 0) continue;
    const size_t longest = run_prefix + p.name.size() + 1 + tail;
    if (longest <= kMaxS3KeyBytes) continue;
    errors->push_back("target " + std::string(target) + ": phase " + p.name + " would make keys of up to " +
                      std::to_string(longest) + " bytes (the prefix's " + std::to_string(prefix.size()) +
                      ", iofab-<run id>/, the phase's folder and its longest path, " + std::to_string(tail) +
                      " bytes); S3 takes keys of at most " + std::to_string(kMaxS3KeyBytes) + " bytes: " +
                      (longest - kMaxS3KeyBytes <= prefix.size()
                           ? "expected a prefix of at most " +
                                 std::to_string(prefix.size() - (longest - kMaxS3KeyBytes)) +
                                 " bytes, or a shorter phase name"
                           : std::string("expected a shorter phase name")));
  }
}

}  // namespace

Status check_suite_on_s3(const Suite& suite, std::string_view target, int ranks) {
  std::vector<std::string> errors;
  check_suite_on_object_store(suite, {.where = "an s3:// target", .engine = "s3"}, &errors);
  std::string bucket, prefix;
  if (Status s = parse_s3_target(target, &bucket, &prefix); !s.ok()) {
    errors.push_back(s.message());
  } else {
    check_key_lengths(suite, target, prefix, ranks, &errors);
  }
  return errors.empty() ? Status::Ok() : Status::Invalid(join_lines(errors));
}

}  // namespace iofab
