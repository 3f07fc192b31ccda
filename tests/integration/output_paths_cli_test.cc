// Outputs never overwrite inputs or each other, and an output that cannot be
// written is refused before anything runs (exit 2, nothing written).
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "driver/cli/output_paths.h"
#include "reports/report_fixtures.h"
#include "test_util.h"

namespace iofab::testing {
namespace {

using nlohmann::json;

json small_report() {
  return make_report(json::array({make_phase("ingest", "ingest", {{"write_bytes_per_s", 1e9}})}));
}

TEST(OutputPaths, TheSameFileHoweverSpelledIsRefused) {
  TempDir dir("/dev/shm");
  const std::string a = dir.path() + "/a.json";
  write_file(a, "{}");
  std::filesystem::create_symlink(a, dir.path() + "/link.json");
  ASSERT_EQ(link(a.c_str(), (dir.path() + "/hard.json").c_str()), 0);
  for (const std::string& spelling :
       {a, dir.path() + "/./a.json", dir.path() + "/link.json", dir.path() + "/hard.json"}) {
    Status st = check_outputs_distinct({{"report", a}}, {{"--out", spelling}});
    EXPECT_EQ(st.code(), Status::Code::kInvalidArgument) << spelling;
    EXPECT_NE(st.message().find("--out \"" + spelling + "\" is the same file as the input report"),
              std::string::npos)
        << st.message();
  }
  // Two outputs not there yet: the same folder and name.
  Status st =
      check_outputs_distinct({}, {{"--out", dir.path() + "/x.json"}, {"--junit", dir.path() + "/./x.json"}});
  EXPECT_EQ(st.code(), Status::Code::kInvalidArgument);
  EXPECT_NE(st.message().find("--junit"), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("the output --out"), std::string::npos) << st.message();
  // Distinct files pass; "-" (stdout) and a missing input are not files.
  EXPECT_TRUE(check_outputs_distinct({{"report", a}, {"report", dir.path() + "/none.json"}},
                                     {{"--out", dir.path() + "/b.json"}, {"--junit", "-"}})
                  .ok());
}

TEST(OutputPaths, AnOutputThatCannotBeCreatedIsRefused) {
  TempDir dir("/dev/shm");
  Status st = check_output_creatable({"--out", dir.path() + "/missing/r.json"});
  EXPECT_EQ(st.code(), Status::Code::kInvalidArgument);
  EXPECT_NE(st.message().find("--out"), std::string::npos);
  EXPECT_NE(st.message().find("No such file or directory"), std::string::npos) << st.message();
  st = check_output_creatable({"--junit", dir.path()});
  EXPECT_NE(st.message().find("is a folder"), std::string::npos) << st.message();
  write_file(dir.path() + "/file", "x");
  st = check_output_creatable({"--out", dir.path() + "/file/r.json"});
  EXPECT_NE(st.message().find("is not a folder"), std::string::npos) << st.message();
  // /proc refuses new files even to root.
  st = check_output_creatable({"--out", "/proc/r.json"});
  EXPECT_NE(st.message().find("cannot create a file in \"/proc\""), std::string::npos) << st.message();
  EXPECT_TRUE(check_output_creatable({"--out", dir.path() + "/r.json"}).ok());
  // The probe leaves nothing behind.
  std::vector<std::string> left = list_files(dir.path());
  EXPECT_EQ(left, std::vector<std::string>{"file"});
}

TEST(OutputPathsCli, CompareAndReportNeverWriteOverTheirInputs) {
  TempDir dir("/dev/shm");
  const std::string a = dir.path() + "/a.json", b = dir.path() + "/b.json";
  write_file(a, small_report().dump());
  write_file(b, small_report().dump());
  const std::string before = read_file(b);
  struct Case {
    std::vector<std::string> args;
    std::string option;
  };
  for (const Case& c : std::vector<Case>{
           {{"compare", a, b, "--out", b}, "--out"},
           {{"compare", a, b, "--junit", a}, "--junit"},
           {{"compare", a, b, "--out", dir.path() + "/x.json", "--junit", dir.path() + "/./x.json"},
            "--junit"},
           {{"report", a, b, "-o", a}, "--out"},
           {{"report", a, b, "-o", dir.path() + "/no/page.html"}, "--out"},
           {{"compare", a, b, "--out", dir.path()}, "--out"},
       }) {
    CommandResult r = run_iofab(c.args);
    EXPECT_EQ(r.exit_code, 2) << c.args[0] << " " << c.option << ": " << r.err;
    EXPECT_NE(r.err.find(c.option + " \""), std::string::npos) << r.err;
    EXPECT_EQ(read_file(a), before);
    EXPECT_EQ(read_file(b), before);
  }
  EXPECT_FALSE(std::filesystem::exists(dir.path() + "/x.json"));
  // The page to stdout is no file.
  CommandResult r = run_iofab({"report", a, b, "-o", "-", "--format", "md"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
}

TEST(OutputPathsCli, RunRefusesBadOutputsBeforeTheSuiteRuns) {
  TempDir dir("/dev/shm");
  const std::string suite = dir.path() + "/s.json", target = dir.path() + "/t";
  const std::string text = R"({"phases": [{"kind": "ingest", "name": "ingest", "files_per_worker": 1,
      "file_size": "1MiB", "block_size": "64KiB", "workers": 1, "engine": "posix", "direct": false}]})";
  write_file(suite, text);
  std::filesystem::create_directory(target);
  struct Case {
    std::vector<std::string> extra;
    std::string expect;
  };
  for (const Case& c : std::vector<Case>{
           {{"-o", suite}, "--out \"" + suite + "\" is the same file as the input suite"},
           {{"--junit", suite}, "--junit \"" + suite + "\" is the same file as the input suite"},
           {{"-o", dir.path() + "/x.json", "--junit", dir.path() + "/./x.json"}, "the output --out"},
           {{"-o", dir.path() + "/missing/r.json"},
            "--out \"" + dir.path() + "/missing/r.json\": its folder"},
           {{"-o", target}, "is a folder"},
           {{"-o", dir.path() + "/r.json", "--junit", "/proc/j.xml"},
            "--junit \"/proc/j.xml\": cannot create"},
       }) {
    std::vector<std::string> args = {"run", suite, "--target", target, "--quiet"};
    args.insert(args.end(), c.extra.begin(), c.extra.end());
    CommandResult r = run_iofab(args);
    EXPECT_EQ(r.exit_code, 2) << c.expect << ": " << r.err;
    EXPECT_NE(r.err.find(c.expect), std::string::npos) << r.err;
    EXPECT_EQ(read_file(suite), text);
    EXPECT_TRUE(std::filesystem::is_empty(target)) << "the suite ran: " << c.expect;
  }
  EXPECT_FALSE(std::filesystem::exists(dir.path() + "/x.json"));
  EXPECT_FALSE(std::filesystem::exists(dir.path() + "/r.json"));
}

}  // namespace
}  // namespace iofab::testing
