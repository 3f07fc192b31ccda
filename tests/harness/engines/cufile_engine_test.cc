#include "harness/engines/cufile_engine.h"

#include <gtest/gtest.h>

#include <cerrno>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "harness/engines/engine.h"
#include "harness/engines/engine_choice.h"
#include "test_util.h"

namespace iofab {
namespace {

using testing::TempDir;

constexpr const char* kCufileNames[] = {"libcufile.so.0", "libcufile.so"};

CufileEnvLookup env_of(std::map<std::string, std::string> vars) {
  return [vars = std::move(vars)](std::string_view name) -> std::optional<std::string> {
    auto it = vars.find(std::string(name));
    if (it == vars.end()) return std::nullopt;
    return it->second;
  };
}

// What the engine table must say on this machine, found independently of it.
std::string expected_reason() {
#ifndef IOFAB_HAVE_CUDA
  return "built without CUDA";
#else
  Status lib = probe_cufile_library(kCufileNames);
  if (!lib.ok()) return lib.message();
  int n = 0;
  Status dev = cufile_cuda::device_count(&n);
  return dev.ok() ? std::string() : dev.message();
#endif
}

EngineInfo cufile_row() {
  for (const EngineInfo& e : list_engines()) {
    if (e.name == "cufile") return e;
  }
  ADD_FAILURE() << "no cufile row in list_engines()";
  return {};
}

TEST(CufileLibrary, MissingLibraryNamesTheLoadersMessage) {
  constexpr const char* names[] = {"libiofab_no_such_cufile.so.0"};
  Status s = probe_cufile_library(names);
  EXPECT_EQ(s.code(), Status::Code::kUnavailable);
  EXPECT_EQ(
      s.message().rfind("cuFile not found: libiofab_no_such_cufile.so.0: cannot open shared object file", 0),
      0u)
      << s.message();
}

TEST(CufileLibrary, EveryNameIsTriedAndTheFirstFailureReported) {
  constexpr const char* names[] = {"libiofab_no_such_cufile.so.0", "libiofab_no_such_cufile.so"};
  Status s = probe_cufile_library(names);
  EXPECT_EQ(s.code(), Status::Code::kUnavailable);
  EXPECT_NE(s.message().find("libiofab_no_such_cufile.so.0: cannot open"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("(also tried libiofab_no_such_cufile.so)"), std::string::npos) << s.message();
}

TEST(CufileLibrary, ALibraryWithoutCufileSymbolsIsRefused) {
  constexpr const char* names[] = {"libc.so.6"};
  Status s = probe_cufile_library(names);
  EXPECT_EQ(s.code(), Status::Code::kUnavailable);
  EXPECT_EQ(s.message(), "cuFile not found: libc.so.6: undefined symbol cuFileDriverOpen");
}

TEST(CufileEngineTable, RowSaysPreciselyWhyItCannotRunHere) {
  const EngineInfo e = cufile_row();
  EXPECT_TRUE(is_engine_name("cufile"));
  const std::string want = expected_reason();
  if (want.empty()) GTEST_SKIP() << "cuFile and a CUDA device are present: " << e.description;
  EXPECT_FALSE(e.usable);
  EXPECT_EQ(e.reason, want);
#ifdef IOFAB_HAVE_CUDA
  EXPECT_TRUE(e.built);
#else
  EXPECT_FALSE(e.built);
#endif
}

TEST(CufileEngineTable, MakeEngineAnswersUnavailableWithTheReason) {
  const std::string want = expected_reason();
  if (want.empty()) GTEST_SKIP() << "cuFile and a CUDA device are present";
  EngineOptions opts;
  opts.direct = true;
  std::unique_ptr<Engine> engine;
  Status s = make_engine("cufile", opts, &engine);
  EXPECT_EQ(s.code(), Status::Code::kUnavailable);
  EXPECT_EQ(s.message(), "engine cufile unavailable: " + want);
  EXPECT_EQ(engine, nullptr);
  // The factory on its own gives the same answer, not a half-made engine.
  s = make_cufile_engine(opts, &engine);
  EXPECT_EQ(s.code(), Status::Code::kUnavailable) << s.message();
  EXPECT_NE(s.message().find(want), std::string::npos) << s.message();
  EXPECT_EQ(engine, nullptr);
}

TEST(CufileEngineTable, NeedsDirectIo) {
  std::unique_ptr<Engine> engine;
  Status s = make_cufile_engine(EngineOptions{}, &engine);
  EXPECT_EQ(s.code(), Status::Code::kInvalidArgument);
  EXPECT_NE(s.message().find("direct: true"), std::string::npos) << s.message();
  EXPECT_EQ(engine, nullptr);
}

TEST(CufileEngineTable, AutoNeverPicksCufile) {
  const std::string chosen = resolve_engine_name("auto");
  EXPECT_NE(chosen, "cufile");
  EXPECT_TRUE(chosen == "io_uring" || chosen == "psync") << chosen;
}

TEST(CufileErrors, CodesReadAsText) {
  EXPECT_EQ(cufile_error_text(5001), "nvidia-fs driver is not loaded (5001)");
  EXPECT_EQ(cufile_error_text(5020), "file was not opened with O_DIRECT (5020)");
  EXPECT_EQ(cufile_error_text(5999), "cuFile error 5999");
}

// The texts follow cufile.h's names (CUDA 13.0): 5049 is CU_FILE_BATCH_NOCOMPAT_ERROR, and the batch
// codes between 5034 and 5043 have texts of their own.
TEST(CufileErrors, CodesFollowTheHeadersNames) {
  EXPECT_EQ(cufile_error_text(5049), "batch I/O cannot run in compat mode (5049)");
  EXPECT_EQ(cufile_error_text(5035), "batch submit failed (5035)");
  EXPECT_EQ(cufile_error_text(5037), "batch queue full (5037)");
  EXPECT_EQ(cufile_error_text(5027), "file descriptor is not registered (5027)");
  EXPECT_EQ(cufile_error_text(5028), "file descriptor is already registered (5028)");
}

TEST(CufileErrors, IoResultsBecomeByteCountsOrErrno) {
  EXPECT_EQ(cufile_io_result(1 << 20, 0), 1 << 20);
  EXPECT_EQ(cufile_io_result(0, 0), 0);
  EXPECT_EQ(cufile_io_result(-1, ENOSPC), -ENOSPC);
  EXPECT_EQ(cufile_io_result(-1, 0), -EIO);  // an error without an errno is still an error
  EXPECT_EQ(cufile_io_result(-EROFS, 0), -EROFS);
  EXPECT_EQ(cufile_io_result(-5020, 0), -EINVAL);
  EXPECT_EQ(cufile_io_result(-5008, 0), -EOPNOTSUPP);
  EXPECT_EQ(cufile_io_result(-5043, 0), -ENOMEM);
  EXPECT_EQ(cufile_io_result(-5030, 0), -EIO);
}

TEST(CufileConfig, ReadsNvidiasCommentedFile) {
  CufileModeFacts f;
  Status s = parse_cufile_config(R"({
      // cufile.json as NVIDIA ships it carries comments
      "logging": {"level": "ERROR"},
      "properties": {
        /* fall back to POSIX I/O when GDS cannot be used */
        "allow_compat_mode": false,
        "force_compat_mode": false,
        "use_pci_p2pdma": true,
        "max_direct_io_size_kb": 16384
      }
    })",
                                 &f);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(f.json_allow_compat, false);
  EXPECT_EQ(f.json_force_compat, false);
  EXPECT_EQ(f.json_pci_p2pdma, true);
}

TEST(CufileConfig, MissingPropertiesLeaveDefaults) {
  CufileModeFacts f;
  ASSERT_TRUE(parse_cufile_config(R"({"logging": {}})", &f).ok());
  EXPECT_FALSE(f.json_allow_compat.has_value());
  EXPECT_FALSE(f.json_force_compat.has_value());
}

TEST(CufileConfig, ErrorsNameTheField) {
  CufileModeFacts f;
  Status s = parse_cufile_config(R"({"properties": {"allow_compat_mode": "yes"}})", &f);
  EXPECT_EQ(s.code(), Status::Code::kInvalidArgument);
  EXPECT_EQ(s.message(), "properties.allow_compat_mode: expected true or false");
  s = parse_cufile_config(R"({"properties": [1]})", &f);
  EXPECT_EQ(s.message(), "properties: expected an object");
  s = parse_cufile_config("{not json", &f);
  EXPECT_EQ(s.message().rfind("not valid JSON: ", 0), 0u) << s.message();
}

TEST(CufileModeFacts, ReadFromTheEnvironmentTheFileAndProc) {
  TempDir root;
  std::filesystem::create_directories(root.path() + "/etc");
  std::filesystem::create_directories(root.path() + "/opt/app");
  testing::write_file(root.path() + "/etc/cufile.json", R"({"properties": {"allow_compat_mode": false}})");
  testing::write_file(root.path() + "/opt/app/cufile.json", R"({"properties": {"force_compat_mode": true}})");

  CufileModeFacts f = read_cufile_mode_facts(env_of({}), root.path());
  EXPECT_EQ(f.config_path, "/etc/cufile.json");
  EXPECT_EQ(f.json_allow_compat, false);
  EXPECT_FALSE(f.nvfs_loaded);
  EXPECT_FALSE(f.env_force_compat.has_value());

  std::filesystem::create_directories(root.path() + "/proc/driver/nvidia-fs");
  f = read_cufile_mode_facts(env_of({{"CUFILE_ENV_PATH_JSON", "/opt/app/cufile.json"},
                                     {"CUFILE_ALLOW_COMPAT_MODE", "TRUE"},
                                     {"CUFILE_FORCE_COMPAT_MODE", "maybe"}}),
                             root.path());
  EXPECT_EQ(f.config_path, "/opt/app/cufile.json");
  EXPECT_EQ(f.json_force_compat, true);
  EXPECT_FALSE(f.json_allow_compat.has_value());
  EXPECT_EQ(f.env_allow_compat, true);
  EXPECT_FALSE(f.env_force_compat.has_value());  // not a boolean: cuFile's default stands
  EXPECT_TRUE(f.nvfs_loaded);
}

TEST(CufileModeFacts, ABrokenConfigFileIsReportedNotFatal) {
  TempDir root;
  std::filesystem::create_directories(root.path() + "/etc");
  testing::write_file(root.path() + "/etc/cufile.json", "{\"properties\": ");
  const CufileModeFacts f = read_cufile_mode_facts(env_of({}), root.path());
  EXPECT_FALSE(f.config_error.empty());
  const CufileMode m = decide_cufile_mode(f);
  EXPECT_NE(m.text.find("/etc/cufile.json ignored: not valid JSON"), std::string::npos) << m.text;
}

TEST(CufileMode, ForcedCompatSaysWhoForcedIt) {
  CufileModeFacts f;
  f.nvfs_loaded = true;
  f.config_path = "/etc/cufile.json";
  f.json_force_compat = true;
  CufileMode m = decide_cufile_mode(f);
  EXPECT_TRUE(m.compat);
  EXPECT_TRUE(m.usable);
  EXPECT_NE(m.text.find("forced by properties.force_compat_mode in /etc/cufile.json"), std::string::npos)
      << m.text;
  f.env_force_compat = false;  // the environment overrides the file
  m = decide_cufile_mode(f);
  EXPECT_FALSE(m.compat) << m.text;
  f.env_force_compat = true;
  m = decide_cufile_mode(f);
  EXPECT_NE(m.text.find("forced by CUFILE_FORCE_COMPAT_MODE"), std::string::npos) << m.text;
}

TEST(CufileMode, WithoutNvidiaFsItIsCompatOrNothing) {
  CufileModeFacts f;
  CufileMode m = decide_cufile_mode(f);
  EXPECT_TRUE(m.compat);
  EXPECT_TRUE(m.usable);
  EXPECT_NE(m.text.find("nvidia-fs is not loaded"), std::string::npos) << m.text;
  EXPECT_NE(m.text.find("allow_compat_mode true (cuFile's default)"), std::string::npos) << m.text;
  f.env_allow_compat = false;
  m = decide_cufile_mode(f);
  EXPECT_FALSE(m.usable);
  EXPECT_NE(m.text.find("allow_compat_mode false (CUFILE_ALLOW_COMPAT_MODE)"), std::string::npos) << m.text;
}

TEST(CufileMode, GpuDirectPathNamesItsDriverAndTheFallback) {
  CufileModeFacts f;
  f.nvfs_loaded = true;
  f.json_allow_compat = false;
  f.config_path = "/etc/cufile.json";
  CufileMode m = decide_cufile_mode(f);
  EXPECT_FALSE(m.compat);
  EXPECT_TRUE(m.usable);
  EXPECT_EQ(m.text.rfind("GPUDirect Storage (nvidia-fs)", 0), 0u) << m.text;
  EXPECT_NE(m.text.find("fails the I/O: allow_compat_mode false (/etc/cufile.json)"), std::string::npos)
      << m.text;
  // Once the driver is open its properties are the authority.
  f.props_allow_compat = true;
  f.nvfs_major = 2;
  f.nvfs_minor = 17;
  m = decide_cufile_mode(f);
  EXPECT_EQ(m.text.rfind("GPUDirect Storage (nvidia-fs 2.17)", 0), 0u) << m.text;
  EXPECT_NE(m.text.find("falls back to compat mode"), std::string::npos) << m.text;
  EXPECT_NE(m.text.find("(the driver's properties)"), std::string::npos) << m.text;
  // The open driver's nvidia-fs version is proof of the module, even where /proc was not read.
  f.nvfs_loaded = false;
  m = decide_cufile_mode(f);
  EXPECT_FALSE(m.compat) << m.text;
  // PCI P2PDMA is a GPUDirect path without nvidia-fs.
  CufileModeFacts p;
  p.json_pci_p2pdma = true;
  m = decide_cufile_mode(p);
  EXPECT_FALSE(m.compat);
  EXPECT_EQ(m.text.rfind("GPUDirect Storage (PCI P2PDMA)", 0), 0u) << m.text;
}

TEST(CufileDevice, LocalRankPicksTheDevice) {
  EXPECT_EQ(pick_cufile_device(8, env_of({})), 0);
  EXPECT_EQ(pick_cufile_device(4, env_of({{"LOCAL_RANK", "5"}})), 1);
  EXPECT_EQ(pick_cufile_device(8, env_of({{"OMPI_COMM_WORLD_LOCAL_RANK", "3"}})), 3);
  EXPECT_EQ(pick_cufile_device(8, env_of({{"SLURM_LOCALID", "6"}, {"MPI_LOCALRANKID", "2"}})), 2);
  EXPECT_EQ(pick_cufile_device(8, env_of({{"LOCAL_RANK", "x1"}, {"SLURM_LOCALID", "7"}})), 7);
  EXPECT_EQ(pick_cufile_device(8, env_of({{"LOCAL_RANK", "-2"}})), 0);
  EXPECT_EQ(pick_cufile_device(0, env_of({{"LOCAL_RANK", "3"}})), 0);
}

// A suite asking for cufile on a machine that cannot run it fails its phase with the
// engine table's reason, as for any unusable engine.
TEST(CufileSuite, RunGivesThePreciseReason) {
  const std::string want = expected_reason();
  if (want.empty()) GTEST_SKIP() << "cuFile and a CUDA device are present";
  TempDir dir("/var/tmp");
  const std::string suite = dir.path() + "/cufile-suite.json";
  testing::write_file(suite, R"({"defaults": {"engine": "cufile", "direct": true},
    "phases": [{"kind": "ingest", "name": "ingest", "file_size": "1MiB", "block_size": "1MiB"}]})");
  const std::string report = dir.path() + "/report.json";
  testing::CommandResult r =
      testing::run_iofab({"run", suite, "--target", dir.path() + "/data", "--out", report, "--quiet"});
  EXPECT_EQ(r.exit_code, 3) << r.out << r.err;
  const nlohmann::json j = nlohmann::json::parse(testing::read_file(report));
  ASSERT_EQ(j["phases"].size(), 1u);
  EXPECT_EQ(j["phases"][0]["status"], "error");
  EXPECT_NE(j["phases"][0]["reason"].get<std::string>().find("engine cufile unavailable: " + want),
            std::string::npos)
      << j["phases"][0]["reason"];
}

