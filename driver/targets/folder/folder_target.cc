#include "driver/targets/folder/folder_target.h"

#include "harness/fs/direct_probe.h"
#include "harness/fs/run_dir.h"
#include "harness/store/posix_store.h"
#include "driver/suite/suite.h"
#include "driver/targets/folder/target_agreement.h"

namespace iofab {

namespace {

class FolderTarget final : public RunTarget {
 public:
  FolderTarget(std::string path, TargetScope scope) : path_(std::move(path)), scope_(scope) {}

  Status check() override { return check_target(path_, &info_); }
  // The path with its symlinks resolved on this host; with target_scope "host" each host measures its
  // own folder on purpose, so where it resolves is each host's own business.
  std::vector<std::pair<std::string, std::string>> placement() const override {
    if (scope_ == TargetScope::kHost) return {};
    return {{"target's real path", "\"" + info_.path + "\""}};
  }
  std::optional<uint64_t> free_bytes() const override { return info_.free_bytes; }

  Status open_run(Comm& comm, const std::string& run_id, bool keep) override {
    Status made = comm.rank() == 0 ? run_dir_.open(info_.path, run_id, true) : Status::Ok();
    made.update(comm.barrier());  // the others open the folder once rank 0 has made it
    if (comm.rank() != 0 && made.ok()) made = run_dir_.open(info_.path, run_id, false);
    // Kept from the start: `iofab clean` leaves a --keep run's folder (restore's `from` may read it), even
    // one whose run was killed.
    if (made.ok() && keep) made = run_dir_.mark_kept();
    if (made.ok()) made = posix_store_at(run_dir_.fd(), run_dir_.path(), &store_);
    return made;
  }
  Status agree_shared(Comm& comm, TargetScope scope) override {
    return agree_on_target(comm, run_dir_, info_.path, scope);
  }
  Store& store() override { return *store_; }
  std::string location() const override { return run_dir_.path(); }

  // Every rank asks its own mount (clients of one shared filesystem can mount it differently). Refused
  // means the direct phases would either fail mid-run or, worse, measure the page cache: stop before any.
  Status check_direct_io(const std::vector<std::string>& phases, int rank) override {
    bool refused = false;
    Status s = probe_direct_io(run_dir_.fd(), kDirectProbePrefix + std::to_string(rank), &refused);
    if (!s.ok()) return Status::Invalid("target " + info_.path + ": O_DIRECT probe: " + s.message());
    return refused ? direct_refused(phases) : Status::Ok();
  }

  // Every rank removes what it can (the folder goes when the last one is done); the lock is released
  // with the RunDir.
  Status release_run() override { return run_dir_.release(); }
  Status remove_run(bool /*writer*/) override { return run_dir_.remove(); }

  std::optional<uint64_t> free_bytes_after(Status* why) const override {
    TargetInfo after = info_;
    // A figure from before the run must never pass for the free space after it.
    *why = describe_target(info_.path, &after);
    if (!why->ok()) return std::nullopt;
    return after.free_bytes;
  }

  std::string clean_command(const std::string& /*suite*/) const override {
    return "iofab clean --yes --target " + shell_quoted(info_.path);
  }

 private:
  Status direct_refused(const std::vector<std::string>& phases) const {
    std::string names, sets;
    for (const auto& n : phases) {
      names += (names.empty() ? "" : ", ") + n;
      sets += " --set phases." + n + ".direct=false";
    }
    const bool one = phases.size() == 1;
    return Status::Invalid("target " + info_.path + " (" + info_.fs_type + " from " + info_.mount_source +
                           ") refuses O_DIRECT: open returned EINVAL; phase" + (one ? " " : "s ") + names +
                           (one ? " asks" : " ask") + " for direct: true. Run buffered with" + sets +
                           " (the figures then include the page cache and are marked unverified), or use a "
                           "filesystem that takes O_DIRECT; nothing was measured");
  }

  std::string path_;
  TargetScope scope_;
  RunDir run_dir_;
  std::unique_ptr<Store> store_;
};

}  // namespace

std::unique_ptr<RunTarget> make_folder_target(const std::string& target, const Suite& suite) {
  return std::make_unique<FolderTarget>(target, suite.target_scope);
}

}  // namespace iofab
