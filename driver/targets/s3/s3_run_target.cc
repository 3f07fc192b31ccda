#include "harness/s3/s3_credentials.h"
#include "harness/fs/run_dir.h"
#include "harness/store/store_bytes.h"
#include "driver/suite/suite.h"
#include "driver/targets/s3/s3_run.h"
#include "driver/targets/s3/s3_target.h"

namespace iofab {

namespace {

class S3RunTargetImpl final : public RunTarget {
 public:
  S3RunTargetImpl(std::string path, S3Settings settings)
      : path_(std::move(path)), settings_(std::move(settings)) {}

  // Its settings, credentials and a first listing are checked, as a folder's are, before anything is
  // written.
  Status check() override { return prepare_s3_target(path_, settings_, process_env(), &info_, &s3_); }
  std::optional<uint64_t> free_bytes() const override { return std::nullopt; }
  // Where the requests go as this rank resolved it (its own AWS_ENDPOINT_URL, ~/.aws/config, region):
  // the credentials are not part of it.
  std::vector<std::pair<std::string, std::string>> placement() const override {
    if (!s3_.target) return {};
    const S3Config& c = s3_.target->config;
    return {{"s3 endpoint", "\"" + c.endpoint + "\""},
            {"s3 region", "\"" + c.region + "\""},
            {"s3 addressing", s3_addressing_name(c.addressing)},
            {"s3 bucket", "\"" + c.bucket + "\""}};
  }

  Status open_run(Comm& comm, const std::string& run_id, bool keep) override {
    // Keys under <prefix>/iofab-<run id>/ only: a prefix needs no making, and no other run's keys start so.
    Status made = open_s3_run_store(s3_, run_id, &store_);
    // Kept from the start, as a folder is: `iofab clean` leaves the run's keys then.
    if (made.ok() && keep && comm.rank() == 0) made = mark_kept();
    return made;
  }
  Store& store() override { return *store_; }
  std::string location() const override { return store_ ? store_->location() : path_; }
  // No O_DIRECT on an object store: the suite check refuses `direct` there before this is asked.
  Status check_direct_io(const std::vector<std::string>& /*phases*/, int /*rank*/) override {
    return Status::Ok();
  }
  // The writer alone lists and deletes the run's keys (every rank doing it would race).
  Status remove_run(bool writer) override {
    return writer && store_ ? store_->remove_tree("") : Status::Ok();
  }
  std::optional<uint64_t> free_bytes_after(Status* why) const override {
    *why = Status::Ok();
    return std::nullopt;
  }
  // clean reaches an object store with the suite's s3 settings (endpoint, addressing, credentials).
  std::string clean_command(const std::string& suite) const override {
    return "iofab clean --yes --target " + shell_quoted(path_) + " --suite " + shell_quoted(suite);
  }

 private:
  // The kept mark (kKeptMarkerName) at the root of the run's prefix.
  Status mark_kept() {
    StoreFile f;
    Status s = store_->create(kKeptMarkerName, OpenOptions{}, &f);
    if (s.ok()) s = write_store_file(*store_, f, "");
    return s;
  }

  std::string path_;
  S3Settings settings_;
  S3RunTarget s3_;
  std::unique_ptr<Store> store_;
};

}  // namespace

std::unique_ptr<RunTarget> make_s3_run_target(const std::string& target, const Suite& suite) {
  return std::make_unique<S3RunTargetImpl>(target, s3_settings_of(suite));
}

}  // namespace iofab
