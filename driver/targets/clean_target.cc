#include "driver/targets/clean_target.h"

#include <istream>
#include <ostream>

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

}  // namespace iofab
