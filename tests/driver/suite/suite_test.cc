#include "driver/suite/suite.h"

#include <cmath>
#include <limits>
#include <regex>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "test_util.h"

namespace iofab {
namespace {

using iofab::testing::contains;

using nlohmann::json;

// A valid suite with both comment styles, two phases, defaults and checks.
constexpr const char* kGoodSuite = R"(
// A suite explains itself with comments.
{
  "name": "unit", /* block comment */
  "description": "two small ingest phases",
  "target": "/tmp/iofab-target",
  "defaults": {
    "workers": 2,      // every phase
    "direct": false
  },
  "phases": [
    {
      "kind": "ingest",
      "name": "ingest",
      "file_size": "4MiB",
      "block_size": "1MiB",
      "checks": [
        {"metric": "write_bytes_per_s", "op": ">=", "value": "2GB/s"},
        {"metric": "latency_p99_s", "value": "2s"},
        {"metric": "write_bytes", "value": "1GiB", "name": "wrote enough"}
      ]
    },
    {"kind": "ingest", "name": "ingest-2", "workers": 4}
  ]
}
)";

struct Parsed {
  Status status;
  Suite suite;
};

Parsed parse(const std::string& text, const std::vector<std::string>& sets = {}) {
  Parsed p;
  p.status = parse_suite(text, "test.json", sets, &p.suite);
  return p;
}

// A one-phase suite around phase (a JSON object's members) plus extra top-level members.
std::string one_phase(const std::string& phase_members, const std::string& top = "") {
  return "{" + top + (top.empty() ? "" : ",") + R"("phases": [{"kind": "ingest")" +
         (phase_members.empty() ? "" : ", " + phase_members) + "}]}";
}

// Asserts an Invalid status whose message contains every needle.
void expect_invalid(const Parsed& p, const std::vector<std::string>& needles) {
  ASSERT_FALSE(p.status.ok()) << "expected an error containing " << needles.front();
  EXPECT_EQ(p.status.code(), Status::Code::kInvalidArgument);
  for (const auto& n : needles) {
    EXPECT_TRUE(contains(p.status.message(), n)) << "missing: " << n << "\nin: " << p.status.message();
  }
}

// ---- a valid suite --------------------------------------------------------

TEST(SuiteParse, ValidSuiteWithCommentsParses) {
  Parsed p = parse(kGoodSuite);
  ASSERT_TRUE(p.status.ok()) << p.status.message();
  const Suite& s = p.suite;
  EXPECT_EQ(s.name, "unit");
  EXPECT_EQ(s.description, "two small ingest phases");
  ASSERT_TRUE(s.target.has_value());
  EXPECT_EQ(*s.target, "/tmp/iofab-target");
  EXPECT_EQ(s.source, "test.json");
  ASSERT_EQ(s.phases.size(), 2u);

  const PhaseSpec& a = s.phases[0];
  EXPECT_EQ(a.name, "ingest");
  ASSERT_NE(a.kind, nullptr);
  EXPECT_EQ(a.kind->name, "ingest");
  EXPECT_NE(a.phase, nullptr);
  EXPECT_EQ(a.params["workers"], json(2));  // from defaults
  EXPECT_EQ(a.params["direct"], json(false));
  EXPECT_EQ(a.params["block_size"].get<uint64_t>(), 1048576u);
  EXPECT_EQ(a.params["file_size"].get<uint64_t>(), 4u << 20);
  EXPECT_EQ(a.params["engine"], json("auto"));  // the kind's own default
  EXPECT_DOUBLE_EQ(a.params["series_interval"].get<double>(), 0.1);
  // Resolved params hold every parameter of the kind, and no suite-owned keys.
  for (const char* k : {"engine", "direct", "workers", "files_per_worker", "file_size", "block_size",
                        "queue_depth", "fsync", "seed", "series_interval"}) {
    EXPECT_TRUE(a.params.contains(k)) << k;
  }
  EXPECT_FALSE(a.params.contains("kind"));
  EXPECT_FALSE(a.params.contains("checks"));

  ASSERT_EQ(a.checks.size(), 3u);
  EXPECT_EQ(a.checks[0].metric, "write_bytes_per_s");
  EXPECT_EQ(a.checks[0].op, CheckOp::kGe);
  EXPECT_DOUBLE_EQ(a.checks[0].threshold, 2e9);
  EXPECT_EQ(a.checks[0].threshold_text, "2GB/s");
  EXPECT_EQ(a.checks[0].name, "write_bytes_per_s >= 2GB/s");
  EXPECT_EQ(a.checks[1].op, CheckOp::kLe);
  EXPECT_DOUBLE_EQ(a.checks[1].threshold, 2);
  EXPECT_EQ(a.checks[1].name, "latency_p99_s <= 2s");
  EXPECT_EQ(a.checks[2].name, "wrote enough");
  EXPECT_DOUBLE_EQ(a.checks[2].threshold, 1073741824.0);

  const PhaseSpec& b = s.phases[1];
  EXPECT_EQ(b.name, "ingest-2");
  EXPECT_EQ(b.params["workers"], json(4));  // the phase wins over defaults
  EXPECT_EQ(b.params["file_size"].get<uint64_t>(), 64u << 20);
  EXPECT_TRUE(b.checks.empty());

  EXPECT_TRUE(s.document.is_object());
  EXPECT_EQ(s.document["phases"].size(), 2u);
}

TEST(SuiteParse, PhaseNameDefaultsToItsKind) {
  Parsed p = parse(one_phase(""));
  ASSERT_TRUE(p.status.ok()) << p.status.message();
  ASSERT_EQ(p.suite.phases.size(), 1u);
  EXPECT_EQ(p.suite.phases[0].name, "ingest");
  EXPECT_FALSE(p.suite.target.has_value());
}

TEST(SuiteParse, Sha256IsOfTheTextAndChangesWithIt) {
  Parsed a = parse(kGoodSuite);
  Parsed b = parse(std::string(kGoodSuite) + "\n// one more comment\n");
  ASSERT_TRUE(a.status.ok());
  ASSERT_TRUE(b.status.ok());
  EXPECT_TRUE(std::regex_match(a.suite.sha256, std::regex("^[0-9a-f]{64}$"))) << a.suite.sha256;
  EXPECT_EQ(a.suite.sha256, sha256_hex(kGoodSuite));
  EXPECT_NE(a.suite.sha256, b.suite.sha256);
}

TEST(SuiteSha256, KnownVectors) {
  EXPECT_EQ(sha256_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

// ---- document-level errors --------------------------------------------------

TEST(SuiteErrors, NotJsonNamesTheSource) {
  expect_invalid(parse("{\"phases\": [}"), {"test.json", "not valid JSON"});
}

TEST(SuiteErrors, NotAnObject) {
  expect_invalid(parse("[1, 2]"), {"test.json", "expected a JSON object"});
}

TEST(SuiteErrors, UnknownTopLevelKey) {
  expect_invalid(parse(one_phase("", R"("bogus": 1)")), {"bogus: unknown key", "phases"});
}

TEST(SuiteErrors, TopLevelValuesOfTheWrongType) {
  expect_invalid(parse(one_phase("", R"("name": 5)")), {"name: expected a string, got 5"});
  expect_invalid(parse(one_phase("", R"("description": [])")), {"description: expected a string"});
  expect_invalid(parse(one_phase("", R"("target": "")")), {"target: expected a folder path or s3://bucket/prefix, got \"\""});
  expect_invalid(parse(one_phase("", R"("target": 3)")), {"target: expected a folder path or s3://bucket/prefix, got 3"});
  expect_invalid(parse(one_phase("", R"("defaults": [1])")), {"defaults: expected an object"});
}

TEST(SuiteErrors, PhasesMissingEmptyOrNotAnArray) {
  expect_invalid(parse(R"({"name": "x"})"), {"phases: expected a non-empty array"});
  expect_invalid(parse(R"({"phases": []})"), {"phases: expected a non-empty array"});
  expect_invalid(parse(R"({"phases": {"kind": "ingest"}})"), {"phases: expected a non-empty array"});
  expect_invalid(parse(R"({"phases": "ingest"})"), {"phases: expected a non-empty array"});
}

TEST(SuiteErrors, PhaseNotAnObject) {
  expect_invalid(parse(R"({"phases": [{"kind": "ingest"}, 3]})"), {"phases[1]: expected an object", "got 3"});
}

TEST(SuiteErrors, MissingOrUnknownKindListsTheKinds) {
  expect_invalid(parse(R"({"phases": [{"name": "a"}]})"), {"phases[0].kind: expected one of: ingest"});
  expect_invalid(parse(R"({"phases": [{"kind": 7}]})"), {"phases[0].kind: expected one of: ingest"});
  expect_invalid(parse(R"({"phases": [{"kind": "ingset"}]})"),
                 {"phases[0].kind: unknown phase kind \"ingset\"", "expected one of: ingest"});
}

TEST(SuiteErrors, DuplicatePhaseNames) {
  expect_invalid(parse(R"({"phases": [{"kind": "ingest"}, {"kind": "ingest"}]})"),
                 {"phases[1].name: \"ingest\" is used by an earlier phase"});
  expect_invalid(parse(R"({"phases": [{"kind": "ingest", "name": "a"}, {"kind": "ingest", "name": "b"},
                                      {"kind": "ingest", "name": "a"}]})"),
                 {"phases[2].name: \"a\""});
}

TEST(SuiteErrors, BadNameCharacters) {
  for (const char* name : {R"("my phase")", R"("a.b")", R"("")", R"("x/y")", "5", R"("caf\u00e9")"}) {
    SCOPED_TRACE(name);
    expect_invalid(parse(one_phase(std::string(R"("name": )") + name)),
                   {"phases[0].name: expected a name of letters, digits, '_' and '-'"});
  }
  Parsed ok = parse(one_phase(R"("name": "Ingest_2-b")"));
  ASSERT_TRUE(ok.status.ok()) << ok.status.message();
  EXPECT_EQ(ok.suite.phases[0].name, "Ingest_2-b");
}

TEST(SuiteErrors, UnknownPhaseParam) {
  expect_invalid(parse(one_phase(R"("blok_size": "4MiB")")),
                 {"phases[0].blok_size: unknown parameter", "block_size"});
}

TEST(SuiteErrors, BadUnitNamesThePhasePath) {
  expect_invalid(parse(R"({"phases": [{"kind": "ingest", "name": "a"},
                                      {"kind": "ingest", "name": "b", "block_size": "1 MB/s"}]})"),
                 {"phases[1].block_size: expected a size like \"1MiB\" or \"4KiB\", got \"1 MB/s\""});
}

