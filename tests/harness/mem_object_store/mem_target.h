// mem://bucket/prefix: the memory object store (mem_object_store.h) as a kind of target, one folder of code
// and one row, as docs/architecture.md says a second object store is added. The run's objects go under
// <prefix>/iofab-<run id>/ in a bucket of this process (mem_bucket.h), which a test reads after the run.
//
// Test-only: the row (mem_target_kind) is in no table of iofab's; a test hands it to the runner
// (RunOptions::target_kinds, kinds_with_mem) together with the engine its objects need (MemEngineAdded).
#pragma once

#include <iosfwd>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "driver/targets/run_target.h"

namespace iofab::mem {

bool is_mem_target(std::string_view target);
// "mem://bucket/prefix" into its bucket (1-63 of a-z, 0-9, '-') and prefix (one or more '/'-separated
// names, none empty, "." or ".."). Anything else: InvalidArgument naming the target and the form.
Status parse_mem_target(std::string_view target, std::string* bucket, std::string* prefix);

std::unique_ptr<RunTarget> make_mem_run_target(const std::string& target, const Suite& suite);
// What a suite may hold on a mem:// target: what any object store's may (object_store_suite.h), on a target
// string of the right form.
Status check_suite_on_mem(const Suite& suite, std::string_view target, int ranks);
// `iofab clean` for a mem:// target: the run prefixes a run left in the bucket (kept ones with
// include_kept), after confirm_removal.
int clean_mem_target(const CleanArgs& args, bool interactive, std::istream& in, std::ostream& out,
                     std::ostream& err);

// The kind's row.
RunTargetKind mem_target_kind();
// iofab's table of kinds with the mem row above the folder's (which takes what no row claims).
std::vector<RunTargetKind> kinds_with_mem();

}  // namespace iofab::mem
