// The comparison page in a real browser: `iofab report` writes it, headless
// Chromium (Debian package `chromium`, installed by ci/setup) loads it from
// a file with a fresh profile and no network features. It must load with no
// console message (the page has no script, so any message is an error: a
// blocked fetch, a parse problem), hold one <svg> per plot after parsing,
// and render to a screenshot that is not blank. Without Chromium it skips.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <sstream>

#include "reports/history_fixture.h"
#include "reports/html_fixture.h"
#include "test_util.h"

namespace iofab::testing {
namespace {

using nlohmann::json;

std::string find_chromium() {
  if (const char* env = std::getenv("IOFAB_CHROMIUM"); env != nullptr && access(env, X_OK) == 0) return env;
  for (const char* p : {"/usr/bin/chromium", "/usr/bin/chromium-browser"}) {
    if (access(p, X_OK) == 0) return p;
  }
  return "";
}

size_t count(const std::string& s, const std::string& what) {
  size_t n = 0;
  for (auto p = s.find(what); p != std::string::npos; p = s.find(what, p + what.size())) ++n;
  return n;
}

uint32_t be32(const std::string& s, size_t at) {
  return (static_cast<uint32_t>(static_cast<unsigned char>(s[at])) << 24) |
         (static_cast<uint32_t>(static_cast<unsigned char>(s[at + 1])) << 16) |
         (static_cast<uint32_t>(static_cast<unsigned char>(s[at + 2])) << 8) |
         static_cast<uint32_t>(static_cast<unsigned char>(s[at + 3]));
}

struct Png {
  bool ok = false;
  uint32_t width = 0, height = 0;
  uint64_t idat_bytes = 0;  // compressed pixel data: a uniform image compresses to almost nothing
};

// Enough of PNG to read the size and how much compressed pixel data there is.
Png read_png(const std::string& data) {
  Png p;
  static const char kSig[] = "\x89PNG\r\n\x1a\n";
  if (data.size() < 33 || data.compare(0, 8, std::string(kSig, 8)) != 0) return p;
  size_t at = 8;
  while (at + 12 <= data.size()) {
    const uint32_t len = be32(data, at);
    const std::string type = data.substr(at + 4, 4);
    if (at + 12 + len > data.size()) return p;
    if (type == "IHDR") {
      p.width = be32(data, at + 8);
      p.height = be32(data, at + 12);
    } else if (type == "IDAT") {
      p.idat_bytes += len;
    } else if (type == "IEND") {
      p.ok = p.width > 0;
      return p;
    }
    at += 12 + len;
  }
  return p;
}

class Chromium {
 public:
  Chromium(std::string binary, const TempDir& dir) : binary_(std::move(binary)), dir_(dir.path()) {}

  // Runs headless Chromium on a file with a fresh profile; stderr holds its log (console messages included).
  CommandResult run(const std::vector<std::string>& extra, const std::string& file) {
    const std::string profile = dir_ + "/profile-" + std::to_string(++runs_);
    std::vector<std::string> argv = {"/usr/bin/timeout",
                                     "120",
                                     binary_,
                                     "--headless",
                                     "--no-sandbox",
                                     "--disable-gpu",
                                     "--disable-quic",
                                     "--no-first-run",
                                     "--disable-background-networking",
                                     "--disable-component-update",
                                     "--disable-sync",
                                     "--user-data-dir=" + profile,
                                     "--enable-logging=stderr",
                                     "--v=0",
                                     "--hide-scrollbars"};
    argv.insert(argv.end(), extra.begin(), extra.end());
    argv.push_back("file://" + file);
    return run_command(argv);
  }