TEST(SuiteErrors, PhaseLevelRelationErrors) {
  expect_invalid(parse(one_phase(R"("direct": true, "block_size": "1000B")")),
                 {"phases[0].block_size: must be a multiple of 4KiB"});
  // direct from defaults, the bad block size in the phase.
  expect_invalid(parse(one_phase(R"("block_size": "6000B")", R"("defaults": {"direct": true})")),
                 {"phases[0].block_size: must be a multiple of 4KiB"});
}

TEST(SuiteErrors, BadDefaultValueNamesTheDefaultsPath) {
  expect_invalid(parse(one_phase("", R"("defaults": {"workers": 0})")),
                 {"defaults.workers: expected an integer in [1, 1024], got 0"});
  expect_invalid(parse(one_phase("", R"("defaults": {"block_size": "1 MB/s"})")),
                 {"defaults.block_size: expected a size like"});
}

TEST(SuiteErrors, DefaultsKeyUnknownToEveryKind) {
  expect_invalid(parse(one_phase("", R"("defaults": {"bogus": 1})")),
                 {"defaults.bogus: not a parameter of any phase kind"});
}

TEST(SuiteErrors, ErrorsAccumulateAcrossPhases) {
  Parsed p = parse(R"({"bogus": 1, "phases": [{"kind": "ingest", "block_size": "1 MB/s"},
                                                {"kind": "nope"},
                                                {"kind": "ingest", "name": "c", "workers": 0}]})");
  expect_invalid(p, {"bogus: unknown key", "phases[0].block_size", "phases[1].kind", "phases[2].workers"});
}

