#include "driver/suite/target_scope.h"

#include <string>
#include <string_view>

#include "driver/suite/suite.h"
#include "harness/phase/params.h"
#include "workloads/phase_table.h"

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

namespace {

// "ingest, checkpoint, collectives and rdma": the kinds that run with target_scope "host", in table order.
std::string per_host_kinds() {
  std::vector<std::string_view> names;
  for (const PhaseKind& k : phase_table()) {
    if (k.per_host) names.push_back(k.name);
  }
  std::string out;
  for (size_t i = 0; i < names.size(); ++i) {
    if (i > 0) out += i + 1 == names.size() ? " and " : ", ";
    out += names[i];
  }
  return out;
}

}  // namespace

void check_target_scope(const Suite& suite, std::vector<std::string>* errors) {
  if (suite.target_scope != TargetScope::kHost) return;
  for (const auto& p : suite.phases) {
    if (p.kind->per_host) continue;
    errors->push_back(
        "phases." + p.name + ": a " + std::string(p.kind->name) +
        " phase reads what other ranks made, which target_scope \"host\" keeps on each host's own "
        "folder; expected only " +
        per_host_kinds() + " phases with it, or a shared target (target_scope \"shared\")");
  }
}

}  // namespace iofab
