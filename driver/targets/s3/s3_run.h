// An s3:// target for a run: the suite's "s3" settings and the credentials
// checked before anything is written (bad settings: InvalidArgument, exit 2;
// a bucket that answers 403 or 404, or an endpoint that refuses: IoError,
// exit 3), then the run's store under "<prefix>/iofab-<run id>", the only
// keys a run writes and its cleanup deletes.
#pragma once

#include <memory>
#include <string>

#include "harness/core/status.h"
#include "harness/s3/s3_object.h"
#include "harness/fs/target.h"
#include "harness/store/store.h"
#include "driver/targets/s3/s3_settings.h"

namespace iofab {

struct S3RunTarget {
  std::shared_ptr<S3Target> target;
  std::string prefix;  // below the bucket, "" for its root (only with allow_bucket_root)
};

// Parses and checks target_path with settings, resolves the credentials (env: the environment to read),
// asks the bucket for a listing under the prefix, and fills *info for the report.
Status prepare_s3_target(const std::string& target_path, const S3Settings& settings, const EnvLookup& env,
                         TargetInfo* info, S3RunTarget* out);
// The run's store, rooted at <prefix>/iofab-<run id>.
Status open_s3_run_store(const S3RunTarget& t, const std::string& run_id, std::unique_ptr<Store>* out);

}  // namespace iofab