 private:
  std::string binary_;
  std::string dir_;
  int runs_ = 0;
};

// Console messages Chromium logs for the page ("...:CONSOLE(12)] ..." or ":CONSOLE:12]").
std::vector<std::string> console_lines(const std::string& log) {
  std::vector<std::string> out;
  std::istringstream in(log);
  for (std::string line; std::getline(in, line);) {
    if (line.find(":CONSOLE") != std::string::npos || line.find("Uncaught") != std::string::npos ||
        line.find("Refused to") != std::string::npos) {
      out.push_back(line);
    }
  }
  return out;
}

TEST(ReportChromium, PageLoadsCleanWithEveryPlotAndRenders) {
  const std::string chromium = find_chromium();
  if (chromium.empty()) {
    GTEST_SKIP()
        << "headless Chromium is not installed (Debian package `chromium`; ci/setup installs it, or set "
           "IOFAB_CHROMIUM to a Chromium binary)";
  }
  TempDir dir("/tmp");
  const std::string a = dir.path() + "/vendor-a.json", b = dir.path() + "/vendor-b.json";
  write_file(a, full_report("node-a <lab>", 1.0).dump());
  write_file(b, full_report("node-b", 0.7).dump());
  const std::string page = dir.path() + "/page.html";
  CommandResult r = run_iofab({"report", a, b, "-o", page});
  ASSERT_EQ(r.exit_code, 0) << r.err;

  Chromium browser(chromium, dir);
  CommandResult dom = browser.run({"--dump-dom"}, page);
  ASSERT_EQ(dom.exit_code, 0) << dom.err;
  // After the browser's parse, the document holds one <svg> per plot and every plot's text.
  EXPECT_EQ(count(dom.out, "<svg"), kFullReportPlots) << dom.out.substr(0, 1000);
  EXPECT_NE(dom.out.find("node-a &lt;lab&gt;"), std::string::npos);
  EXPECT_NE(dom.out.find("Checkpoint stall: ckpt"), std::string::npos);
  const auto console = console_lines(dom.err);
  EXPECT_TRUE(console.empty()) << "console: " << console.front();

  const std::string shot = dir.path() + "/page.png", blank_shot = dir.path() + "/blank.png";
  CommandResult s = browser.run({"--window-size=1280,2400", "--screenshot=" + shot}, page);
  ASSERT_EQ(s.exit_code, 0) << s.err;
  EXPECT_TRUE(console_lines(s.err).empty()) << s.err;
  // The same size of a blank page: what "nothing drawn" compresses to.
  const std::string blank = dir.path() + "/blank.html";
  write_file(
      blank,
      "<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>blank</title></head><body></body></html>");
  CommandResult sb = browser.run({"--window-size=1280,2400", "--screenshot=" + blank_shot}, blank);
  ASSERT_EQ(sb.exit_code, 0) << sb.err;

  const Png png = read_png(read_file(shot));
  const Png empty = read_png(read_file(blank_shot));
  ASSERT_TRUE(png.ok) << "not a PNG: " << shot;
  ASSERT_TRUE(empty.ok);
  EXPECT_EQ(png.width, 1280u);
  EXPECT_EQ(png.height, 2400u);
  EXPECT_GT(png.idat_bytes, 4 * empty.idat_bytes + 10000)
      << "the screenshot compresses like a blank page: " << png.idat_bytes << " vs " << empty.idat_bytes
      << " bytes";
}

// The history page a CI job publishes: ten nightly reports, one with a regression, through
// `iofab report --history`. It loads with no console message, holds one plot per headline metric with the
// regression ringed, and renders. IOFAB_KEEP_SCREENSHOTS=DIR keeps the screenshot there to look at.
TEST(ReportChromium, HistoryPageOfTenReportsMarksTheRegressionAndRenders) {
  const std::string chromium = find_chromium();
  if (chromium.empty()) {
    GTEST_SKIP() << "headless Chromium is not installed (Debian package `chromium`; ci/setup installs it, or "
                    "set IOFAB_CHROMIUM to a Chromium binary)";
  }
  TempDir dir("/tmp");
  std::vector<std::string> args = {"report", "--history"};
  for (size_t k = kHistoryRuns; k >= 1; --k) {  // newest first: the page orders them by start time
    const std::string path = dir.path() + "/nightly-" + std::to_string(k) + ".json";
    write_file(path, history_report(k).dump());
    args.push_back(path);
  }
  const std::string page = dir.path() + "/history.html";
  args.insert(args.end(), {"-o", page});
  CommandResult r = run_iofab(args);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "history: " + page + " (10 reports, 1 regression)\n");

  Chromium browser(chromium, dir);
  CommandResult dom = browser.run({"--dump-dom"}, page);
  ASSERT_EQ(dom.exit_code, 0) << dom.err;
  EXPECT_EQ(count(dom.out, "<svg"), 4u) << "one per headline metric: ingest's two, train's two";
  EXPECT_EQ(count(dom.out, "r=\"7\" fill=\"none\""), 1u) << "the regression, ringed";
  EXPECT_NE(dom.out.find("nightly-7"), std::string::npos);
  const auto console = console_lines(dom.err);
  EXPECT_TRUE(console.empty()) << "console: " << console.front();

  const std::string shot = dir.path() + "/history.png", blank_shot = dir.path() + "/blank.png";
  CommandResult s = browser.run({"--window-size=1280,2000", "--screenshot=" + shot}, page);
  ASSERT_EQ(s.exit_code, 0) << s.err;
  const std::string blank = dir.path() + "/blank.html";
  write_file(
      blank,
      "<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>b</title></head><body></body></html>");
  CommandResult sb = browser.run({"--window-size=1280,2000", "--screenshot=" + blank_shot}, blank);
  ASSERT_EQ(sb.exit_code, 0) << sb.err;
  const Png png = read_png(read_file(shot));
  const Png empty = read_png(read_file(blank_shot));
  ASSERT_TRUE(png.ok && empty.ok);
  EXPECT_GT(png.idat_bytes, 4 * empty.idat_bytes + 10000) << "the screenshot compresses like a blank page";
  if (const char* keep = std::getenv("IOFAB_KEEP_SCREENSHOTS"); keep != nullptr && *keep != '\0') {
    std::error_code ec;
    std::filesystem::copy_file(shot, std::string(keep) + "/history.png",
                               std::filesystem::copy_options::overwrite_existing, ec);
    std::filesystem::copy_file(page, std::string(keep) + "/history.html",
                               std::filesystem::copy_options::overwrite_existing, ec);
  }
}

}  // namespace
}  // namespace iofab::testing
