// What a suite may hold on a folder target: no check on a figure only an object store's requests produce,
// and with target_scope "host" only phases whose ranks read what they wrote themselves.
#include <string>
#include <vector>

#include "harness/phase/request_metrics.h"
#include "driver/suite/suite.h"
#include "driver/targets/folder/folder_target.h"

namespace iofab {

namespace {

// On a folder there are no requests: a check on a request figure could never have a value.
void check_phases_on_folder(const Suite& suite, std::string_view target, std::vector<std::string>* errors) {
  for (const auto& p : suite.phases) {
    for (const auto& c : p.checks) {
      if (!is_request_metric(c.metric)) continue;
      errors->push_back(c.path + ".metric: " + c.metric +
                        " is a figure of an object store's requests, measured only on an s3:// target; the "
                        "target " +
                        std::string(target) +
                        " is a folder, where the phase sends no requests: drop the check, or run on an s3:// "
                        "target");
    }
  }
}

}  // namespace

Status check_suite_on_folder(const Suite& suite, std::string_view target, int /*ranks*/) {
  std::vector<std::string> errors;
  check_phases_on_folder(suite, target, &errors);
  check_target_scope(suite, &errors);
  return errors.empty() ? Status::Ok() : Status::Invalid(join_lines(errors));
}

}  // namespace iofab
