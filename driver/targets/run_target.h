// Where a run puts its files: a folder on a mounted filesystem, or an object store's bucket and prefix.
// A RunTarget is made from the target string by the table of target kinds (target_kinds.cc), one row per
// kind, each kind's code in its own folder here (folder/, s3/). The runner, `clean` and `validate
// --target` ask the kind and its RunTarget, never the string.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "harness/comm/comm.h"
#include "harness/core/status.h"
#include "harness/fs/target.h"
#include "harness/store/store.h"
#include "driver/suite/target_scope.h"

namespace iofab {

struct Suite;
struct CleanArgs;

class RunTarget {
 public:
  virtual ~RunTarget() = default;

  // Checks the target before anything is written and describes it (info()). InvalidArgument: bad input
  // (exit 2); IoError: a target that did not answer or refused the credentials (exit 3).
  virtual Status check() = 0;
  const TargetInfo& info() const { return info_; }
  // The free bytes the suite's peak is checked against; none where the target has no such figure (an
  // object store), and the report then says the peak was not checked.
  virtual std::optional<uint64_t> free_bytes() const = 0;
  // After check(): every setting that decides where this rank's bytes go, as resolved on its host (a
  // folder's real path; an object store's endpoint, region, addressing and bucket), named for a person
  // and never holding a secret. The runner makes them part of the ranks' agreement before anything is
  // written: ranks that resolve one target string to two places would measure two stores as one.
  virtual std::vector<std::pair<std::string, std::string>> placement() const { return {}; }

  // Makes the run's place below the target, iofab-<run id>, and opens its store. Every rank calls it:
  // rank 0 makes the place, the others open it after. keep: marked for `clean` to leave, from the start.
  virtual Status open_run(Comm& comm, const std::string& run_id, bool keep) = 0;
  // Collective, after open_run: whether every rank sees the same place (scope kShared), or each its own
  // on purpose (kHost). Refused (exit 2) with the place removed when they do not. An object store's
  // bucket is one place by construction: nothing to check.
  virtual Status agree_shared(Comm& /*comm*/, TargetScope /*scope*/) { return Status::Ok(); }
  virtual Store& store() = 0;
  // The run's place as the report and the console name it.
  virtual std::string location() const = 0;
  // Whether the phases named (they ask for O_DIRECT) can have it here; the refusal names them.
  virtual Status check_direct_io(const std::vector<std::string>& phases, int rank) = 0;

  // The first half of the removal every rank makes at the end: what this rank holds open in the run's
  // place is let go (a folder's files and its lock), so that no rank removes a file another still holds
  // (NFS would rename it, and the folder could not go). The runner holds a barrier between it and
  // remove_run.
  virtual Status release_run() { return Status::Ok(); }
  // Removes what the run made. writer: the report's writer (the others release their share: a folder's
  // lock and their files; on an object store the writer alone lists and deletes, every rank would race).
  virtual Status remove_run(bool writer) = 0;
  // The free bytes after the run for the report; none where the target has no such figure.
  virtual std::optional<uint64_t> free_bytes_after(Status* why) const = 0;
  // The command that removes what a failed cleanup left. suite: the run's --suite (the settings that reach
  // the target where its kind needs them).
  virtual std::string clean_command(const std::string& suite) const = 0;

 protected:
  TargetInfo info_;
};

// A kind of target: how its strings look, and its code. One row in target_kinds.cc.
struct RunTargetKind {
  std::string_view name;   // "folder", "s3": as the report and messages name it
  std::string_view shown;  // what ranks compare before a run ("s3 (object store)")
  // Whether a target string is of this kind; nullptr for the last row, the folder, which takes the rest.
  bool (*claims)(std::string_view target) = nullptr;
  // The RunTarget for a target of this kind and the suite's settings for it (not checked yet: check()).
  std::unique_ptr<RunTarget> (*make)(const std::string& target, const Suite& suite) = nullptr;
  // What a suite may hold on this kind of target (ranks: how many run it; 1 where not known). Bad input.
  Status (*check_suite)(const Suite& suite, std::string_view target, int ranks) = nullptr;
  // The kind's own section of the suite ("s3"; empty: none), read by this kind's code alone
  // (Suite::target_settings), and its check when the suite is read: each problem as "SECTION.KEY: ...".
  std::string_view section = {};
  void (*check_section)(const nlohmann::json& j, std::vector<std::string>* errors) = nullptr;
  // `iofab clean --target` for this kind.
  int (*clean)(const CleanArgs& args, bool interactive, std::istream& in, std::ostream& out,
               std::ostream& err) = nullptr;
};

// The table of target kinds iofab is built with.
const std::vector<RunTargetKind>& run_target_kinds();
// The kind of a target string in kinds (every string has one: the last row, the folder, takes what no
// other claims).
const RunTargetKind& run_target_kind(std::string_view target,
                                     const std::vector<RunTargetKind>& kinds = run_target_kinds());

// The kind whose suite section is named key; nullptr when none is.
const RunTargetKind* target_kind_of_section(std::string_view key);

// What a suite may hold on the target (its kind's check_suite).
Status check_suite_for_target(const Suite& suite, std::string_view target, int ranks);

// Errors one a line, for a Status that lists every error found.
std::string join_lines(const std::vector<std::string>& lines);

// text as one shell word: as it is when it holds only characters no shell treats specially, else in
// single quotes (a quote inside written '\'').
std::string shell_quoted(const std::string& text);

}  // namespace iofab