// A phase with a bad parameter and a bad check: both are reported, so a user
// sees every mistake at once (params.h's promise).
TEST(SuiteErrors, ParamAndCheckErrorsInOnePhaseAreBothReported) {
  expect_invalid(parse(one_phase(R"("block_size": "1 MB/s", "checks": [{"metric": "nope", "value": 1}])")),
                 {"phases[0].block_size", "phases[0].checks[0].metric"});
}

// ---- checks ------------------------------------------------------------------

TEST(SuiteChecks, NotAnArrayOrNotAnObject) {
  expect_invalid(parse(one_phase(R"("checks": {"metric": "write_bytes"})")),
                 {"phases[0].checks: expected an array"});
  expect_invalid(parse(one_phase(R"("checks": [3])")), {"phases[0].checks[0]: expected an object"});
}

TEST(SuiteChecks, UnknownMetricListsTheValidOnes) {
  expect_invalid(parse(one_phase(R"("checks": [{"metric": "write_bandwidth", "value": "1GB/s"}])")),
                 {"phases[0].checks[0].metric: unknown metric \"write_bandwidth\"", "ingest",
                  "write_bytes_per_s", "latency_p99_s", "fsync_seconds"});
}

TEST(SuiteChecks, MissingMetric) {
  expect_invalid(parse(one_phase(R"("checks": [{"op": ">=", "value": 1}])")), {"phases[0].checks[0].metric"});
}

