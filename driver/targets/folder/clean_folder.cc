// `iofab clean --target DIR`: removes the run folders killed runs left behind.
#include <ctime>

#include "driver/targets/clean_target.h"
#include "harness/core/units.h"
#include "harness/fs/stale_run_dirs.h"
#include "driver/targets/folder/folder_target.h"

namespace iofab {

namespace {

void print_folder(const StaleRunDir& s, std::ostream& out) {
  char when[32] = "";
  std::tm tm{};
  if (localtime_r(&s.modified, &tm) != nullptr) std::strftime(when, sizeof when, "%Y-%m-%d %H:%M", &tm);
  out << "  " << s.name << "  " << units::format_bytes(static_cast<double>(s.bytes)) << "  modified " << when
      << "\n";
}

}  // namespace

int clean_folder_target(const CleanArgs& args, bool interactive, std::istream& in, std::ostream& out,
                        std::ostream& err) {
  const std::string& target = args.target;
  std::vector<StaleRunDir> found;
  if (Status st = find_stale_run_dirs(target, true, &found); !st.ok()) {
    err << "iofab clean: " << st.message() << "\n";
    return 2;
  }
  std::vector<StaleRunDir> stale, kept;
  for (auto& s : found) (s.kept && !args.include_kept ? kept : stale).push_back(std::move(s));
  if (!kept.empty()) {
    // A kept run's folder is a result (restore's `from` reads a kept checkpoint), not a leftover.
    out << "run folders under " << target
        << " kept with --keep, left alone (--include-kept removes them too):\n";
    for (const auto& s : kept) print_folder(s, out);
  }
  if (stale.empty()) {
    out << "no stale run folders under " << target << "\n";
    return 0;
  }
  uint64_t total = 0;
  out << "run folders under " << target << " that no live run holds (left by a run that was killed"
      << (args.include_kept ? ", or kept" : "") << "):\n";
  for (const auto& s : stale) {
    print_folder(s, out);
    total += s.bytes;
  }
  const std::string what = std::to_string(stale.size()) + " folder" + (stale.size() == 1 ? "" : "s") + " (" +
                           units::format_bytes(static_cast<double>(total)) + ")";
  if (!confirm_removal(what, stale.size(), args.yes, interactive, in, out)) return 0;
  int rc = 0;
  for (const auto& s : stale) {
    if (Status r = remove_stale_run_dir(target, s.name, args.include_kept); !r.ok()) {
      err << "iofab clean: " << s.name << ": " << r.message() << "\n";
      rc = 3;
      continue;
    }
    out << "removed " << target << "/" << s.name << "\n";
  }
  return rc;
}

}  // namespace iofab
