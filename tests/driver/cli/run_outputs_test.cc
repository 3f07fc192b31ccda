// `iofab run --output FORMAT=PATH` and its aliases, read into reporter rows (driver/cli/run_outputs.h):
// each named as the user gave it, a bad value refused naming it and the formats.
#include "driver/cli/run_outputs.h"

#include <gtest/gtest.h>

namespace iofab {
namespace {

TEST(RunOutputs, EachValueIsARowOfTheReporterTable) {
  std::vector<RunOutput> out;
  ASSERT_TRUE(resolve_run_outputs({"html=a.html", "md=b.md", "junit=c=d.xml"}, "j.xml", "m.prom", &out).ok());
  ASSERT_EQ(out.size(), 5u);
  EXPECT_EQ(out[0].reporter, find_reporter("html"));
  EXPECT_EQ(out[0].named.option, "--output html");
  EXPECT_EQ(out[0].named.path, "a.html");
  EXPECT_EQ(out[2].named.path, "c=d.xml");  // the first '=' ends the format
  EXPECT_EQ(out[3].reporter, find_reporter("junit"));
  EXPECT_EQ(out[3].named.option, "--junit");
  EXPECT_EQ(out[4].reporter, find_reporter("openmetrics"));
  EXPECT_EQ(out[4].named.option, "--openmetrics");
  ASSERT_TRUE(resolve_run_outputs({}, "", "", &out).ok());
  EXPECT_TRUE(out.empty());
}

TEST(RunOutputs, MarkdownIsMdsOtherName) {
  std::vector<RunOutput> out;
  ASSERT_TRUE(resolve_run_outputs({"markdown=b.md"}, "", "", &out).ok());
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].reporter, find_reporter("md"));
  EXPECT_EQ(out[0].named.option, "--output markdown");
}

TEST(RunOutputs, ABadValueIsRefusedNamingIt) {
  std::vector<RunOutput> out;
  for (const std::string bad : {"pdf=x.pdf", "x.xml", "=x.xml", "junit="}) {
    Status s = resolve_run_outputs({"json=ok.json", bad}, "", "", &out);
    EXPECT_EQ(s.code(), Status::Code::kInvalidArgument) << bad;
    EXPECT_NE(s.message().find("--output \"" + bad + "\""), std::string::npos) << s.message();
    EXPECT_NE(s.message().find("html, md, json, console, junit or openmetrics"), std::string::npos)
        << s.message();
  }
}

}  // namespace
}  // namespace iofab
