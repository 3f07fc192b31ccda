// `iofab clean --target TARGET`: the target's kind does the work (driver/targets/*/clean_*.cc).
#include "driver/cli/commands.h"
#include "driver/targets/run_target.h"

namespace iofab {

bool confirm_removal(const std::string& what, size_t count, bool yes, bool interactive, std::istream& in,
                     std::ostream& out) {
  if (yes) return true;
  if (!interactive) {
    out << "nothing removed: pass --yes to remove " << (count == 1 ? "it" : "them") << "\n";
    return false;
  }
  out << "remove " << what << "? [y/N] " << std::flush;
  std::string answer;
  std::getline(in, answer);
  if (answer == "y" || answer == "Y" || answer == "yes") return true;
  out << "nothing removed\n";
  return false;
}

int cmd_clean(const CleanArgs& args, bool interactive, std::istream& in, std::ostream& out,
              std::ostream& err) {
  return run_target_kind(args.target).clean(args, interactive, in, out, err);
}

}  // namespace iofab
