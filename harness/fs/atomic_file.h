// Writing a whole file so a reader sees the old file or the whole new one,
// never half: reports, JUnit files, compare output.
#pragma once

#include <string>

#include "harness/core/status.h"

namespace iofab {

// Writes text to path via a temp file in the same folder, fsync and rename,
// then fsyncs the folder so the rename is durable.
Status write_file_atomic(const std::string& path, const std::string& text);
// Removes the temp file of a write_file_atomic in progress, if any. Async-signal-safe:
// the stop handler calls it before a second Ctrl-C exits at once, so that exit leaves
// no half-written report beside the real one.
void remove_partial_report_file();

}  // namespace iofab
