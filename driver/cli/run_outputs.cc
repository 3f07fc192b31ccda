#include "driver/cli/run_outputs.h"

namespace iofab {
namespace {

std::string format_names() {
  std::vector<const Reporter*> all;
  for (const Reporter& r : reporter_table()) all.push_back(&r);
  return names_as_choices(all);
}

Status read_output(const std::string& given, RunOutput* out) {
  const auto eq = given.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == given.size()) {
    return Status::Invalid("--output \"" + given +
                           "\": expected FORMAT=PATH, like junit=checks.xml; FORMAT is " + format_names());
  }
  const std::string format = given.substr(0, eq);
  const Reporter* r = find_reporter(format);
  if (r == nullptr) {
    return Status::Invalid("--output \"" + given + "\": unknown format \"" + format + "\"; expected " +
                           format_names());
  }
  *out = {.named = {.option = "--output " + format, .path = given.substr(eq + 1)}, .reporter = r};
  return Status::Ok();
}

}  // namespace

Status resolve_run_outputs(const std::vector<std::string>& outputs, const std::string& junit,
                           const std::string& openmetrics, std::vector<RunOutput>* out) {
  out->clear();
  for (const std::string& given : outputs) {
    RunOutput o;
    if (Status s = read_output(given, &o); !s.ok()) return s;
    out->push_back(std::move(o));
  }
  // The aliases, named as given so a refusal names the option the user typed.
  for (const auto& [option, format, path] :
       {std::tuple{"--junit", "junit", &junit}, std::tuple{"--openmetrics", "openmetrics", &openmetrics}}) {
    if (!path->empty())
      out->push_back({.named = {.option = option, .path = *path}, .reporter = find_reporter(format)});
  }
  return Status::Ok();
}

std::string run_output_help() {
  return "Also write the report as FORMAT to PATH (FORMAT=PATH, FORMAT " + format_names() +
         "); repeatable; checked before the run like --out";
}

}  // namespace iofab
