// The suite's "s3" object, the s3 kind of target's section: how to reach an
// s3:// target. Checked when the suite is read (the kind's check_section);
// the s3 kind turns it into the S3Target the store and engines share.
//
//   "target": "s3://bucket/prefix",
//   "s3": {"endpoint": "http://127.0.0.1:9000", "region": "us-east-1", "addressing": "path",
//          "part_size": "8MiB", "parallel_parts": 4, "connections": 8, "max_retries": 5,
//          "allow_bucket_root": false, "first_byte_timeout": "15s", "low_speed_limit": "1KiB/s",
//          "low_speed_time": "15s"}
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/s3/s3_config.h"

namespace iofab {

struct Suite;

struct S3Settings {
  bool given = false;  // the suite has an "s3" object
  std::string endpoint;
  std::string region;  // "": the profile's region in ~/.aws/config, else us-east-1
  S3Addressing addressing = S3Addressing::kPath;
  uint64_t part_size = 8ULL << 20;
  unsigned parallel_parts = 4;
  unsigned connections = 8;
  unsigned max_retries = 5;
  bool allow_bucket_root = false;  // a target of a bucket with no prefix: refused unless true
  // A stalled request ends its try (S3Config's limits of the same names).
  double first_byte_timeout_s = 15;
  uint64_t low_speed_limit = 1024;  // bytes/s
  double low_speed_time_s = 15;
};

// Reads j (the suite's "s3"); every problem appended to *errors as "s3.KEY: ..., expected ...".
void parse_s3_settings(const nlohmann::json& j, S3Settings* out, std::vector<std::string>* errors);
// The kind's check of its section, for the suite parser: the errors parse_s3_settings finds.
void check_s3_section(const nlohmann::json& j, std::vector<std::string>* errors);
// The suite's "s3" settings (defaults where it has none; given says whether it had a section). The suite
// was checked when it was read, so its section parses.
S3Settings s3_settings_of(const Suite& suite);

}  // namespace iofab
