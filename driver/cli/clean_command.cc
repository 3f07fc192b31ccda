// `iofab clean --target TARGET`: the target's kind does the work (driver/targets/*/clean_*.cc).
#include "driver/cli/commands.h"
#include "driver/targets/run_target.h"

namespace iofab {

int cmd_clean(const CleanArgs& args, bool interactive, std::istream& in, std::ostream& out,
              std::ostream& err) {
  return run_target_kind(args.target).clean(args, interactive, in, out, err);
}

}  // namespace iofab