TEST(SuiteChecks, UnknownCheckKey) {
  expect_invalid(parse(one_phase(R"("checks": [{"metric": "write_bytes", "value": 1, "threshold": 2}])")),
                 {"phases[0].checks[0].threshold: unknown key"});
}

TEST(SuiteChecks, BadOp) {
  expect_invalid(parse(one_phase(R"("checks": [{"metric": "write_bytes", "op": "=>", "value": 1}])")),
                 {"phases[0].checks[0].op: expected one of", "got \"=>\""});
  expect_invalid(parse(one_phase(R"("checks": [{"metric": "write_bytes", "op": 1, "value": 1}])")),
                 {"phases[0].checks[0].op"});
}

TEST(SuiteChecks, MissingOrBadValueSaysTheMetricsUnit) {
  expect_invalid(parse(one_phase(R"("checks": [{"metric": "write_bytes_per_s", "op": ">="}])")),
                 {"phases[0].checks[0].value: expected a rate like \"2GB/s\""});
  expect_invalid(parse(one_phase(R"("checks": [{"metric": "write_bytes_per_s", "value": "fast"}])")),
                 {"phases[0].checks[0].value: expected a rate like \"2GB/s\", got \"fast\""});
  // A size is not a rate.
  expect_invalid(parse(one_phase(R"("checks": [{"metric": "write_bytes_per_s", "value": "2GB"}])")),
                 {"phases[0].checks[0].value"});
  expect_invalid(parse(one_phase(R"("checks": [{"metric": "latency_p99_s", "value": "2GB/s"}])")),
                 {"phases[0].checks[0].value: expected a duration"});
  expect_invalid(parse(one_phase(R"("checks": [{"metric": "write_bytes", "value": true}])")),
                 {"phases[0].checks[0].value: expected a size"});
}

TEST(SuiteChecks, ThresholdIsParsedInTheMetricsUnit) {
  Parsed p = parse(one_phase(R"("checks": [
      {"metric": "write_bytes_per_s", "value": "2GB/s"},
      {"metric": "latency_p99_s", "value": "2s"},
      {"metric": "latency_p50_s", "value": "500us"},
      {"metric": "write_bytes", "value": "1GiB"},
      {"metric": "ios", "value": "1e6"},
      {"metric": "write_seconds", "value": 30}])"));
  ASSERT_TRUE(p.status.ok()) << p.status.message();
  const auto& c = p.suite.phases[0].checks;
  ASSERT_EQ(c.size(), 6u);
  EXPECT_DOUBLE_EQ(c[0].threshold, 2e9);
  EXPECT_DOUBLE_EQ(c[1].threshold, 2);
  EXPECT_DOUBLE_EQ(c[2].threshold, 500e-6);
  EXPECT_DOUBLE_EQ(c[3].threshold, 1073741824.0);
  EXPECT_DOUBLE_EQ(c[4].threshold, 1e6);
  EXPECT_DOUBLE_EQ(c[5].threshold, 30);
  EXPECT_EQ(c[5].threshold_text, "30");
  EXPECT_EQ(c[5].name, "write_seconds <= 30");
}

