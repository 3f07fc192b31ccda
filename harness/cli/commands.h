// The subcommands, each returning the process exit code.
#pragma once

#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "harness/comm/comm.h"
#include "harness/runner/runner.h"

namespace iofab {

struct RunArgs {
  RunOptions options;
  std::string target;  // empty: the suite's or the default
  std::string out;
};

int cmd_run(Comm& comm, RunArgs& args, std::ostream& out, std::ostream& err);
int cmd_validate(const std::string& suite, const std::vector<std::string>& sets, std::ostream& out,
                 std::ostream& err);
int cmd_list(const std::string& target, std::ostream& out);

}  // namespace iofab
