// What `iofab clean --target` is given, and the question it asks before it removes anything: shared by
// every kind of target's clean (target_kinds.cc) and the command (driver/cli/clean_command.cc).
#pragma once

#include <cstddef>
#include <iosfwd>
#include <string>
#include <vector>

namespace iofab {

struct CleanArgs {
  std::string target;             // a folder, or s3://bucket/prefix
  bool yes = false;               // remove without asking
  bool include_kept = false;      // also remove what runs with --keep left
  std::string suite = "default";  // s3://: the suite whose "s3" settings reach the target
  std::vector<std::string> sets;  // s3://: --set s3.KEY=VALUE on that suite
};

// clean's question: true with yes, or after a "y" on in when interactive; else says why nothing went.
bool confirm_removal(const std::string& what, size_t count, bool yes, bool interactive, std::istream& in,
                     std::ostream& out);

}  // namespace iofab
