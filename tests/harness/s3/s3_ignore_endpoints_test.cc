// Issue 42 item 12: AWS_IGNORE_CONFIGURED_ENDPOINT_URLS read as botocore reads it (configprovider.py:
// the variable, else the profile's ignore_configured_endpoint_urls, through utils.ensure_boolean: a
// string is true when it is "true" in any case, and nothing else is).
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "harness/s3/s3_endpoint_source.h"
#include "s3_env_of.h"
#include "test_util.h"

namespace iofab {
namespace {

using testing::TempDir;
using testing::write_file;

using testing::env_of;

std::string endpoint_with_ignore(const std::string& value) {
  S3Endpoint e;
  const Status s = resolve_s3_endpoint("", "",
                                       env_of({{"AWS_ENDPOINT_URL", "http://10.0.0.5:9000"},
                                               {"AWS_IGNORE_CONFIGURED_ENDPOINT_URLS", value},
                                               {"AWS_REGION", "us-west-2"},
                                               {"AWS_CONFIG_FILE", "/nonexistent/iofab/config"}}),
                                       &e);
  EXPECT_TRUE(s.ok()) << s.message();
  return e.endpoint;
}

TEST(S3IgnoreConfiguredEndpoints, TrueInAnyCaseAndNothingElse) {
  const std::string aws = "https://s3.us-west-2.amazonaws.com";
  const std::string configured = "http://10.0.0.5:9000";
  for (const char* yes : {"true", "TRUE", "True", "tRuE"}) EXPECT_EQ(endpoint_with_ignore(yes), aws) << yes;
  for (const char* no : {"1", "yes", "on", "false", "", " true", "true "}) {
    EXPECT_EQ(endpoint_with_ignore(no), configured) << '"' << no << '"';
  }
}

TEST(S3IgnoreConfiguredEndpoints, TheProfileKeyCountsWhenTheVariableIsNotSet) {
  TempDir d;
  const std::string cfg = d.path() + "/config";
  write_file(cfg,
             "[default]\nregion = eu-west-1\nendpoint_url = http://10.0.0.6:9000\n"
             "ignore_configured_endpoint_urls = TRUE\n");
  S3Endpoint e;
  ASSERT_TRUE(resolve_s3_endpoint("", "", env_of({{"AWS_CONFIG_FILE", cfg}}), &e).ok());
  EXPECT_EQ(e.endpoint, "https://s3.eu-west-1.amazonaws.com");
  // The variable, when set, wins over the profile, as in botocore's chain.
  ASSERT_TRUE(
      resolve_s3_endpoint(
          "", "", env_of({{"AWS_CONFIG_FILE", cfg}, {"AWS_IGNORE_CONFIGURED_ENDPOINT_URLS", "false"}}), &e)
          .ok());
  EXPECT_EQ(e.endpoint, "http://10.0.0.6:9000");
}

}  // namespace
}  // namespace iofab
