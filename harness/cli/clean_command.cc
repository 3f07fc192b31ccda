// `iofab clean --target DIR`: removes the run folders killed runs left behind.
#include <ctime>

#include "harness/cli/commands.h"
#include "harness/core/units.h"
#include "harness/engines/s3_config.h"
#include "harness/fs/stale_run_dirs.h"

namespace iofab {

int cmd_clean(const std::string& target, bool yes, bool interactive, std::istream& in, std::ostream& out,
              std::ostream& err) {
  if (is_s3_target(target)) {
    // A killed run's keys look like a live run's: an object store has no lock to tell them apart.
    err << "iofab clean: " << target
        << ": an object store has no run lock to tell a killed run from a live one, so clean deletes nothing "
           "there; a run deletes its own keys at its end, even after Ctrl-C. Keys a killed run left are below "
           "<prefix>/iofab-<run id>/ (e.g. aws s3 rm --recursive s3://bucket/prefix/iofab-<run id>/)\n";
    return 2;
  }
  std::vector<StaleRunDir> stale;
  if (Status st = find_stale_run_dirs(target, true, &stale); !st.ok()) {
    err << "iofab clean: " << st.message() << "\n";
    return 2;
  }
  if (stale.empty()) {
    out << "no stale run folders under " << target << "\n";
    return 0;
  }
  uint64_t total = 0;
  out << "run folders under " << target << " that no live run holds (left by a run that was killed):\n";
  for (const auto& s : stale) {
    char when[32] = "";
    std::tm tm{};
    if (localtime_r(&s.modified, &tm) != nullptr) std::strftime(when, sizeof when, "%Y-%m-%d %H:%M", &tm);
    out << "  " << s.name << "  " << units::format_bytes(static_cast<double>(s.bytes)) << "  modified "
        << when << "\n";
    total += s.bytes;
  }
  const std::string count = std::to_string(stale.size()) + " folder" + (stale.size() == 1 ? "" : "s");
  if (!yes) {
    if (!interactive) {
      out << "nothing removed: pass --yes to remove " << (stale.size() == 1 ? "it" : "them") << "\n";
      return 0;
    }
    out << "remove " << count << " (" << units::format_bytes(static_cast<double>(total)) << ")? [y/N] "
        << std::flush;
    std::string answer;
    std::getline(in, answer);
    if (answer != "y" && answer != "Y" && answer != "yes") {
      out << "nothing removed\n";
      return 0;
    }
  }
  int rc = 0;
  for (const auto& s : stale) {
    if (Status r = remove_stale_run_dir(target, s.name); !r.ok()) {
      err << "iofab clean: " << s.name << ": " << r.message() << "\n";
      rc = 3;
      continue;
    }
    out << "removed " << target << "/" << s.name << "\n";
  }
  return rc;
}

}  // namespace iofab
