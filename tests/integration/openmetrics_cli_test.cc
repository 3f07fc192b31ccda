// `iofab run --openmetrics FILE` and `iofab report --format openmetrics`: what node_exporter's textfile
// collector and the Pushgateway read, checked by promtool (Debian's prometheus package) where installed.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "test_util.h"

namespace iofab::testing {
namespace {

std::string tiny_suite(const std::string& dir) { return write_one_ingest_suite(dir, "om-suite"); }

TEST(OpenMetricsCli, ARunWritesTheFileAndReportReadsItBack) {
  TempDir d;
  const std::string prom = d.path() + "/iofab.prom", report = d.path() + "/r.json";
  CommandResult r = run_iofab({"run", tiny_suite(d.path()), "--target", d.path() + "/t", "--out", report,
                               "--openmetrics", prom, "-q"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string text = read_file(prom);
  EXPECT_TRUE(contains(text, "iofab_phase_metric{suite=\"om-suite\",target_fs=\"")) << text;
  EXPECT_TRUE(contains(text, ",phase=\"ingest\",metric=\"write_bytes_per_s\",unit=\"bytes/s\"} ")) << text;
  EXPECT_TRUE(contains(text, "iofab_check_passed{suite=\"om-suite\"")) << text;
  EXPECT_TRUE(contains(text, "iofab_run_passed{suite=\"om-suite\"")) << text;
  EXPECT_EQ(text.substr(text.size() - 6), "# EOF\n");

  // The page command writes the same text for one report, by --format or by the .prom extension.
  const std::string again = d.path() + "/again.prom";
  CommandResult p = run_iofab({"report", report, "-o", again});
  ASSERT_EQ(p.exit_code, 0) << p.err;
  EXPECT_EQ(read_file(again), text);
  CommandResult s = run_iofab({"report", report, "--format", "openmetrics", "-o", "-"});
  ASSERT_EQ(s.exit_code, 0) << s.err;
  EXPECT_EQ(s.out, text);

  if (access("/usr/bin/promtool", X_OK) != 0) {
    GTEST_SKIP() << "promtool not installed (apt-get install prometheus; ci/setup installs it)";
  }
  CommandResult check = run_command({"/bin/sh", "-c", "/usr/bin/promtool check metrics < " + prom});
  EXPECT_EQ(check.exit_code, 0) << check.out << check.err << text;
}

TEST(OpenMetricsCli, AnUnwritableFileIsRefusedBeforeTheRun) {
  TempDir d;
  CommandResult r =
      run_iofab({"run", tiny_suite(d.path()), "--target", d.path() + "/t", "--out", d.path() + "/r.json",
                 "--openmetrics", d.path() + "/no/such/dir/m.prom", "-q"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_TRUE(contains(r.err, "--openmetrics")) << r.err;
  EXPECT_FALSE(std::filesystem::exists(d.path() + "/r.json"));
}

}  // namespace
}  // namespace iofab::testing
