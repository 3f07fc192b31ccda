#include "harness/phase/params.h"

#include <cstdint>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace iofab {
namespace {

using nlohmann::json;

bool contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

// ---- sizes ----------------------------------------------------------------

TEST(ParamsSize, ReadsUnitsAndBareIntegersFromThePhase) {
  // Parsed from text, as suites are: a positive integer is a JSON unsigned number.
  const json obj = json::parse(R"({"block_size": "4MiB", "file_size": 4096, "chunk": "2.5GB"})");
  ParamReader r(obj, "phases[0]");
  EXPECT_EQ(r.size("block_size", 1), 4194304u);
  EXPECT_EQ(r.size("file_size", 1), 4096u);
  EXPECT_EQ(r.size("chunk", 1), 2500000000u);
  EXPECT_TRUE(r.errors().empty());
  EXPECT_TRUE(r.finish().ok());
}

TEST(ParamsSize, AbsentKeyGivesTheDefaultAndRecordsIt) {
  const json obj = json::object();
  ParamReader r(obj, "phases[0]");
  EXPECT_EQ(r.size("block_size", 1ULL << 20), 1ULL << 20);
  EXPECT_TRUE(r.errors().empty());
  ASSERT_TRUE(r.resolved().contains("block_size"));
  EXPECT_EQ(r.resolved()["block_size"].get<uint64_t>(), 1ULL << 20);
  EXPECT_EQ(r.known_keys().count("block_size"), 1u);
}

TEST(ParamsSize, FallsBackToDefaultsAndThePhaseWins) {
  const json defaults = {{"block_size", "2KiB"}, {"file_size", "1MiB"}};
  const json obj = {{"file_size", "8MiB"}};
  ParamReader r(obj, "phases[0]", &defaults);
  EXPECT_EQ(r.size("block_size", 1), 2048u);
  EXPECT_EQ(r.size("file_size", 1), 8u << 20);
  EXPECT_EQ(r.size("other", 7), 7u);
  EXPECT_TRUE(r.errors().empty());
}

TEST(ParamsSize, NullDefaultsPointerAndNonObjectDefaultsAreIgnored) {
  const json obj = json::object();
  const json not_object = json::array({1, 2});
  ParamReader a(obj, "phases[0]", nullptr);
  EXPECT_EQ(a.size("block_size", 99), 99u);
  ParamReader b(obj, "phases[0]", &not_object);
  EXPECT_EQ(b.size("block_size", 98), 98u);
  EXPECT_TRUE(a.errors().empty());
  EXPECT_TRUE(b.errors().empty());
}

TEST(ParamsSize, BadUnitNamesThePathAndTheExpectedForm) {
  const json obj = {{"block_size", "1 MB/s"}};
  ParamReader r(obj, "phases[1]");
  EXPECT_EQ(r.size("block_size", 4096), 4096u);  // the default after a bad value
  ASSERT_EQ(r.errors().size(), 1u);
  EXPECT_EQ(r.errors()[0], "phases[1].block_size: expected a size like \"1MiB\" or \"4KiB\", got \"1 MB/s\"");
  EXPECT_EQ(r.resolved()["block_size"].get<uint64_t>(), 4096u);
}

TEST(ParamsSize, RejectsNegativeFractionalAndNonStringValues) {
  const json obj = {{"a", -5}, {"b", "0.3B"}, {"c", true}, {"d", json::array()}, {"e", "-1KiB"}};
  ParamReader r(obj, "phases[0]");
  EXPECT_EQ(r.size("a", 1), 1u);
  EXPECT_EQ(r.size("b", 2), 2u);
  EXPECT_EQ(r.size("c", 3), 3u);
  EXPECT_EQ(r.size("d", 4), 4u);
  EXPECT_EQ(r.size("e", 5), 5u);
  ASSERT_EQ(r.errors().size(), 5u);
  EXPECT_EQ(r.errors()[0], "phases[0].a: expected a size like \"1MiB\" or \"4KiB\", got -5");
  EXPECT_TRUE(contains(r.errors()[2], "phases[0].c: expected a size"));
  EXPECT_TRUE(contains(r.errors()[2], "got true"));
}

// A JSON number that is a whole number of bytes but written in exponent form
// ("file_size": 1e9, or --set ...file_size=1e9) is parsed by nlohmann as a
// float; the same text as a string ("1e9") is accepted by units::parse_size.
TEST(ParamsSize, AcceptsAWholeNumberWrittenAsAJsonFloat) {
  const json obj = json::parse(R"({"file_size": 1e9, "half": 1.5})");
  ParamReader r(obj, "phases[0]");
  EXPECT_EQ(r.size("file_size", 1), 1000000000u);
  EXPECT_EQ(r.size("half", 2), 2u);  // 1.5 bytes is not a size
  ASSERT_EQ(r.errors().size(), 1u) << (r.errors().empty() ? "" : r.errors()[0]);
  EXPECT_TRUE(contains(r.errors()[0], "phases[0].half"));
}

// A non-negative integer is a size whether nlohmann stores it as unsigned
// (parsed from text) or signed (built in code, e.g. json(4096) or a value
// copied from another document).
TEST(ParamsSize, AcceptsNonNegativeSignedJsonIntegers) {
  json obj = json::object();
  obj["file_size"] = int64_t{4096};
  obj["zero"] = 0;
  ASSERT_TRUE(obj["file_size"].is_number_integer());
  ASSERT_FALSE(obj["file_size"].is_number_unsigned());
  ParamReader r(obj, "phases[0]");
  EXPECT_EQ(r.size("file_size", 1), 4096u);
  EXPECT_EQ(r.size("zero", 1), 0u);
  EXPECT_TRUE(r.errors().empty()) << (r.errors().empty() ? "" : r.errors()[0]);
}

TEST(ParamsSize, OutOfRangeMessagesGiveTheRange) {
  const json obj = json::parse(R"({"block_size": "100B", "big": "1GiB", "file_size": 0})");
  ParamReader r(obj, "phases[0]");
  EXPECT_EQ(r.size("block_size", 1ULL << 20, 512, 256ULL << 20), 1ULL << 20);
  EXPECT_EQ(r.size("big", 4096, 512, 256ULL << 20), 4096u);
  EXPECT_EQ(r.size("file_size", 64, 1), 64u);
  ASSERT_EQ(r.errors().size(), 3u);
  EXPECT_EQ(r.errors()[0],
            "phases[0].block_size: expected a size from 512 to 268435456 bytes (256 MiB), got \"100B\"");
  EXPECT_EQ(r.errors()[1], "phases[0].big: expected a size from 512 to 268435456 bytes (256 MiB), got \"1GiB\"");
  EXPECT_EQ(r.errors()[2],
            "phases[0].file_size: expected a size from 1 to 1152921504606846976 bytes (1.00 EiB), got 0");
}

// 8192PiB x 2 workers wrapped to 0 and passed the preflight: no size param takes more than 1 EiB.
TEST(ParamsSize, NoSizeTakesMoreThanOneEiBEvenWhenTheCallerAllowsIt) {
  const json obj = json::parse(R"({"file_size": "8192PiB", "edge": "1024PiB", "ask": "2048PiB"})");
  ParamReader r(obj, "phases[0]");
  EXPECT_EQ(r.size("file_size", 64, 1), 64u);
  EXPECT_EQ(r.size("edge", 64, 1), kMaxSizeBytes);
  EXPECT_EQ(r.size("ask", 64, 1, std::numeric_limits<uint64_t>::max()), 64u);
  ASSERT_EQ(r.errors().size(), 2u);
  EXPECT_EQ(r.errors()[0], "phases[0].file_size: expected a size from 1 to 1152921504606846976 bytes (1.00 EiB), "
                           "got \"8192PiB\"");
  EXPECT_NE(r.errors()[1].find("phases[0].ask: expected a size from 1 to 1152921504606846976 bytes"),
            std::string::npos);
}

TEST(ParamsSize, RangeBoundsAreInclusive) {
  const json obj = json::parse(R"({"lo": 512, "hi": "256MiB"})");
  ParamReader r(obj, "phases[0]");
  EXPECT_EQ(r.size("lo", 1, 512, 256ULL << 20), 512u);
  EXPECT_EQ(r.size("hi", 1, 512, 256ULL << 20), 256ULL << 20);
  EXPECT_TRUE(r.errors().empty());
}

// ---- errors from defaults ------------------------------------------------

TEST(ParamsDefaults, BadValueFromDefaultsNamesTheDefaultsPath) {
  const json defaults = {{"workers", "many"}, {"block_size", "1 MB/s"}};
  const json obj = json::object();
  ParamReader r(obj, "phases[3]", &defaults);
  EXPECT_EQ(r.integer("workers", 1, 1, 1024), 1);
  EXPECT_EQ(r.size("block_size", 4096), 4096u);
  ASSERT_EQ(r.errors().size(), 2u);
  EXPECT_EQ(r.errors()[0], "defaults.workers: expected an integer in [1, 1024], got \"many\"");
  EXPECT_EQ(r.errors()[1], "defaults.block_size: expected a size like \"1MiB\" or \"4KiB\", got \"1 MB/s\"");
}

TEST(ParamsDefaults, BadValueInThePhaseNamesThePhaseEvenWhenDefaultsHaveTheKey) {
  const json defaults = {{"workers", 2}};
  const json obj = {{"workers", 0}};
  ParamReader r(obj, "phases[2]", &defaults);
  EXPECT_EQ(r.integer("workers", 1, 1, 1024), 1);
  ASSERT_EQ(r.errors().size(), 1u);
  EXPECT_EQ(r.errors()[0], "phases[2].workers: expected an integer in [1, 1024], got 0");
}

TEST(ParamsDefaults, PathOfFollowsWhereTheValueCameFrom) {
  const json defaults = {{"workers", 2}, {"direct", true}};
  const json obj = {{"direct", false}};
  ParamReader r(obj, "phases[0]", &defaults);
  EXPECT_EQ(r.path_of("workers"), "defaults.workers");
  EXPECT_EQ(r.path_of("direct"), "phases[0].direct");
  EXPECT_EQ(r.path_of("absent"), "phases[0].absent");
}

TEST(ParamsDefaults, FailUsesTheDefaultsPathWhenTheValueCameFromDefaults) {
  const json defaults = {{"block_size", "1000B"}};
  const json obj = {{"file_size", "1000B"}};
  ParamReader r(obj, "phases[0]", &defaults);
  r.size("block_size", 1);
  r.size("file_size", 1);
  r.fail("block_size", "must be a multiple of 4KiB");
  r.fail("file_size", "must be a multiple of 4KiB");
  ASSERT_EQ(r.errors().size(), 2u);
  EXPECT_EQ(r.errors()[0], "defaults.block_size: must be a multiple of 4KiB");
  EXPECT_EQ(r.errors()[1], "phases[0].file_size: must be a multiple of 4KiB");
  EXPECT_FALSE(r.finish().ok());
}

// ---- durations, rates, counts, fractions ---------------------------------

TEST(ParamsDuration, ReadsEveryUnitInSeconds) {
  const json obj = {{"a", "500ms"}, {"b", "90s"}, {"c", "1.5min"}, {"d", "1h"}, {"e", 2}, {"f", 0.25},
                    {"g", "250us"}};
  ParamReader r(obj, "phases[0]");
  EXPECT_DOUBLE_EQ(r.duration("a", 0), 0.5);
  EXPECT_DOUBLE_EQ(r.duration("b", 0), 90);
  EXPECT_DOUBLE_EQ(r.duration("c", 0), 90);
  EXPECT_DOUBLE_EQ(r.duration("d", 0), 3600);
  EXPECT_DOUBLE_EQ(r.duration("e", 0), 2);
  EXPECT_DOUBLE_EQ(r.duration("f", 0), 0.25);
  EXPECT_DOUBLE_EQ(r.duration("g", 0), 250e-6);
  EXPECT_DOUBLE_EQ(r.duration("absent", 7.5), 7.5);
  EXPECT_TRUE(r.errors().empty());
  EXPECT_DOUBLE_EQ(r.resolved()["a"].get<double>(), 0.5);
  EXPECT_DOUBLE_EQ(r.resolved()["d"].get<double>(), 3600);
}

TEST(ParamsDuration, BadAndOutOfRangeValues) {
  const json obj = {{"a", "fast"}, {"b", -1}, {"c", "2h"}, {"d", "1ms"}, {"e", "5 s"}};
  ParamReader r(obj, "phases[0]");
  EXPECT_DOUBLE_EQ(r.duration("a", 1), 1);
  EXPECT_DOUBLE_EQ(r.duration("b", 2), 2);
  EXPECT_DOUBLE_EQ(r.duration("c", 3, 0.001, 3600), 3);
  EXPECT_DOUBLE_EQ(r.duration("d", 4, 0.01), 4);
  EXPECT_DOUBLE_EQ(r.duration("e", 5), 5);
  ASSERT_EQ(r.errors().size(), 5u);
  EXPECT_EQ(r.errors()[0],
            "phases[0].a: expected a duration like \"500ms\", \"90s\" or \"1h\", got \"fast\"");
  EXPECT_TRUE(contains(r.errors()[1], "phases[0].b: expected a duration like"));
  EXPECT_EQ(r.errors()[2], "phases[0].c: expected a duration in [0.001, 3600] seconds, got \"2h\"");
  EXPECT_EQ(r.errors()[3], "phases[0].d: expected a duration >= 0.01 seconds, got \"1ms\"");
  EXPECT_TRUE(contains(r.errors()[4], "phases[0].e:"));
  // The resolved value after an error is the default.
  EXPECT_DOUBLE_EQ(r.resolved()["c"].get<double>(), 3);
}

TEST(ParamsRate, ReadsRatesAndRejectsSizes) {
  const json obj = {{"a", "2GB/s"}, {"b", "500MiB/s"}, {"c", 100}, {"d", "2GB"}, {"e", -3}};
  ParamReader r(obj, "phases[0]");
  EXPECT_DOUBLE_EQ(r.rate("a", 0), 2e9);
  EXPECT_DOUBLE_EQ(r.rate("b", 0), 500.0 * 1048576);
  EXPECT_DOUBLE_EQ(r.rate("c", 0), 100);
  EXPECT_DOUBLE_EQ(r.rate("d", 1), 1);
  EXPECT_DOUBLE_EQ(r.rate("e", 2), 2);
  EXPECT_DOUBLE_EQ(r.rate("absent", 3), 3);
  ASSERT_EQ(r.errors().size(), 2u);
  EXPECT_EQ(r.errors()[0], "phases[0].d: expected a rate like \"2GB/s\", got \"2GB\"");
  EXPECT_EQ(r.errors()[1], "phases[0].e: expected a rate like \"2GB/s\", got -3");
}

TEST(ParamsCount, ReadsScientificNotationAndChecksRange) {
  const json obj = {{"params", "175e9"}, {"n", 1000}, {"s", "1.5e6"},
                    {"bad", "175B"},     {"low", 0},  {"high", 11}};
  ParamReader r(obj, "phases[0]");
  EXPECT_DOUBLE_EQ(r.count("params", 0), 175e9);
  EXPECT_DOUBLE_EQ(r.count("n", 0), 1000);
  EXPECT_DOUBLE_EQ(r.count("s", 0), 1.5e6);
  EXPECT_DOUBLE_EQ(r.count("bad", 1), 1);
  EXPECT_DOUBLE_EQ(r.count("low", 2, 1), 2);
  EXPECT_DOUBLE_EQ(r.count("high", 3, 1, 10), 3);
  ASSERT_EQ(r.errors().size(), 3u);
  EXPECT_EQ(r.errors()[0], "phases[0].bad: expected a count like 175e9, got \"175B\"");
  EXPECT_EQ(r.errors()[1], "phases[0].low: expected a count >= 1, got 0");
  EXPECT_EQ(r.errors()[2], "phases[0].high: expected a count in [1, 10], got 11");
}

TEST(ParamsFraction, ReadsPercentAndChecksRange) {
  const json obj = {{"a", "5%"}, {"b", 0.9}, {"c", 1.5}, {"d", "half"}, {"e", 0.02}};
  ParamReader r(obj, "phases[0]");
  EXPECT_DOUBLE_EQ(r.fraction("a", 0), 0.05);
  EXPECT_DOUBLE_EQ(r.fraction("b", 0), 0.9);
  EXPECT_DOUBLE_EQ(r.fraction("c", 0.5), 0.5);
  EXPECT_DOUBLE_EQ(r.fraction("d", 0.5), 0.5);
  EXPECT_DOUBLE_EQ(r.fraction("e", 0.1, 0.05, 0.5), 0.1);
  ASSERT_EQ(r.errors().size(), 3u);
  EXPECT_EQ(r.errors()[0], "phases[0].c: expected a fraction in [0, 1], got 1.5");
  EXPECT_EQ(r.errors()[1], "phases[0].d: expected a fraction like 0.05 or \"5%\", got \"half\"");
  EXPECT_EQ(r.errors()[2], "phases[0].e: expected a fraction in [0.05, 0.5], got 0.02");
}

// ---- integers, booleans, choices, strings, raw ----------------------------

TEST(ParamsInteger, AcceptsOnlyIntegersInRange) {
  const json obj = {{"ok", 8},    {"float", 2.5},  {"text", "8"}, {"low", 0},
                    {"high", 1025}, {"huge", UINT64_MAX}, {"neg", -1}, {"edge", 1024}};
  ParamReader r(obj, "phases[0]");
  EXPECT_EQ(r.integer("ok", 1, 1, 1024), 8);
  EXPECT_EQ(r.integer("float", 1, 1, 1024), 1);
  EXPECT_EQ(r.integer("text", 1, 1, 1024), 1);
  EXPECT_EQ(r.integer("low", 1, 1, 1024), 1);
  EXPECT_EQ(r.integer("high", 1, 1, 1024), 1);
  EXPECT_EQ(r.integer("huge", 1, 1, 1024), 1);
  EXPECT_EQ(r.integer("neg", 1, 0, INT64_MAX), 1);
  EXPECT_EQ(r.integer("edge", 1, 1, 1024), 1024);
  ASSERT_EQ(r.errors().size(), 6u);
  EXPECT_EQ(r.errors()[0], "phases[0].float: expected an integer in [1, 1024], got 2.5");
  EXPECT_EQ(r.errors()[1], "phases[0].text: expected an integer in [1, 1024], got \"8\"");
  EXPECT_EQ(r.errors()[2], "phases[0].low: expected an integer in [1, 1024], got 0");
  EXPECT_EQ(r.errors()[3], "phases[0].high: expected an integer in [1, 1024], got 1025");
  EXPECT_TRUE(
      contains(r.errors()[4], "phases[0].huge: expected an integer in [1, 1024], got 18446744073709551615"));
  EXPECT_EQ(r.errors()[5], "phases[0].neg: expected an integer >= 0, got -1");
  EXPECT_TRUE(contains(r.errors()[5], "got -1"));
  EXPECT_EQ(r.resolved()["ok"].get<int64_t>(), 8);
  EXPECT_EQ(r.resolved()["high"].get<int64_t>(), 1);
}

TEST(ParamsBoolean, AcceptsOnlyJsonBooleans) {
  const json defaults = {{"fsync", "no"}};
  const json obj = {{"direct", true}, {"keep", false}, {"yes", "yes"}, {"one", 1}};
  ParamReader r(obj, "phases[0]", &defaults);
  EXPECT_TRUE(r.boolean("direct", false));
  EXPECT_FALSE(r.boolean("keep", true));
  EXPECT_TRUE(r.boolean("yes", true));
  EXPECT_FALSE(r.boolean("one", false));
  EXPECT_TRUE(r.boolean("fsync", true));
  EXPECT_TRUE(r.boolean("absent", true));
  ASSERT_EQ(r.errors().size(), 3u);
  EXPECT_EQ(r.errors()[0], "phases[0].yes: expected true or false, got \"yes\"");
  EXPECT_EQ(r.errors()[1], "phases[0].one: expected true or false, got 1");
  EXPECT_EQ(r.errors()[2], "defaults.fsync: expected true or false, got \"no\"");
  EXPECT_EQ(r.resolved()["direct"], json(true));
}

TEST(ParamsChoice, AcceptsOnlyListedValuesAndListsThem) {
  const json obj = {{"engine", "psync"}, {"bad", "xfs"}, {"num", 3}};
  ParamReader r(obj, "phases[0]");
  EXPECT_EQ(r.choice("engine", "auto", {"auto", "psync", "io_uring"}), "psync");
  EXPECT_EQ(r.choice("bad", "auto", {"auto", "psync"}), "auto");
  EXPECT_EQ(r.choice("num", "auto", {"auto", "psync"}), "auto");
  EXPECT_EQ(r.choice("absent", "auto", {"auto", "psync"}), "auto");
  ASSERT_EQ(r.errors().size(), 2u);
  EXPECT_EQ(r.errors()[0], "phases[0].bad: expected one of \"auto\" \"psync\", got \"xfs\"");
  EXPECT_EQ(r.errors()[1], "phases[0].num: expected one of \"auto\" \"psync\", got 3");
  EXPECT_EQ(r.resolved()["engine"], json("psync"));
  EXPECT_EQ(r.resolved()["absent"], json("auto"));
}

TEST(ParamsString, AcceptsStringsOnly) {
  const json obj = {{"label", "run-1"}, {"num", 5}};
  ParamReader r(obj, "phases[0]");
  EXPECT_EQ(r.string("label", "x"), "run-1");
  EXPECT_EQ(r.string("num", "x"), "x");
  ASSERT_EQ(r.errors().size(), 1u);
  EXPECT_EQ(r.errors()[0], "phases[0].num: expected a string, got 5");
}

TEST(ParamsRaw, ReturnsNestedValuesAndRecordsThem) {
  const json obj = {{"layers", {{"n", 4}, {"size", "1MiB"}}}};
  ParamReader r(obj, "phases[0]");
  const json* v = r.raw("layers");
  ASSERT_NE(v, nullptr);
  EXPECT_EQ((*v)["n"], json(4));
  EXPECT_EQ(r.raw("absent"), nullptr);
  EXPECT_EQ(r.resolved()["layers"]["size"], json("1MiB"));
  EXPECT_FALSE(r.resolved().contains("absent"));
  // Both keys are known, so neither is reported as unknown.
  EXPECT_TRUE(r.finish().ok());
}

// ---- finish(): unknown keys and accumulated errors ------------------------

TEST(ParamsFinish, ReportsUnknownKeysWithTheirPathAndTheKnownKeys) {
  const json obj = {{"block_size", "1MiB"}, {"blok_size", "4MiB"}, {"kind", "ingest"}};
  ParamReader r(obj, "phases[2]");
  r.size("block_size", 1);
  r.integer("workers", 1, 1, 8);
  Status s = r.finish({"kind"});
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code(), Status::Code::kInvalidArgument);
  EXPECT_EQ(s.message(), "phases[2].blok_size: unknown parameter; expected one of: block_size workers");
  ASSERT_EQ(r.errors().size(), 1u);
}

