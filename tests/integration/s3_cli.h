// What the `iofab run` tests on an s3:// target share: credentials for s3rver,
// a suite around a server's endpoint, and the bucket's keys listed through
// iofab's own client, to see what a run leaves behind.
#pragma once

#include <stdlib.h>

#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "harness/s3/s3_ops.h"
#include "s3rver_fixture.h"

namespace iofab::testing {

// s3rver checks the key id but not a SigV4 signature, so any secret signs: one no output may carry.
inline constexpr const char* kS3TestSecret = "iofab-test-secret-7f3a9c";

inline void use_s3_credentials(const char* key_id) {
  setenv("AWS_ACCESS_KEY_ID", key_id, 1);
  setenv("AWS_SECRET_ACCESS_KEY", kS3TestSecret, 1);
  unsetenv("AWS_SESSION_TOKEN");
  unsetenv("AWS_PROFILE");
}

// A suite of one phase on target, its "s3" object pointed at srv (s3_extra's keys added or replaced).
inline std::string s3_suite(const S3rver& srv, const std::string& target, const nlohmann::json& phase,
                            const nlohmann::json& s3_extra = nlohmann::json::object()) {
  nlohmann::json s3 = {
      {"endpoint", srv.endpoint()}, {"part_size", "5MiB"}, {"parallel_parts", 2}, {"connections", 4}};
  for (const auto& [k, v] : s3_extra.items()) s3[k] = v;
  return nlohmann::json{
      {"name", "s3-test"}, {"target", target}, {"s3", s3}, {"phases", nlohmann::json::array({phase})}}
      .dump(2);
}

inline std::unique_ptr<S3Client> s3_test_client(const S3rver& srv) {
  S3Config c;
  c.endpoint = srv.endpoint();
  c.bucket = srv.bucket();
  std::unique_ptr<S3Client> out;
  EXPECT_TRUE(make_s3_client(c, S3Credentials{kS3rverKeyId, kS3TestSecret, "", "t", ""}, &out).ok());
  return out;
}

// Every object in the server's bucket.
inline std::vector<S3Object> bucket_objects(const S3rver& srv) {
  auto c = s3_test_client(srv);
  std::vector<S3Object> objs;
  EXPECT_TRUE(s3_list(*c, "", &objs).ok());
  return objs;
}

inline std::vector<std::string> bucket_keys(const S3rver& srv) {
  std::vector<std::string> out;
  for (auto& o : bucket_objects(srv)) out.push_back(o.key);
  return out;
}

}  // namespace iofab::testing
