// The calibration file (workloads/calibration/): the fit on hand-computed numbers, the file's round trip,
// a bad file refused naming the field, where a phase finds its calibration, and the probe table.
#include "workloads/calibration/calibration.h"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <functional>
#include <string>

#include "test_util.h"
#include "workloads/calibration/fit.h"
#include "workloads/calibration/loader_costs.h"
#include "workloads/calibration/loader_fit.h"
#include "workloads/calibration/probes.h"

namespace iofab {
namespace {

using nlohmann::json;
using testing::TempDir;
using testing::write_file;

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

TEST(CalibrationFit, LineThroughHandComputedPoints) {
  // y = 1 + 2x at x = 1, 2, 3; and points scattered around y = 3 + 0.5x: (0,3), (2,5), (4,5).
  const double xs[] = {1, 2, 3};
  const double ys[] = {3, 5, 7};
  const LineFit f = fit_line(xs, ys);
  EXPECT_TRUE(f.ok);
  EXPECT_NEAR(f.intercept, 1.0, 1e-12);
  EXPECT_NEAR(f.slope, 2.0, 1e-12);
  const double x2[] = {0, 2, 4};
  const double y2[] = {3, 5, 5};
  // mean x 2, mean y 13/3; sxy = (-2)(-4/3) + 0 + 2(2/3) = 4, sxx = 8: slope 0.5, intercept 13/3 - 1.
  const LineFit g = fit_line(x2, y2);
  EXPECT_NEAR(g.slope, 0.5, 1e-12);
  EXPECT_NEAR(g.intercept, 10.0 / 3.0, 1e-12);
  const double one[] = {5};
  EXPECT_FALSE(fit_line(one, one).ok) << "one size cannot separate a fixed cost from a per-byte one";
}

TEST(CalibrationFit, LoaderCostsFromTwoSizes) {
  // 10 us + 1 ns/byte per sample; 50 us + 0.5 ns/byte per batch of 8; the main loop 100 and 300 us.
  std::vector<LoaderPoint> pts;
  for (double size : {16384.0, 1048576.0}) {
    const double batch_bytes = 8 * size;
    pts.push_back({.size = size,
                   .batch_bytes = batch_bytes,
                   .sample_s = 10e-6 + 1e-9 * size,
                   .collate_s = 50e-6 + 0.5e-9 * batch_bytes,
                   .main_batch_s = size < 1e6 ? 100e-6 : 300e-6});
  }
  const LoaderCosts c = fit_loader_costs(pts, 0.2);
  EXPECT_NEAR(c.sample_s, 10e-6, 1e-12);
  EXPECT_NEAR(c.byte_s, 1e-9, 1e-15);
  EXPECT_NEAR(c.collate_batch_s, 50e-6, 1e-12);
  EXPECT_NEAR(c.collate_byte_s, 0.5e-9, 1e-15);
  EXPECT_NEAR(c.main_batch_s, 200e-6, 1e-12);
  EXPECT_DOUBLE_EQ(c.worker_start_s, 0.2);
  // Costs below nothing are noise: the spin is never negative either.
  LoaderCalibration lc;
  lc.python = c;
  lc.native = c;
  lc.native.sample_s = 20e-6;
  EXPECT_EQ(lc.spin().sample_s, 0.0);
  EXPECT_NEAR(lc.spin().byte_s, 0.0, 1e-18);
}

Calibration sample_calibration() {
  Calibration c;
  c.source = "x";
  c.created = "2026-12-07T05:00:00Z";
  c.host = "vm";
  c.python = "/usr/bin/python3 3.11.2";
  c.torch = "1.13.1";
  LoaderCalibration lc = builtin_loader_calibration();
  lc.python.sample_s = 42e-6;
  c.sections[std::string(kLoaderSection)] = lc.to_json();
  c.sections["torch_save"] = {{"anything", 1}};  // another probe's section rides along untouched
  return c;
}

TEST(CalibrationFile, RoundTrip) {
  TempDir d;
  const Calibration c = sample_calibration();
  write_file(d.path() + "/c.json", c.to_json().dump(2));
  Calibration back;
  ASSERT_TRUE(load_calibration_file(d.path() + "/c.json", &back).ok());
  EXPECT_EQ(back.source, d.path() + "/c.json");
  EXPECT_EQ(back.created, c.created);
  EXPECT_EQ(back.torch, "1.13.1");
  EXPECT_EQ(back.python, c.python);
  ASSERT_NE(back.section("torch_save"), nullptr);
  EXPECT_EQ(back.section("safetensors"), nullptr);
  LoaderCalibration lc;
  bool from_file = false;
  ASSERT_TRUE(loader_calibration(back, &lc, &from_file).ok());
  EXPECT_TRUE(from_file);
  EXPECT_DOUBLE_EQ(lc.python.sample_s, 42e-6);
  const json p = back.provenance();
  EXPECT_EQ(p["source"], d.path() + "/c.json");
  EXPECT_EQ(p["torch"], "1.13.1");
  EXPECT_EQ(p["created"], c.created);
}

TEST(CalibrationFile, BadFileRefusedNamingTheField) {
  const json good = sample_calibration().to_json();
  struct Case {
    std::function<void(json&)> spoil;
    std::string says;
  };
  const Case cases[] = {
      {[](json& j) { j["format"] = "other"; }, "calibration file f: format: expected \"iofab-calibration\""},
      {[](json& j) { j["version"] = 2; }, "calibration file f: version: expected 1, got 2"},
      {[](json& j) { j.erase("created"); }, "created: expected a string (it is missing)"},
      {[](json& j) { j["sections"] = json::array(); }, "sections: expected an object of named sections"},
      {[](json& j) { j["sections"]["loader"]["python"]["byte_s"] = -1; },
       "sections.loader.python.byte_s: expected a number >= 0 (CPU seconds), got -1"},
      {[](json& j) { j["sections"]["loader"].erase("native"); },
       "sections.loader.native: expected an object"},
  };
  for (const Case& c : cases) {
    json j = good;
    c.spoil(j);
    Calibration cal;
    Status s = parse_calibration(j.dump(), "f", &cal);
    if (s.ok()) {
      LoaderCalibration lc;
      bool from_file = false;
      s = loader_calibration(cal, &lc, &from_file);
    }
    EXPECT_FALSE(s.ok()) << c.says;
    EXPECT_TRUE(has(s.message(), c.says)) << s.message();
  }
  Calibration cal;
  EXPECT_TRUE(has(parse_calibration("{", "f", &cal).message(), "calibration file f: not valid JSON"));
}

// Sets an environment variable for the test's length.
class Env {
 public:
  Env(const char* name, const std::string& value) : name_(name) {
    const char* old = ::getenv(name);
    had_ = old != nullptr;
    if (had_) old_ = old;
    ::setenv(name, value.c_str(), 1);
  }
  ~Env() {
    if (had_) {
      ::setenv(name_, old_.c_str(), 1);
    } else {
      ::unsetenv(name_);
    }
  }

