#include "driver/targets/s3/s3_run.h"

#include <cstdio>

#include "harness/s3/s3_endpoint_source.h"
#include "harness/s3/s3_ops.h"
#include "harness/store/s3_store.h"

namespace iofab {

Status prepare_s3_target(const std::string& target_path, const S3Settings& settings, const EnvLookup& env,
                         TargetInfo* info, S3RunTarget* out) {
  std::string bucket, prefix;
  if (Status s = parse_s3_target(target_path, &bucket, &prefix); !s.ok()) return s;
  if (prefix.empty() && !settings.allow_bucket_root) {
    return Status::Invalid(
        "target " + target_path + ": the root of a bucket; iofab writes under a prefix of its own (s3://" +
        bucket +
        "/some/prefix), or set s3.allow_bucket_root: true to write at the root (its run prefix "
        "iofab-<run id>/ still holds every key it writes and deletes)");
  }
  // The suite's s3.endpoint, else AWS's settings (harness/s3/s3_endpoint_source.h).
  S3Endpoint where;
  if (Status s = resolve_s3_endpoint(settings.endpoint, settings.region, env, &where); !s.ok()) {
    return Status::Invalid("target " + target_path + ": " + s.message());
  }
  auto t = std::make_shared<S3Target>();
  if (Status s = resolve_s3_credentials(env, &t->creds); !s.ok()) return s;
  t->config.endpoint = where.endpoint;
  t->config.bucket = bucket;
  t->config.region = where.region;
  t->config.addressing = settings.addressing;
  t->config.connections = settings.connections;
  t->config.max_retries = settings.max_retries;
  t->config.first_byte_timeout_ns = static_cast<int64_t>(settings.first_byte_timeout_s * 1e9);
  t->config.low_speed_limit = settings.low_speed_limit;
  t->config.low_speed_time_ns = static_cast<int64_t>(settings.low_speed_time_s * 1e9);
  // Said when it happens: a stalled endpoint is otherwise silent for every try and retry.
  t->config.on_stall = [](const std::string& line) { std::fprintf(stderr, "iofab: %s\n", line.c_str()); };
  t->part_size = settings.part_size;
  t->parallel_parts = settings.parallel_parts;

  // One listing now: wrong credentials, a missing bucket or a dead endpoint stop the run before any phase.
  std::unique_ptr<S3Client> probe;
  if (Status s = make_s3_client(t->config, t->creds, &probe); !s.ok()) return s;
  std::vector<S3Object> seen;
  if (Status s = s3_list(*probe, prefix.empty() ? "iofab-" : prefix + "/iofab-", &seen); !s.ok()) {
    return Status::IoError("target " + target_path + ": " + s.message());
  }

  TargetInfo ti;
  ti.path = target_path;
  ti.fs_type = "s3";
  ti.access = "object";
  ti.mount_point = "s3://" + bucket;
  ti.mount_source = where.endpoint;
  ti.device = where.endpoint;
  ti.endpoint_source = where.endpoint_source;
  *info = std::move(ti);
  out->target = std::move(t);
  out->prefix = prefix;
  return Status::Ok();
}

Status open_s3_run_store(const S3RunTarget& t, const std::string& run_id, std::unique_ptr<Store>* out) {
  const std::string root = (t.prefix.empty() ? "" : t.prefix + "/") + "iofab-" + run_id;
  return open_s3_store(t.target, root, out);
}

}  // namespace iofab
