// The table of target kinds: one row per kind, its code in its own folder beside this file. A second
// object store (Azure Blob, GCS's XML API) is a folder with its RunTarget, suite check and clean, and a
// row above the folder's (docs/architecture.md).
#include "harness/s3/s3_config.h"
#include "harness/core/text.h"
#include "driver/targets/folder/folder_target.h"
#include "driver/suite/target_sections.h"
#include "driver/targets/run_target.h"
#include "driver/targets/s3/s3_settings.h"
#include "driver/targets/s3/s3_target.h"

namespace iofab {

const std::vector<RunTargetKind>& run_target_kinds() {
  static const std::vector<RunTargetKind> kinds = {
      {.name = "s3",
       .shown = "s3 (object store)",
       .claims = is_s3_target,
       .make = make_s3_run_target,
       .check_suite = check_suite_on_s3,
       .section = "s3",
       .check_section = check_s3_section,
       .clean = clean_s3_target},
      // Last: a folder is whatever no other kind claims.
      {.name = "folder",
       .shown = "folder",
       .claims = nullptr,
       .make = make_folder_target,
       .check_suite = check_suite_on_folder,
       .clean = clean_folder_target},
  };
  return kinds;
}

const std::vector<TargetSection>& target_sections() {
  static const std::vector<TargetSection> sections = [] {
    std::vector<TargetSection> out;
    for (const auto& k : run_target_kinds()) {
      if (!k.section.empty()) out.push_back({.name = k.section, .check = k.check_section});
    }
    return out;
  }();
  return sections;
}

const RunTargetKind& run_target_kind(std::string_view target, const std::vector<RunTargetKind>& kinds) {
  for (const auto& k : kinds) {
    if (k.claims == nullptr || k.claims(target)) return k;
  }
  return kinds.back();
}

const RunTargetKind* target_kind_of_section(std::string_view key) {
  for (const auto& k : run_target_kinds()) {
    if (!k.section.empty() && k.section == key) return &k;
  }
  return nullptr;
}

Status check_suite_for_target(const Suite& suite, std::string_view target, int ranks) {
  return run_target_kind(target).check_suite(suite, target, ranks);
}

std::string join_lines(const std::vector<std::string>& lines) { return join(lines, "\n"); }

std::string shell_quoted(const std::string& text) {
  if (!text.empty() && text.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
                                              "/._-+:=@%,") == std::string::npos) {
    return text;
  }
  std::string out = "'";
  for (char c : text) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

}  // namespace iofab