 private:
  const char* name_;
  bool had_ = false;
  std::string old_;
};

TEST(CalibrationFile, FoundByParamThenEnvironmentThenDefaultPathThenBuiltIn) {
  TempDir d;
  const std::string text = sample_calibration().to_json().dump();
  Env xdg("XDG_CONFIG_HOME", d.path() + "/config");
  Env none("IOFAB_CALIBRATION", "");
  Calibration c;
  ASSERT_TRUE(find_calibration("", &c).ok());
  EXPECT_TRUE(c.built_in()) << "no file anywhere: the built-in costs";
  EXPECT_EQ(default_calibration_path(), d.path() + "/config/iofab/calibration.json");
  ASSERT_EQ(::mkdir((d.path() + "/config").c_str(), 0700), 0);
  ASSERT_EQ(::mkdir((d.path() + "/config/iofab").c_str(), 0700), 0);
  write_file(default_calibration_path(), text);
  ASSERT_TRUE(find_calibration("", &c).ok());
  EXPECT_EQ(c.source, default_calibration_path());
  write_file(d.path() + "/env.json", text);
  Env env("IOFAB_CALIBRATION", d.path() + "/env.json");
  ASSERT_TRUE(find_calibration("", &c).ok());
  EXPECT_EQ(c.source, d.path() + "/env.json");
  write_file(d.path() + "/param.json", text);
  ASSERT_TRUE(find_calibration(d.path() + "/param.json", &c).ok());
  EXPECT_EQ(c.source, d.path() + "/param.json");
  const Status missing = find_calibration(d.path() + "/nope.json", &c);
  EXPECT_FALSE(missing.ok());
  EXPECT_TRUE(has(missing.message(), "calibration file " + d.path() + "/nope.json")) << missing.message();
}

TEST(CalibrationProbes, EveryProbeIsEmbeddedAndFillsASection) {
  ASSERT_FALSE(calibration_probes().empty());
  for (const CalibrationProbe& p : calibration_probes()) {
    EXPECT_FALSE(p.section.empty()) << p.name;
    const std::string_view script = embedded_probe_script(p.script);
    EXPECT_TRUE(has(std::string(script), "import torch")) << p.script << " is not embedded";
  }
  EXPECT_TRUE(embedded_probe_script("no_such_probe.py").empty());
}

}  // namespace
}  // namespace iofab