TEST(SuiteChecks, OpDefaultsByMetricDirectionAndExplicitOpsParse) {
  Parsed p = parse(one_phase(R"("checks": [
      {"metric": "write_bytes_per_s", "value": 1},
      {"metric": "latency_max_s", "value": 1},
      {"metric": "write_bytes", "value": 1},
      {"metric": "ios", "op": ">", "value": 1},
      {"metric": "ios", "op": "<", "value": 1},
      {"metric": "ios", "op": "==", "value": 1},
      {"metric": "latency_max_s", "op": ">=", "value": 1}])"));
  ASSERT_TRUE(p.status.ok()) << p.status.message();
  const auto& c = p.suite.phases[0].checks;
  ASSERT_EQ(c.size(), 7u);
  EXPECT_EQ(c[0].op, CheckOp::kGe);  // higher is better
  EXPECT_EQ(c[1].op, CheckOp::kLe);  // lower is better
  EXPECT_EQ(c[2].op, CheckOp::kGe);  // neither: >=
  EXPECT_EQ(c[3].op, CheckOp::kGt);
  EXPECT_EQ(c[4].op, CheckOp::kLt);
  EXPECT_EQ(c[5].op, CheckOp::kEq);
  EXPECT_EQ(c[6].op, CheckOp::kGe);  // explicit op wins over the direction
}

TEST(SuiteChecks, CheckPassesForEachOp) {
  EXPECT_TRUE(check_passes(CheckOp::kGe, 2, 2));
  EXPECT_TRUE(check_passes(CheckOp::kGe, 3, 2));
  EXPECT_FALSE(check_passes(CheckOp::kGe, 1, 2));
  EXPECT_TRUE(check_passes(CheckOp::kLe, 2, 2));
  EXPECT_TRUE(check_passes(CheckOp::kLe, 1, 2));
  EXPECT_FALSE(check_passes(CheckOp::kLe, 3, 2));
  EXPECT_FALSE(check_passes(CheckOp::kGt, 2, 2));
  EXPECT_TRUE(check_passes(CheckOp::kGt, 3, 2));
  EXPECT_FALSE(check_passes(CheckOp::kLt, 2, 2));
  EXPECT_TRUE(check_passes(CheckOp::kLt, 1, 2));
  EXPECT_TRUE(check_passes(CheckOp::kEq, 2, 2));
  EXPECT_FALSE(check_passes(CheckOp::kEq, 2.0000001, 2));
}

TEST(SuiteChecks, NaNNeverPasses) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (CheckOp op : {CheckOp::kGe, CheckOp::kLe, CheckOp::kGt, CheckOp::kLt, CheckOp::kEq}) {
    SCOPED_TRACE(check_op_text(op));
    EXPECT_FALSE(check_passes(op, nan, 1));
    EXPECT_FALSE(check_passes(op, nan, nan));
  }
}

TEST(SuiteChecks, OpText) {
  EXPECT_STREQ(check_op_text(CheckOp::kGe), ">=");
  EXPECT_STREQ(check_op_text(CheckOp::kLe), "<=");
  EXPECT_STREQ(check_op_text(CheckOp::kGt), ">");
  EXPECT_STREQ(check_op_text(CheckOp::kLt), "<");
  EXPECT_STREQ(check_op_text(CheckOp::kEq), "==");
}

// ---- --set -----------------------------------------------------------------------

TEST(SuiteSet, OverridesAPhaseParam) {
  Parsed p = parse(kGoodSuite, {"phases.ingest.block_size=4MiB"});
  ASSERT_TRUE(p.status.ok()) << p.status.message();
  EXPECT_EQ(p.suite.phases[0].params["block_size"].get<uint64_t>(), 4u << 20);
  EXPECT_EQ(p.suite.phases[1].params["block_size"].get<uint64_t>(), 1u << 20);  // only the named phase
  EXPECT_EQ(p.suite.document["phases"][0]["block_size"], json("4MiB"));
  // The sha256 is of the file as read, not as overridden.
  EXPECT_EQ(p.suite.sha256, sha256_hex(kGoodSuite));
}

