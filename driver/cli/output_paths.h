// Output paths checked before anything runs: an output must not be one of the
// inputs or another output (the same file, however spelled: compared by
// device and inode, or for a file not there yet by its folder's device and
// inode plus its name), and it must be creatable, so results are never lost
// at the end of a run and never written over the files they came from.
#pragma once

#include <string>
#include <vector>

#include "harness/core/status.h"

namespace iofab {

struct NamedPath {
  std::string option;  // how the user gave it: "--out", "--junit", "suite", "baseline"
  std::string path;    // empty: not given, skipped
};

// Invalid naming both options and the path when an output is the same file as
// an input or as another output. Inputs that do not exist are skipped (their
// own error comes later).
Status check_outputs_distinct(const std::vector<NamedPath>& inputs, const std::vector<NamedPath>& outputs);

// Invalid naming the option, the path and the reason unless a file can be
// created at path: its folder exists and is a folder, the path itself is not
// a folder, and a probe file can be created (and is removed) beside it.
Status check_output_creatable(const NamedPath& output);

// Both checks on every output; the first problem found.
Status check_outputs(const std::vector<NamedPath>& inputs, const std::vector<NamedPath>& outputs);

}  // namespace iofab
