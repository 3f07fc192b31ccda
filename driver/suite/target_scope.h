// The suite's "target_scope": whether every rank's target is one folder on a filesystem every host
// mounts ("shared", the default: checked at the start, docs/clusters.md), or each host's own folder
// ("host": node-local NVMe acceptance, every host measured on its own disk, on purpose).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace iofab {

struct Suite;

enum class TargetScope { kShared, kHost };

const char* target_scope_name(TargetScope s);

// Reads the suite's "target_scope" (j); a bad value appended to *errors as "target_scope: expected ...".
void parse_target_scope(const nlohmann::json& j, TargetScope* out, std::vector<std::string>* errors);

// target_scope "host": each host's own folder, so a phase that reads what another rank made (a restore of
// the checkpoint, a dataset rank 0 generates) would find nothing on the other hosts. Such phases appended
// to *errors, checked on a folder target (driver/targets/folder/folder_suite_check.cc).
void check_target_scope(const Suite& suite, std::vector<std::string>* errors);

}  // namespace iofab