TEST(ParamsFinish, IgnoredKeysAreNotUnknownButOtherSuiteKeysAre) {
  const json obj = {{"kind", "ingest"}, {"name", "a"}, {"checks", json::array()}};
  ParamReader r(obj, "phases[0]");
  EXPECT_TRUE(r.finish({"kind", "name", "checks"}).ok());
  ParamReader r2(obj, "phases[0]");
  Status s = r2.finish({"kind"});
  ASSERT_FALSE(s.ok());
  EXPECT_TRUE(contains(s.message(), "phases[0].checks: unknown parameter"));
  EXPECT_TRUE(contains(s.message(), "phases[0].name: unknown parameter"));
}

TEST(ParamsFinish, UnreadDefaultsAreNotTheReadersBusiness) {
  // Keys in defaults belong to the suite layer, which checks them against every phase kind.
  const json defaults = {{"workers", 2}, {"other_kinds_key", 1}};
  const json obj = json::object();
  ParamReader r(obj, "phases[0]", &defaults);
  r.integer("workers", 1, 1, 8);
  EXPECT_TRUE(r.finish().ok());
}

TEST(ParamsFinish, ErrorsAccumulateInOrderJoinedByNewlines) {
  const json defaults = {{"workers", 0}};
  const json obj = {{"block_size", "1 MB/s"}, {"direct", "yes"}, {"typo", 1}};
  ParamReader r(obj, "phases[1]", &defaults);
  r.size("block_size", 4096);
  r.boolean("direct", false);
  r.integer("workers", 1, 1, 1024);
  r.duration("interval", 1);  // absent: no error
  Status s = r.finish();
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code(), Status::Code::kInvalidArgument);
  ASSERT_EQ(r.errors().size(), 4u);
  EXPECT_EQ(s.message(),
            "phases[1].block_size: expected a size like \"1MiB\" or \"4KiB\", got \"1 MB/s\"\n"
            "phases[1].direct: expected true or false, got \"yes\"\n"
            "defaults.workers: expected an integer in [1, 1024], got 0\n"
            "phases[1].typo: unknown parameter; expected one of: block_size direct interval workers");
}

