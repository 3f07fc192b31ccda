// `iofab run --output FORMAT=PATH`: each format of the reporter table written beside the report, the
// aliases --junit and --openmetrics still working, and a bad FORMAT or path refused (exit 2, naming it)
// before the suite runs.
#include <gtest/gtest.h>

#include <filesystem>

#include "test_util.h"

namespace iofab::testing {
namespace {

std::string tiny_suite(const std::string& dir) { return write_one_ingest_suite(dir, "out-suite"); }

TEST(RunOutputCli, EachFormatIsWrittenBesideTheReport) {
  TempDir d;
  const std::string report = d.path() + "/r.json";
  const std::vector<std::pair<std::string, std::string>> wanted = {
      {"json", "\"schema_version\""},       {"html", "<html"},    {"md", "# iofab"}, {"junit", "<testsuites"},
      {"openmetrics", "iofab_run_passed{"}, {"console", "ingest"}};
  std::vector<std::string> args = {"run", tiny_suite(d.path()), "--target", d.path() + "/t", "--out", report,
                                   "-q"};
  for (const auto& [format, _] : wanted) {
    args.push_back("--output");
    args.push_back(format + "=" + d.path() + "/out." + format);
  }
  CommandResult r = run_iofab(args);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const auto& [format, marker] : wanted) {
    const std::string text = read_file(d.path() + "/out." + format);
    EXPECT_TRUE(contains(text, marker)) << format << ":\n" << text.substr(0, 400);
  }
  // --output json= is the report's own text.
  EXPECT_EQ(read_file(d.path() + "/out.json"), read_file(report));
}

TEST(RunOutputCli, TheAliasesWriteWhatOutputDoes) {
  TempDir d;
  CommandResult r = run_iofab({"run", tiny_suite(d.path()), "--target", d.path() + "/t", "--out",
                               d.path() + "/r.json", "--junit", d.path() + "/a.xml", "--output",
                               "junit=" + d.path() + "/b.xml", "--openmetrics", d.path() + "/a.prom", "-q"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(contains(read_file(d.path() + "/a.xml"), "<testsuites")) << read_file(d.path() + "/a.xml");
  EXPECT_EQ(read_file(d.path() + "/a.xml"), read_file(d.path() + "/b.xml"));
  EXPECT_TRUE(contains(read_file(d.path() + "/a.prom"), "# EOF")) << read_file(d.path() + "/a.prom");
}

TEST(RunOutputCli, ABadFormatOrPathIsRefusedBeforeTheRun) {
  TempDir d;
  const std::string report = d.path() + "/r.json";
  struct Case {
    std::string value;
    std::string said;
  };
  for (const Case& c :
       {Case{"pdf=" + d.path() + "/x.pdf", "unknown format \"pdf\""},
        Case{d.path() + "/x.xml", "expected FORMAT=PATH"}, Case{"junit=", "expected FORMAT=PATH"},
        Case{"junit=" + d.path() + "/no/such/dir/j.xml", "--output junit"},
        Case{"json=" + report, "--output json"}}) {
    CommandResult r = run_iofab({"run", tiny_suite(d.path()), "--target", d.path() + "/t", "--out", report,
                                 "--output", c.value, "-q"});
    EXPECT_EQ(r.exit_code, 2) << c.value << ": " << r.err;
    EXPECT_TRUE(contains(r.err, c.said)) << c.value << ": " << r.err;
    EXPECT_FALSE(std::filesystem::exists(report)) << c.value;
  }
}

}  // namespace
}  // namespace iofab::testing