TEST(SuiteSet, SetsANewPhaseParamAndNumbersParseAsJson) {
  Parsed p = parse(kGoodSuite, {"phases.ingest-2.queue_depth=8", "phases.ingest.direct=true"});
  ASSERT_TRUE(p.status.ok()) << p.status.message();
  EXPECT_EQ(p.suite.phases[1].params["queue_depth"], json(8));
  EXPECT_EQ(p.suite.phases[0].params["direct"], json(true));
}

TEST(SuiteSet, PhaseNamedByItsKindWhenUnnamed) {
  Parsed p = parse(one_phase(""), {"phases.ingest.workers=5"});
  ASSERT_TRUE(p.status.ok()) << p.status.message();
  EXPECT_EQ(p.suite.phases[0].params["workers"], json(5));
}

TEST(SuiteSet, DefaultsOverrideAppliesWhereThePhaseHasNone) {
  Parsed p = parse(kGoodSuite, {"defaults.workers=3"});
  ASSERT_TRUE(p.status.ok()) << p.status.message();
  EXPECT_EQ(p.suite.phases[0].params["workers"], json(3));
  EXPECT_EQ(p.suite.phases[1].params["workers"], json(4));  // the phase's own value wins
  // A suite without defaults gets them.
  Parsed q = parse(one_phase(""), {"defaults.workers=3"});
  ASSERT_TRUE(q.status.ok()) << q.status.message();
  EXPECT_EQ(q.suite.phases[0].params["workers"], json(3));
}

TEST(SuiteSet, Target) {
  Parsed p = parse(kGoodSuite, {"target=/x"});
  ASSERT_TRUE(p.status.ok()) << p.status.message();
  ASSERT_TRUE(p.suite.target.has_value());
  EXPECT_EQ(*p.suite.target, "/x");
}

TEST(SuiteSet, LaterSetsWin) {
  Parsed p = parse(kGoodSuite, {"phases.ingest.block_size=4MiB", "phases.ingest.block_size=8MiB"});
  ASSERT_TRUE(p.status.ok()) << p.status.message();
  EXPECT_EQ(p.suite.phases[0].params["block_size"].get<uint64_t>(), 8u << 20);
}

TEST(SuiteSet, QuotedJsonStringValue) {
  Parsed p = parse(kGoodSuite, {R"(phases.ingest.engine="null")"});
  ASSERT_TRUE(p.status.ok()) << p.status.message();
  EXPECT_EQ(p.suite.phases[0].params["engine"], json("null"));
}

TEST(SuiteSet, BadValueGivesTheSamePathError) {
  expect_invalid(parse(kGoodSuite, {"phases.ingest-2.block_size=1 MB/s"}),
                 {"phases[1].block_size: expected a size like \"1MiB\" or \"4KiB\", got \"1 MB/s\""});
  expect_invalid(parse(kGoodSuite, {"defaults.workers=0"}),
                 {"defaults.workers: expected an integer in [1, 1024], got 0"});
  expect_invalid(parse(kGoodSuite, {"phases.ingest.blok_size=4MiB"}),
                 {"phases[0].blok_size: unknown parameter"});
  expect_invalid(parse(kGoodSuite, {"defaults.bogus=1"}),
                 {"defaults.bogus: not a parameter of any phase kind"});
  expect_invalid(parse(kGoodSuite, {"target="}), {"target: expected a folder path"});
}

TEST(SuiteSet, MissingPhaseIsNamedWithTheSuitesPhases) {
  expect_invalid(parse(kGoodSuite, {"phases.nope.x=1"}),
                 {"phases.nope.x", "no phase named \"nope\"", "ingest, ingest-2"});
}

TEST(SuiteSet, MalformedSets) {
  expect_invalid(parse(kGoodSuite, {"foo"}), {"--set foo", "expected PATH=VALUE"});
  expect_invalid(parse(kGoodSuite, {"=3"}), {"expected PATH=VALUE"});
  expect_invalid(parse(kGoodSuite, {"bogus.key=1"}), {"bogus.key", "unknown path"});
  expect_invalid(parse(kGoodSuite, {"phases.ingest=1"}), {"expected phases.NAME.KEY=VALUE"});
  expect_invalid(parse(kGoodSuite, {"phases.ingest.=1"}), {"expected phases.NAME.KEY=VALUE"});
  expect_invalid(parse(R"({"phases": 3})", {"phases.ingest.workers=1"}), {"no phases array"});
  expect_invalid(parse(R"({"defaults": 3, "phases": [{"kind": "ingest"}]})", {"defaults.workers=1"}),
                 {"defaults is not an object"});
}

