// What a run measured against and how far its figures are verified, through every reader and writer:
// the JSON round trip (and older reports without the fields), the console, the comparison page.
#include <gtest/gtest.h>

#include <sstream>

#include "reports/console_report.h"
#include "reports/html_report.h"
#include "reports/json_report.h"
#include "reports/junit_report.h"
#include "reports/markdown_report.h"
#include "reports/report_fixtures.h"
#include "reports/report_reader.h"

namespace iofab::testing {
namespace {

using nlohmann::json;

json gluster_report() {
  json p = make_phase("restore", "restore", {{"read_bytes_per_s", 4.17e8}, {"read_bytes", 1e8}});
  p["verification"] =
      to_json(judge_verification("read", 1e8, CountedBytes{}, {"fuse.glusterfs", "fuse", ""}));
  json r = make_report(json::array({p, make_phase("coll", "collectives", {{"busbw.all_reduce.max", 1e9}})}));
  r["target"] = {{"path", "/mnt/gv0"},
                 {"fs_type", "fuse.glusterfs"},
                 {"device", "vm:/gv0"},
                 {"mount_source", "vm:/gv0"},
                 {"mount_options", "rw,relatime,user_id=0"},
                 {"devices", json::array()},
                 {"access", "fuse"}};
  return r;
}

json xfs_report() {
  json p = make_phase("restore", "restore", {{"read_bytes_per_s", 9e8}, {"read_bytes", 1e8}});
  CountedBytes c;
  c.device_seen = true;
  c.device_read = 1e8;
  p["verification"] = to_json(judge_verification("read", 1e8, c, {"xfs", "block", "loop0"}));
  json r = make_report(json::array({p}));
  r["target"] = {{"path", "/mnt/x"},       {"fs_type", "xfs"},
                 {"device", "/dev/loop0"}, {"mount_source", "/dev/loop0"},
                 {"devices", {"loop0"}},   {"access", "block"}};
  return r;
}

LoadedReport read(const json& doc, const std::string& name) {
  LoadedReport r;
  Status st = read_report_json(doc, name, &r);
  EXPECT_TRUE(st.ok()) << st.message();
  return r;
}

TEST(VerificationReport, RoundTripsThroughJson) {
  LoadedReport r = read(gluster_report(), "g.json");
  ASSERT_TRUE(r.report.phases[0].verification.has_value());
  const Verification& v = *r.report.phases[0].verification;
  EXPECT_EQ(v.level, kLevelUnverified);
  EXPECT_EQ(v.direction, "read");
  EXPECT_EQ(v.phase_bytes, 1e8);
  EXPECT_FALSE(v.counted_bytes.has_value());
  EXPECT_FALSE(r.report.phases[1].verification.has_value());
  // Written again, read again: the same.
  LoadedReport again = read(report_to_json(r.report), "again");
  EXPECT_EQ(again.report.phases[0].verification->note, v.note);
  EXPECT_EQ(again.report.target["devices"], json::array());
  EXPECT_EQ(again.report.target["mount_source"], "vm:/gv0");
}

TEST(VerificationReport, OlderReportsWithoutTheFieldsStillRead) {
  LoadedReport r =
      read(make_report(json::array({make_phase("ingest", "ingest", {{"write_bytes", 1}})})), "old");
  EXPECT_FALSE(r.report.phases[0].verification.has_value());
  std::vector<SystemReport> systems{{"old", r}};
  const std::string page = render_html_report(systems);
  EXPECT_NE(page.find("/dev/nvme0n1p1"), std::string::npos);  // the old "device" still names the source
}

TEST(VerificationReport, BadFieldsAreErrorsNamingThePath) {
  json d = gluster_report();
  d["phases"][0]["verification"]["level"] = "probably";
  LoadedReport r;
  Status st = read_report_json(d, "g.json", &r);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("phases[0].verification.level: expected one of \"storage\" \"client\" "
                              "\"unverified\", got \"probably\""),
            std::string::npos)
      << st.message();
  d = gluster_report();
  d["phases"][0]["verification"].erase("note");
  st = read_report_json(d, "g.json", &r);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("phases[0].verification.note: expected a string, but it is missing"),
            std::string::npos)
      << st.message();
}

TEST(VerificationReport, ConsoleSaysUnverifiedBesideTheFigure) {
  LoadedReport r = read(gluster_report(), "g.json");
  std::ostringstream out;
  write_console_summary(r.report, out);
  EXPECT_NE(out.str().find("    unverified: client cache not excluded (fuse.glusterfs is a FUSE mount"),
            std::string::npos)
      << out.str();
}

TEST(VerificationReport, JunitCarriesTheLevelAndTheNote) {
  const std::string xml = junit_for_run(read(gluster_report(), "g.json").report);
  EXPECT_NE(xml.find("<property name=\"verification\" value=\"unverified\"/>"), std::string::npos) << xml;
  EXPECT_NE(xml.find("<system-out>unverified: client cache not excluded"), std::string::npos) << xml;
}

TEST(VerificationReport, ComparisonPageShowsTheTargetAndTheLevelPerSystem) {
  std::vector<SystemReport> systems{{"gluster", read(gluster_report(), "g.json")},
                                    {"xfs", read(xfs_report(), "x.json")}};
  const std::string page = render_html_report(systems);
  for (const char* s : {"fuse.glusterfs (fuse)", "xfs (block)", "vm:/gv0", "rw,relatime,user_id=0",
                        "verification: restore", "unverified: client cache not excluded",
                        "verified: loop0 read 100% of the phase&#39;s bytes", "none (no block device"}) {
    EXPECT_NE(page.find(s), std::string::npos) << s;
  }
  // Unverified is marked as a failure is; verified as a pass.
  EXPECT_NE(page.find("<td class=\"fail\">unverified: client cache not excluded"), std::string::npos);
  EXPECT_NE(page.find("<td class=\"pass\">verified: loop0"), std::string::npos);
  const std::string md = render_markdown_report(systems);
  EXPECT_NE(md.find("unverified: client cache not excluded"), std::string::npos);
  EXPECT_NE(md.find("block devices"), std::string::npos);
}

}  // namespace
}  // namespace iofab::testing