TEST(ParamsFinish, OkWhenEveryKeyIsReadAndValid) {
  const json obj = {{"workers", 4}};
  ParamReader r(obj, "phases[0]");
  r.integer("workers", 1, 1, 8);
  Status s = r.finish();
  EXPECT_TRUE(s.ok());
  EXPECT_TRUE(s.message().empty());
}

// ---- resolved(): base units ------------------------------------------------

TEST(ParamsResolved, HoldsBaseUnitsBytesAsIntegersDurationsInSeconds) {
  const json defaults = {{"series_interval", "250ms"}};
  const json obj = {{"block_size", "1MiB"}, {"file_size", "1.5GiB"}, {"rate", "2GB/s"},
                    {"budget", "5%"},      {"workers", 3},         {"engine", "psync"}};
  ParamReader r(obj, "phases[0]", &defaults);
  r.size("block_size", 1);
  r.size("file_size", 1);
  r.size("absent_size", 4096);
  r.duration("series_interval", 0.1);
  r.rate("rate", 0);
  r.fraction("budget", 0);
  r.integer("workers", 1, 1, 8);
  r.choice("engine", "auto", {"auto", "psync"});
  ASSERT_TRUE(r.finish().ok());
  const json& res = r.resolved();
  ASSERT_TRUE(res.is_object());
  EXPECT_TRUE(res["block_size"].is_number_integer());
  EXPECT_EQ(res["block_size"].get<uint64_t>(), 1048576u);
  EXPECT_TRUE(res["file_size"].is_number_integer());
  EXPECT_EQ(res["file_size"].get<uint64_t>(), 1610612736u);
  EXPECT_EQ(res["absent_size"].get<uint64_t>(), 4096u);
  EXPECT_DOUBLE_EQ(res["series_interval"].get<double>(), 0.25);
  EXPECT_DOUBLE_EQ(res["rate"].get<double>(), 2e9);
  EXPECT_DOUBLE_EQ(res["budget"].get<double>(), 0.05);
  EXPECT_EQ(res["workers"], json(3));
  EXPECT_EQ(res["engine"], json("psync"));
  EXPECT_EQ(res.size(), 8u);
}

TEST(ParamsDescribe, QuotesStringsAndTruncatesLongValues) {
  EXPECT_EQ(describe_json_value(json("1 MB/s")), "\"1 MB/s\"");
  EXPECT_EQ(describe_json_value(json(42)), "42");
  EXPECT_EQ(describe_json_value(json(nullptr)), "null");
  const std::string longtext(200, 'x');
  const std::string d = describe_json_value(json(longtext));
  EXPECT_EQ(d.size(), 60u);
  EXPECT_EQ(d.substr(57), "...");
}

}  // namespace
}  // namespace iofab