// suite.h documents phases[I].KEY as a --set path.
TEST(SuiteSet, IndexedPhasePath) {
  Parsed p = parse(kGoodSuite, {"phases[1].block_size=4MiB"});
  ASSERT_TRUE(p.status.ok()) << p.status.message();
  EXPECT_EQ(p.suite.phases[1].params["block_size"].get<uint64_t>(), 4u << 20);
  EXPECT_EQ(p.suite.phases[0].params["block_size"].get<uint64_t>(), 1u << 20);
}

// Input from outside never crashes: a phase whose name (or kind) is not a
// string while a --set looks phases up by name.
TEST(SuiteSet, NonStringPhaseNameIsAnErrorNotAnException) {
  Parsed p;
  EXPECT_NO_THROW(p = parse(R"({"phases": [{"kind": "ingest", "name": 5}]})", {"phases.ingest.workers=2"}));
  EXPECT_FALSE(p.status.ok());
  EXPECT_EQ(p.status.code(), Status::Code::kInvalidArgument);
  Parsed q;
  EXPECT_NO_THROW(q = parse(R"({"phases": [{"kind": 5}]})", {"phases.ingest.workers=2"}));
  EXPECT_FALSE(q.status.ok());
  EXPECT_EQ(q.status.code(), Status::Code::kInvalidArgument);
}

// ---- load_suite ---------------------------------------------------------------

TEST(SuiteLoad, BuiltInDefault) {
  for (const char* name : {"default", "builtin:default"}) {
    SCOPED_TRACE(name);
    Suite s;
    Status st = load_suite(name, {}, &s);
    ASSERT_TRUE(st.ok()) << st.message();
    EXPECT_EQ(s.name, "default");
    EXPECT_EQ(s.source, "builtin:default");
    ASSERT_FALSE(s.phases.empty());
    EXPECT_NE(s.phases[0].phase, nullptr);
    EXPECT_EQ(s.sha256.size(), 64u);
  }
}

TEST(SuiteLoad, BuiltInWithSets) {
  Suite s;
  Status st = load_suite("default", {"phases.ingest.workers=3", "target=/x"}, &s);
  ASSERT_TRUE(st.ok()) << st.message();
  EXPECT_EQ(s.phases[0].params["workers"], json(3));
  EXPECT_EQ(s.target, std::optional<std::string>("/x"));
}

TEST(SuiteLoad, FromAFile) {
  iofab::testing::TempDir dir("/dev/shm");
  const std::string path = dir.path() + "/mine.json";
  iofab::testing::write_file(path, kGoodSuite);
  Suite s;
  Status st = load_suite(path, {}, &s);
  ASSERT_TRUE(st.ok()) << st.message();
  EXPECT_EQ(s.source, path);
  EXPECT_EQ(s.name, "unit");
  EXPECT_EQ(s.sha256, sha256_hex(kGoodSuite));
}

TEST(SuiteLoad, BadFileErrorsNameTheFile) {
  iofab::testing::TempDir dir("/dev/shm");
  const std::string path = dir.path() + "/bad.json";
  iofab::testing::write_file(path, R"({"phases": [{"kind": "ingest", "workers": 0}]})");
  Suite s;
  Status st = load_suite(path, {}, &s);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.code(), Status::Code::kInvalidArgument);
  EXPECT_TRUE(contains(st.message(), "phases[0].workers")) << st.message();
  iofab::testing::write_file(path, "{ not json");
  Suite s2;
  st = load_suite(path, {}, &s2);
  ASSERT_FALSE(st.ok());
  EXPECT_TRUE(contains(st.message(), path)) << st.message();
}

