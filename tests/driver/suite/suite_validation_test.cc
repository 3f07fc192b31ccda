// Suites that could only fail at run time, after earlier phases had written: each is refused when the suite
// is loaded (so `validate` and `run` both exit 2 before writing), naming the JSON path.
#include <gtest/gtest.h>

#include <limits>
#include <string>

#include "harness/core/checked_math.h"
#include "driver/suite/phase_links.h"
#include "driver/suite/suite.h"
#include "test_util.h"

namespace iofab::testing {
namespace {

Status parse(const std::string& text, Suite* out = nullptr) {
  Suite s;
  return parse_suite(text, "test.json", {}, out != nullptr ? out : &s);
}

void expect_refused(const std::string& text, const std::string& needle) {
  Status st = parse(text);
  ASSERT_FALSE(st.ok()) << "accepted: " << text;
  EXPECT_EQ(st.code(), Status::Code::kInvalidArgument);
  EXPECT_NE(st.message().find(needle), std::string::npos) << "missing: " << needle << "\nin: " << st.message();
}

constexpr const char* kCkpt = R"({"kind": "checkpoint", "name": "ckpt", "checkpoint_size": "1MiB", "count": 1})";

TEST(CheckedMath, ProductsAndSumsPast2To64AreNullopt) {
  EXPECT_EQ(checked_product({2, 3, 7}), 42u);
  EXPECT_EQ(checked_product({1ULL << 63, 2}), std::nullopt);  // wrapped to 0 before
  EXPECT_EQ(checked_product({1ULL << 63, 2, 0}), std::nullopt);
  EXPECT_EQ(checked_product({0, 1ULL << 63}), 0u);
  EXPECT_EQ(checked_add(std::numeric_limits<uint64_t>::max(), uint64_t{1}), std::nullopt);
  EXPECT_EQ(checked_add(std::optional<uint64_t>(), std::optional<uint64_t>(1)), std::nullopt);
  EXPECT_EQ(checked_mul(uint64_t{1} << 32, uint64_t{1} << 31), uint64_t{1} << 63);
}

TEST(SuiteValidation, RestoreOfAPhaseThatDoesNotExistIsRefused) {
  expect_refused(std::string(R"({"phases": [)") + kCkpt + R"(, {"kind": "restore", "checkpoint": "ckp"}]})",
                 "phases[1].checkpoint: no phase named \"ckp\"; expected the name of a checkpoint phase that runs "
                 "before restore (earlier checkpoint phases: ckpt)");
}

TEST(SuiteValidation, RestoreOfACheckpointThatRunsLaterIsRefused) {
  expect_refused(std::string(R"({"phases": [{"kind": "restore", "checkpoint": "ckpt"}, )") + kCkpt + "]}",
                 "phases[0].checkpoint: phase \"ckpt\" runs after restore, so it has written nothing yet");
}

TEST(SuiteValidation, RestoreOfAPhaseThatIsNotACheckpointIsRefused) {
  expect_refused(std::string(R"({"phases": [)") + kCkpt +
                     R"(, {"kind": "ingest", "file_size": "1MiB"}, {"kind": "restore", "checkpoint": "ingest"}]})",
                 "phases[2].checkpoint: phase \"ingest\" is a ingest phase, not a checkpoint");
}

TEST(SuiteValidation, RestoreWithNoEarlierCheckpointAndNoFromIsRefused) {
  expect_refused(R"({"phases": [{"kind": "restore"}]})",
                 "phases[0]: nothing to restore: no checkpoint phase runs before restore");
  // The same restore after a checkpoint, or of another run's folder, is fine.
  Status st = parse(std::string(R"({"phases": [)") + kCkpt + R"(, {"kind": "restore"}]})");
  EXPECT_TRUE(st.ok()) << st.message();
  st = parse(R"({"phases": [{"kind": "restore", "from": "/nonexistent/step-1"}]})");
  EXPECT_TRUE(st.ok()) << st.message();
  st = parse(std::string(R"({"phases": [)") + kCkpt + R"(, {"kind": "restore", "checkpoint": "ckpt"}]})");
  EXPECT_TRUE(st.ok()) << st.message();
}

TEST(SuiteValidation, APhaseNameLongerThanAFileNameIsRefused) {
  const std::string longest(kMaxPhaseNameBytes, 'a');
  Suite s;
  Status st = parse(R"({"phases": [{"kind": "ingest", "name": ")" + longest + R"("}]})", &s);
  ASSERT_TRUE(st.ok()) << st.message();
  expect_refused(R"({"phases": [{"kind": "ingest", "name": ")" + longest + R"(a"}]})",
                 "phases[0].name: expected a name of letters, digits, '_' and '-', at most 255 of them");
}

TEST(SuiteValidation, ADatasetDirWhoseParentIsMissingIsRefused) {
  TempDir dir;
  expect_refused(R"({"phases": [{"kind": "train_read", "dataset_dir": ")" + dir.path() + R"(/no/such"}]})",
                 "phases[0].dataset_dir: its parent " + dir.path() + "/no does not exist");
  write_file(dir.path() + "/file", "x");
  expect_refused(R"({"phases": [{"kind": "train_read", "dataset_dir": ")" + dir.path() + R"(/file/ds"}]})",
                 "phases[0].dataset_dir: its parent " + dir.path() + "/file is not a folder");
  Status st = parse(R"({"phases": [{"kind": "train_read", "dataset_dir": ")" + dir.path() + R"(/ds"}]})");
  EXPECT_TRUE(st.ok()) << st.message();
}

TEST(SuiteValidation, SizesWhoseProductPasses2To64AreRefused) {
  // 8192PiB alone is past the 1 EiB bound; 1 EiB x 16 files wraps.
  expect_refused(R"({"phases": [{"kind": "ingest", "file_size": "8192PiB", "workers": 2}]})",
                 "phases[0].file_size: expected a size from 1 to 1152921504606846976 bytes (1.00 EiB)");
  expect_refused(R"({"phases": [{"kind": "ingest", "file_size": "1024PiB", "files_per_worker": 16}]})",
                 "phases[0].file_size: file_size x files_per_worker x workers exceeds 2^64 bytes");
  expect_refused(R"({"phases": [{"kind": "checkpoint", "checkpoint_size": "512PiB", "keep": 100}]})",
                 "phases[0].keep: (keep + 1) x the written checkpoint");
}

}  // namespace
}  // namespace iofab::testing
