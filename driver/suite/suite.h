// Suite: a suite file read, overridden by --set, and validated into phases
// ready to run. Every error names the JSON path and the expected form.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/core/status.h"
#include "harness/phase/phase.h"
#include "harness/results/check_op.h"
#include "driver/suite/target_scope.h"

namespace iofab {

struct CheckSpec {
  std::string path;       // its JSON path, "phases[0].checks[1]", for messages
  std::string name;       // given, or "<metric> <op> <threshold text>"
  std::string metric;
  CheckOp op = CheckOp::kGe;
  double threshold = 0;   // base units
  std::string threshold_text;
};

struct PhaseSpec {
  std::string path;  // its JSON path, "phases[2]" or "phases[0].concurrent[1]", for messages
  std::string name;
  const PhaseKind* kind = nullptr;
  std::unique_ptr<Phase> phase;
  nlohmann::json params;  // resolved, base units
  std::vector<CheckSpec> checks;
  std::vector<std::string> headline;  // the console's figures for it; empty: the first of its metric table
  int group = -1;                     // its concurrent group's index in Suite::groups; -1: runs alone
};

// A suite entry {"concurrent": [phase, ...], "clock": NAME, "solo": bool}: its phases start together on
// the same ranks (docs/phases/concurrent.md). They sit in Suite::phases in order, first .. first+count-1.
struct PhaseGroup {
  size_t first = 0;
  size_t count = 0;
  int clock = -1;     // the clock phase's index in Suite::phases; -1: every phase runs to its own end
  bool solo = true;   // each phase also runs alone first, for the <m>_solo and <m>_vs_solo figures
  std::string label;  // "a + b", for messages and the report
};

struct Suite {
  std::string name;
  std::string description;
  std::optional<std::string> target;
  TargetScope target_scope = TargetScope::kShared;  // the suite's "target_scope" (target_scope.h)
  // Each kind of target's own section of the suite, as written (the "s3" object: how to reach an s3://
  // target), by section name; checked by the kind when the suite is read, used by its code alone
  // (driver/targets/<kind>/).
  std::map<std::string, nlohmann::json, std::less<>> target_settings;
  std::vector<PhaseSpec> phases;
  std::vector<PhaseGroup> groups;
  double telemetry_interval_s = 1;  // the host sampler's interval during every phase; 0: off
  std::string source;     // file path, or "builtin:<name>"
  std::string sha256;     // of the suite text as read
  nlohmann::json document;  // after --set, before validation
};

// Parses text (JSON with comments), applies sets ("PATH=VALUE": target, s3.KEY,
// defaults.KEY, phases.NAME.KEY, phases[I].KEY), validates.
Status parse_suite(std::string_view text, std::string_view source, const std::vector<std::string>& sets,
                   Suite* out);
// Reads a suite from a file path, or "builtin:NAME" / a bare embedded name.
Status load_suite(const std::string& path_or_name, const std::vector<std::string>& sets, Suite* out);

std::string sha256_hex(std::string_view data);

// True when the suite has a concurrent group (the run then needs a Comm per phase: Comm::duplicate).
bool has_concurrent_groups(const Suite& suite);

}  // namespace iofab
