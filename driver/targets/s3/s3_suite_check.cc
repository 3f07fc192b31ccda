// What a suite may hold on an s3:// target: only the phase kinds that run on an object store, params that
// make sense there, engines that reach an object, no concurrent group, and no key longer than S3's 1,024
// bytes (the run's prefix and the longest path a phase makes below it).
#include <string>
#include <vector>

#include "harness/s3/s3_config.h"
#include "driver/suite/suite.h"
#include "driver/targets/s3/s3_target.h"
#include "workloads/phase_table.h"

namespace iofab {

namespace {

// "ingest, train_read, checkpoint, restore, collectives, rdma and metadata": the kinds whose table row says
// they run on an object store, in the table's order.
std::string object_store_kinds() {
  std::vector<std::string> names;
  for (const auto& k : phase_table()) {
    if (k.object_store) names.emplace_back(k.name);
  }
  std::string out;
  for (size_t i = 0; i < names.size(); ++i) {
    out += (i == 0 ? "" : i + 1 == names.size() ? " and " : ", ") + names[i];
  }
  return out;
}

// The phases' object-store checks: kind, params, engine, O_DIRECT.
void check_phases_on_s3(const Suite& suite, std::vector<std::string>* errors) {
  for (const auto& p : suite.phases) {
    if (!p.kind->object_store) {
      errors->push_back("phase " + p.name + ": kind " + std::string(p.kind->name) +
                        " does not run on an object store yet; on an s3:// target a suite holds " +
                        object_store_kinds() + " phases (docs/object-storage.md)");
      continue;
    }
    if (Status s = p.phase->check_on_object_store(); !s.ok())
      errors->push_back("phases." + p.name + "." + s.message());
    // A descriptor engine cannot reach an object.
    const auto engine = p.params.find("engine");
    if (engine != p.params.end() && engine->is_string() && *engine != "auto" && *engine != "s3") {
      errors->push_back("phases." + p.name + ".engine: \"" + engine->get<std::string>() +
                        "\" cannot reach an object store; expected \"auto\" or \"s3\" on an s3:// target");
    }
    const auto direct = p.params.find("direct");
    if (direct != p.params.end() && direct->is_boolean() && direct->get<bool>()) {
      errors->push_back("phase " + p.name +
                        ": direct: true, but an object store has no O_DIRECT; set direct: false for an s3:// "
                        "target");
    }
  }
}

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
  if (!suite.groups.empty()) {
    // An object store's request figures are taken per store, not per phase: at once they would mix.
    errors.push_back("phases: concurrent group " + suite.groups.front().label +
                     " on an s3:// target; phases run at once only on a folder target for now "
                     "(docs/phases/concurrent.md)");
  }
  check_phases_on_s3(suite, &errors);
  std::string bucket, prefix;
  if (Status s = parse_s3_target(target, &bucket, &prefix); !s.ok()) {
    errors.push_back(s.message());
  } else {
    check_key_lengths(suite, target, prefix, ranks, &errors);
  }
  return errors.empty() ? Status::Ok() : Status::Invalid(join_lines(errors));
}

}  // namespace iofab