// `iofab list --json` carries the same row, and says what discovery found around it.
TEST(CufileList, JsonListShowsTheRowAndTheDevicesAroundIt) {
  testing::CommandResult r = testing::run_iofab({"list", "--json", "--target", "/dev/shm"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  const std::string want = expected_reason();
  bool found = false;
  for (const auto& e : j["engines"]) {
    if (e["name"] != "cufile") continue;
    found = true;
    EXPECT_EQ(e["usable"].get<bool>(), want.empty()) << e;
    EXPECT_EQ(e["reason"], want);
  }
  EXPECT_TRUE(found) << r.out;
  for (const char* key : {"cuda", "rdma", "topology", "target", "mpi", "tool"}) {
    EXPECT_TRUE(j.contains(key)) << key;
  }
  EXPECT_EQ(j["target"]["fs_type"], "tmpfs");
  const bool gpus = !j["cuda"]["devices"].empty();
  const bool nics = !j["rdma"]["devices"].empty();
  if (!gpus || !nics) {
    EXPECT_TRUE(j["topology"]["pairs"].empty());
    const std::string status = j["topology"]["status"];
    EXPECT_EQ(status.find("no CUDA device") != std::string::npos, !gpus) << status;
    EXPECT_EQ(status.find("no RDMA device") != std::string::npos, !nics) << status;
  } else {
    EXPECT_EQ(j["topology"]["pairs"].size(), j["cuda"]["devices"].size() * j["rdma"]["devices"].size());
  }
}

}  // namespace
}  // namespace iofab
