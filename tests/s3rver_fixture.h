// A real S3 server for the tests: s3rver (npm), installed on first use under
// the build folder, started on 127.0.0.1 on a port the kernel picks, with its
// own data folder and one bucket, and stopped by its pid when the object goes.
// In front of it, the launcher (tests/s3rver_launch.js) injects HTTP errors on
// request, so retries and error mapping meet a real client and server.
#pragma once

#include <sys/types.h>

#include <memory>
#include <string>

#include <gtest/gtest.h>

#include "harness/core/status.h"
#include "test_util.h"

namespace iofab::testing {

// The credentials s3rver knows (its default account).
inline constexpr const char* kS3rverKeyId = "S3RVER";
inline constexpr const char* kS3rverSecret = "S3RVER";

class S3rver {
 public:
  // Starts one with bucket. When node or npm is missing, or the install fails, *skip gets why
  // (and Ok comes back): the caller skips.
  static Status start(const std::string& bucket, std::unique_ptr<S3rver>* out, std::string* skip);
  ~S3rver();
  S3rver(const S3rver&) = delete;
  S3rver& operator=(const S3rver&) = delete;

  std::string endpoint() const { return "http://127.0.0.1:" + std::to_string(port_); }
  const std::string& bucket() const { return bucket_; }
  const std::string& data_dir() const { return data_; }
  // After `after` more S3 requests pass, the next count answer HTTP status with S3 error code.
  Status inject(int status, const std::string& code, unsigned count, unsigned after = 0);
  // {"requests": n, "signed": n, "faults": n}: S3 requests seen, signed with SigV4, answered a fault.
  Status stats(std::string* json);

 private:
  S3rver() = default;
  TempDir dir_;
  std::string bucket_, data_;
  pid_t pid_ = -1;
  int port_ = 0;
};

// The folder s3rver is installed in (build/s3rver): its node_modules, once installed.
std::string s3rver_install_dir();

}  // namespace iofab::testing

// Starts s3rver into the unique_ptr var, or skips the test saying why.
#define IOFAB_START_S3RVER(var, bucket)                                          \
  std::unique_ptr<::iofab::testing::S3rver> var;                                 \
  do {                                                                           \
    std::string why_;                                                            \
    ::iofab::Status st_ = ::iofab::testing::S3rver::start(bucket, &var, &why_);  \
    if (!why_.empty()) GTEST_SKIP() << why_;                                     \
    ASSERT_TRUE(st_.ok()) << st_.message();                                      \
  } while (0)
