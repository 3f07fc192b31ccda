// Where an s3:// run's endpoint and region come from: the suite first, then the settings awscli v2 and
// the AWS SDKs read, in their order, each choice naming its source (harness/s3/s3_endpoint_source.h).
#include "harness/s3/s3_endpoint_source.h"

#include <gtest/gtest.h>

#include <map>

#include "s3_env_of.h"
#include "test_util.h"

namespace iofab {
namespace {

using testing::TempDir;
using testing::write_file;

using testing::env_of;

// A config file with a profile "dev" naming an endpoint of its own and one in its s3 sub-section.
std::string config_with_both(const TempDir& d) {
  const std::string path = d.path() + "/config";
  write_file(path,
             "[default]\nregion = eu-north-1\n\n"
             "[profile dev]\nregion = ap-south-1\nendpoint_url = http://10.0.0.2:9000\n"
             "s3 =\n  endpoint_url = http://10.0.0.3:9000/\n  addressing_style = path\n"
             "[profile plain]\nendpoint_url = http://10.0.0.4:9000\n");
  return path;
}

TEST(Ini, AKeyWithNoValueOpensASubSectionOfTheIndentedLines) {
  IniSections ini;
  ASSERT_TRUE(parse_ini("[profile dev]\ns3 =\n  endpoint_url = http://h:1\n\taddressing_style = path\n"
                        "endpoint_url = http://top:2\n",
                        "cfg", &ini)
                  .ok());
  EXPECT_EQ(ini["profile dev"]["s3.endpoint_url"], "http://h:1");
  EXPECT_EQ(ini["profile dev"]["s3.addressing_style"], "path");
  EXPECT_EQ(ini["profile dev"]["endpoint_url"], "http://top:2");  // not the sub-section's
}

TEST(S3EndpointSource, TheSuitesEndpointComesFirst) {
  TempDir d;
  S3Endpoint e;
  ASSERT_TRUE(resolve_s3_endpoint("http://127.0.0.1:9000", "",
                                  env_of({{"AWS_ENDPOINT_URL", "http://10.0.0.9:1"},
                                          {"AWS_CONFIG_FILE", config_with_both(d)},
                                          {"AWS_PROFILE", "dev"}}),
                                  &e)
                  .ok());
  EXPECT_EQ(e.endpoint, "http://127.0.0.1:9000");
  EXPECT_EQ(e.endpoint_source, "suite s3.endpoint");
  EXPECT_EQ(e.region, "ap-south-1");
}

TEST(S3EndpointSource, ThenTheEnvironmentThenTheProfileInAwsOrder) {
  TempDir d;
  const std::string cfg = config_with_both(d);
  const std::map<std::string, std::string> all = {{"AWS_ENDPOINT_URL_S3", "http://10.0.0.1:9000"},
                                                  {"AWS_ENDPOINT_URL", "http://10.0.0.5:9000"},
                                                  {"AWS_CONFIG_FILE", cfg},
                                                  {"AWS_PROFILE", "dev"}};
  struct Step {
    std::string drop;  // the environment variable taken away before this step ("" none)
    std::string endpoint, source;
  };
  const std::vector<Step> steps = {
      {"", "http://10.0.0.1:9000", "AWS_ENDPOINT_URL_S3"},
      {"AWS_ENDPOINT_URL_S3", "http://10.0.0.5:9000", "AWS_ENDPOINT_URL"},
      {"AWS_ENDPOINT_URL", "http://10.0.0.3:9000", cfg + " [profile dev] s3.endpoint_url"},
  };
  auto env = all;
  for (const auto& step : steps) {
    SCOPED_TRACE(step.source);
    if (!step.drop.empty()) env.erase(step.drop);
    S3Endpoint e;
    ASSERT_TRUE(resolve_s3_endpoint("", "", env_of(env), &e).ok());
    EXPECT_EQ(e.endpoint, step.endpoint);
    EXPECT_EQ(e.endpoint_source, step.source);
  }
  env["AWS_PROFILE"] = "plain";
  S3Endpoint e;
  ASSERT_TRUE(resolve_s3_endpoint("", "", env_of(env), &e).ok());
  EXPECT_EQ(e.endpoint, "http://10.0.0.4:9000");
  EXPECT_EQ(e.endpoint_source, cfg + " [profile plain] endpoint_url");
  EXPECT_EQ(e.region, "us-east-1");
  EXPECT_EQ(e.region_source, "default");
}

TEST(S3EndpointSource, RegionsInAwsOrderAndAwsOwnEndpointForTheRegion) {
  TempDir d;
  const std::string cfg = config_with_both(d);
  std::map<std::string, std::string> env = {
      {"AWS_REGION", "us-west-2"}, {"AWS_DEFAULT_REGION", "eu-west-3"}, {"AWS_CONFIG_FILE", cfg}};
  S3Endpoint e;
  ASSERT_TRUE(resolve_s3_endpoint("", "ca-central-1", env_of(env), &e).ok());
  EXPECT_EQ(e.region, "ca-central-1");
  EXPECT_EQ(e.endpoint, "https://s3.ca-central-1.amazonaws.com");
  EXPECT_EQ(e.endpoint_source, "AWS's endpoint for suite s3.region");
  ASSERT_TRUE(resolve_s3_endpoint("", "", env_of(env), &e).ok());
  EXPECT_EQ(e.region, "us-west-2");
  EXPECT_EQ(e.region_source, "AWS_REGION");
  env.erase("AWS_REGION");
  ASSERT_TRUE(resolve_s3_endpoint("", "", env_of(env), &e).ok());
  EXPECT_EQ(e.region, "eu-west-3");
  EXPECT_EQ(e.endpoint, "https://s3.eu-west-3.amazonaws.com");
  env.erase("AWS_DEFAULT_REGION");
  ASSERT_TRUE(resolve_s3_endpoint("", "", env_of(env), &e).ok());
  EXPECT_EQ(e.region, "eu-north-1");
  EXPECT_EQ(e.region_source, cfg + " [default] region");
}

TEST(S3EndpointSource, IgnoreConfiguredEndpointsLeavesTheSuiteAndTheRegion) {
  TempDir d;
  S3Endpoint e;
  ASSERT_TRUE(resolve_s3_endpoint("", "",
                                  env_of({{"AWS_ENDPOINT_URL", "http://10.0.0.5:9000"},
                                          {"AWS_IGNORE_CONFIGURED_ENDPOINT_URLS", "true"},
                                          {"AWS_REGION", "us-west-2"},
                                          {"AWS_CONFIG_FILE", config_with_both(d)},
                                          {"AWS_PROFILE", "dev"}}),
                                  &e)
                  .ok());
  EXPECT_EQ(e.endpoint, "https://s3.us-west-2.amazonaws.com");
}

TEST(S3EndpointSource, NoneFoundNamesEveryPlaceAndABadOneNamesItsSource) {
  TempDir d;
  S3Endpoint e;
  Status none = resolve_s3_endpoint("", "", env_of({{"HOME", d.path()}}), &e);
  EXPECT_EQ(none.code(), Status::Code::kInvalidArgument);
  const std::vector<std::string> places = {"s3.endpoint",      "AWS_ENDPOINT_URL_S3",
                                           "AWS_ENDPOINT_URL", "endpoint_url",
                                           "AWS_REGION",       d.path() + "/.aws/config [default]"};
  for (const auto& place : places) {
    EXPECT_NE(none.message().find(place), std::string::npos) << place << ": " << none.message();
  }
  Status bad = resolve_s3_endpoint("", "", env_of({{"AWS_ENDPOINT_URL", "localhost:9000"}}), &e);
  EXPECT_EQ(bad.code(), Status::Code::kInvalidArgument);
  EXPECT_EQ(bad.message().rfind("AWS_ENDPOINT_URL: endpoint \"localhost:9000\": expected http://", 0), 0u)
      << bad.message();
}

TEST(S3EndpointSource, NothingAboutCredentialsIsRead) {
  TempDir d;
  write_file(d.path() + "/config",
             "[default]\naws_secret_access_key = SECRETVALUE\nendpoint_url = nonsense\n");
  S3Endpoint e;
  Status s = resolve_s3_endpoint("", "", env_of({{"AWS_CONFIG_FILE", d.path() + "/config"}}), &e);
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(s.message().find("SECRETVALUE"), std::string::npos) << s.message();
}

}  // namespace
}  // namespace iofab
