#include "driver/suite/target_scope.h"

#include <algorithm>
#include <string_view>

#include "harness/phase/params.h"
#include "driver/suite/suite.h"

namespace iofab {

const char* target_scope_name(TargetScope s) { return s == TargetScope::kHost ? "host" : "shared"; }

void parse_target_scope(const nlohmann::json& j, TargetScope* out, std::vector<std::string>* errors) {
  if (j == "shared") {
    *out = TargetScope::kShared;
  } else if (j == "host") {
    *out = TargetScope::kHost;
  } else {
    errors->push_back(
        "target_scope: expected \"shared\" (one folder every host sees, the default) or \"host\" "
        "(each host's own folder, such as node-local NVMe), got " +
        describe_json_value(j));
  }
}

void check_target_scope(const Suite& suite, std::vector<std::string>* errors) {
  if (suite.target_scope != TargetScope::kHost) return;
  // The kinds whose every rank reads only what it wrote itself (or nothing from the target).
  static constexpr std::string_view kPerHost[] = {"ingest", "checkpoint", "collectives", "rdma"};
  for (const auto& p : suite.phases) {
    if (std::find(std::begin(kPerHost), std::end(kPerHost), p.kind->name) != std::end(kPerHost)) continue;
    errors->push_back(
        "phases." + p.name + ": a " + std::string(p.kind->name) +
        " phase reads what other ranks made, which target_scope \"host\" keeps on each host's own "
        "folder; expected only ingest, checkpoint, collectives and rdma phases with it, or a shared "
        "target (target_scope \"shared\")");
  }
}

}  // namespace iofab
