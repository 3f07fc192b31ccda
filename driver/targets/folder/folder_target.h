// A folder target: a folder on a mounted filesystem, the run's files in <target>/iofab-<run id>/ (RunDir).
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "driver/targets/run_target.h"

namespace iofab {

std::unique_ptr<RunTarget> make_folder_target(const std::string& target, const Suite& suite);
// What a suite may hold on a folder (suite_target.cc).
Status check_suite_on_folder(const Suite& suite, std::string_view target, int ranks);
// `iofab clean --target DIR` (clean_folder.cc).
int clean_folder_target(const CleanArgs& args, bool interactive, std::istream& in, std::ostream& out,
                        std::ostream& err);

}  // namespace iofab
