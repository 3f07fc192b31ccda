#include "harness/s3/s3_credentials.h"

#include <gtest/gtest.h>

#include <map>

#include "s3_env_of.h"
#include "test_util.h"

namespace iofab {
namespace {

using testing::TempDir;
using testing::write_file;

using testing::env_of;

TEST(Ini, ParsesSectionsKeysAndComments) {
  IniSections ini;
  ASSERT_TRUE(parse_ini("# top\n[default]\naws_access_key_id = AKID\n; note\n\n[profile b]\r\nregion=eu-west-1\r\n",
                        "cfg", &ini)
                  .ok());
  EXPECT_EQ(ini["default"]["aws_access_key_id"], "AKID");
  EXPECT_EQ(ini["profile b"]["region"], "eu-west-1");
}

TEST(Ini, ErrorsNameTheLineAndNeverTheValue) {
  IniSections ini;
  Status s = parse_ini("[default]\naws_secret_access_key SECRETVALUE\n", "/x/credentials", &ini);
  EXPECT_EQ(s.code(), Status::Code::kInvalidArgument);
  EXPECT_NE(s.message().find("/x/credentials line 2"), std::string::npos) << s.message();
  EXPECT_EQ(s.message().find("SECRETVALUE"), std::string::npos);
  EXPECT_FALSE(parse_ini("k = v\n", "f", &ini).ok());     // a key before any section
  EXPECT_FALSE(parse_ini("[open\n", "f", &ini).ok());
}

TEST(S3Credentials, EnvironmentComesFirst) {
  TempDir home;
  write_file(home.path() + "/creds", "[default]\naws_access_key_id = FILEKEY\naws_secret_access_key = FILESECRET\n");
  S3Credentials c;
  ASSERT_TRUE(resolve_s3_credentials(env_of({{"AWS_ACCESS_KEY_ID", "ENVKEY"},
                                             {"AWS_SECRET_ACCESS_KEY", "ENVSECRET"},
                                             {"AWS_SESSION_TOKEN", "TOKEN"},
                                             {"AWS_SHARED_CREDENTIALS_FILE", home.path() + "/creds"}}),
                                      &c)
                  .ok());
  EXPECT_EQ(c.key_id, "ENVKEY");
  EXPECT_EQ(c.secret, "ENVSECRET");
  EXPECT_EQ(c.session_token, "TOKEN");
  EXPECT_EQ(c.source, "environment");
}

TEST(S3Credentials, ProfileFromTheCredentialsFileThenTheConfigFile) {
  TempDir home;
  ASSERT_EQ(system(("mkdir -p " + home.path() + "/.aws").c_str()), 0);
  write_file(home.path() + "/.aws/credentials",
             "[default]\naws_access_key_id = DEFKEY\naws_secret_access_key = DEFSECRET\n"
             "[bench]\naws_access_key_id = BENCHKEY\naws_secret_access_key = BENCHSECRET\n");
  write_file(home.path() + "/.aws/config",
             "[profile bench]\nregion = eu-north-1\n"
             "[profile only-config]\naws_access_key_id = CFGKEY\naws_secret_access_key = CFGSECRET\n");
  S3Credentials c;
  ASSERT_TRUE(resolve_s3_credentials(env_of({{"HOME", home.path()}}), &c).ok());
  EXPECT_EQ(c.key_id, "DEFKEY");
  ASSERT_TRUE(resolve_s3_credentials(env_of({{"HOME", home.path()}, {"AWS_PROFILE", "bench"}}), &c).ok());
  EXPECT_EQ(c.key_id, "BENCHKEY");
  EXPECT_EQ(c.secret, "BENCHSECRET");
  EXPECT_EQ(c.region, "eu-north-1");
  EXPECT_EQ(c.source, home.path() + "/.aws/credentials [bench]");
  ASSERT_TRUE(resolve_s3_credentials(env_of({{"HOME", home.path()}, {"AWS_PROFILE", "only-config"}}), &c).ok());
  EXPECT_EQ(c.key_id, "CFGKEY");
  EXPECT_EQ(c.source, home.path() + "/.aws/config [profile only-config]");
}

TEST(S3Credentials, NoneFoundNamesWhereItLooked) {
  TempDir home;
  S3Credentials c;
  Status s = resolve_s3_credentials(env_of({{"HOME", home.path()}, {"AWS_PROFILE", "nope"}}), &c);
  EXPECT_EQ(s.code(), Status::Code::kInvalidArgument);
  EXPECT_NE(s.message().find("AWS_ACCESS_KEY_ID"), std::string::npos);
  EXPECT_NE(s.message().find("profile \"nope\""), std::string::npos);
  EXPECT_NE(s.message().find(home.path() + "/.aws/credentials"), std::string::npos) << s.message();
}

TEST(S3Credentials, ABrokenFileIsAnErrorNotASilentSkip) {
  TempDir home;
  write_file(home.path() + "/creds", "[default\n");
  S3Credentials c;
  Status s = resolve_s3_credentials(env_of({{"AWS_SHARED_CREDENTIALS_FILE", home.path() + "/creds"}}), &c);
  EXPECT_EQ(s.code(), Status::Code::kInvalidArgument);
  EXPECT_NE(s.message().find(home.path() + "/creds line 1"), std::string::npos) << s.message();
}

}  // namespace
}  // namespace iofab