// A train_read phase that states its dataset at full size (it gives a scale) runs 1/scale of its samples,
// and `run --scale N` sets that scale; one that gives none (a preset already scaled down) is left alone.
TEST(SuiteLoad, RunScaleScalesATrainReadThatStatesItsFullSize) {
  Suite imagenet;
  ASSERT_TRUE(load_suite("imagenet-files", {"checkpoint_scale=100"}, &imagenet).ok());
  ASSERT_EQ(imagenet.phases.size(), 1u);
  EXPECT_EQ(imagenet.phases[0].params["scale"], 100);
  // 1,281,167 / 100 = 12,812 files (rounded to the nearest file) of 115,442 bytes, each taking whole
  // 4 KiB blocks on disk (29 of them, 118,784 bytes).
  EXPECT_EQ(imagenet.phases[0].phase->planned_bytes(1), std::optional<uint64_t>(12812ULL * 118784ULL));

  Suite unet3d;
  ASSERT_TRUE(load_suite("mlperf-unet3d", {"checkpoint_scale=4"}, &unet3d).ok());
  for (const auto& p : unet3d.phases) {
    if (p.kind->name == "train_read") {
      EXPECT_EQ(p.params.value("scale", 1.0), 1.0) << "no scale given, none set";
    }
  }

  Suite none;
  const Status s = parse_suite(R"({"phases": [{"kind": "ingest"}]})", "t", {"checkpoint_scale=2"}, &none);
  EXPECT_NE(s.message().find("no checkpoint phase, nor a train_read phase that gives a scale"), std::string::npos)
      << s.message();
}

// DLIO's checkpointing workloads sleep time_between_checkpoints (configs/dlio/workload/llama3_*.yaml: 5 s)
// before each checkpoint write and each read (dlio_benchmark, mlperf_storage_v2.0, main.py's checkpoint-only
// loop): the presets space theirs the same, both phases.
TEST(SuiteLoad, MlperfLlama3SuitesSpaceTheirWritesAndReadsAsDlioDoes) {
  for (const char* name :
       {"mlperf-llama3-8b", "mlperf-llama3-70b", "mlperf-llama3-405b", "mlperf-llama3-1t"}) {
    Suite s;
    ASSERT_TRUE(load_suite(name, {}, &s).ok()) << name;
    ASSERT_EQ(s.phases.size(), 2u) << name;
    EXPECT_EQ(s.phases[0].params["gap"], 5.0) << name << ": the checkpoint phase";
    EXPECT_EQ(s.phases[1].kind->name, "restore") << name;
    EXPECT_EQ(s.phases[1].params["gap"], 5.0) << name << ": the restore phase";
  }
}

TEST(SuiteLoad, MissingFileListsTheBuiltIns) {
  Suite s;
  Status st = load_suite("no/such/file", {}, &s);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.code(), Status::Code::kInvalidArgument);
  EXPECT_TRUE(contains(st.message(), "no/such/file")) << st.message();
  EXPECT_TRUE(contains(st.message(), "built-in")) << st.message();
  EXPECT_TRUE(contains(st.message(), "default")) << st.message();
}

}  // namespace
}  // namespace iofab

namespace iofab {
namespace {

// Found by fuzz/suite_fuzz: a --set value that is not UTF-8 used to throw from json::dump.
TEST(SuiteFuzzRegression, NonUtf8SetValueIsAnErrorNotACrash) {
  Suite suite;
  Status s = parse_suite(R"({"phases": [{"kind": "ingest"}]})", "t", {"phases.ingest.block_size=\xbf\xbf" "4MiB"},
                         &suite);
  EXPECT_EQ(s.code(), Status::Code::kInvalidArgument);
  EXPECT_NE(s.message().find("expected UTF-8 text"), std::string::npos) << s.message();
}

}  // namespace
}  // namespace iofab

namespace iofab {
namespace {

// Found by fuzz/suite_fuzz: a number too large for a double threw out_of_range past the parse_error handler.
TEST(SuiteFuzzRegression, HugeNumberIsAnErrorNotACrash) {
  Suite suite;
  Status s = parse_suite("66666666666666601335842666666666660133584280347126391e80347126391e", "t", {}, &suite);
  EXPECT_EQ(s.code(), Status::Code::kInvalidArgument);
  EXPECT_NE(s.message().find("not valid JSON"), std::string::npos) << s.message();
}

}  // namespace
}  // namespace iofab
