// The extra files `iofab run` writes beside its report, each through the reporter table
// (reports/reporter.h): `--output FORMAT=PATH` (repeatable, any of the table's formats), and its aliases
// `--junit PATH` (junit=PATH) and `--openmetrics PATH` (openmetrics=PATH).
#pragma once

#include <string>
#include <vector>

#include "harness/core/status.h"
#include "driver/cli/output_paths.h"
#include "reports/reporter.h"

namespace iofab {

struct RunOutput {
  NamedPath named;  // as the user gave it: {"--output junit", "j.xml"}, {"--junit", "j.xml"}
  const Reporter* reporter = nullptr;
};

// Each --output FORMAT=PATH in order, then --junit and --openmetrics when given. Invalid (exit 2) naming
// the value for one that is not FORMAT=PATH or whose FORMAT is no row of the table; nothing is written.
Status resolve_run_outputs(const std::vector<std::string>& outputs, const std::string& junit,
                           const std::string& openmetrics, std::vector<RunOutput>* out);

// --output's help: the form and the formats the table has.
std::string run_output_help();

}  // namespace iofab
