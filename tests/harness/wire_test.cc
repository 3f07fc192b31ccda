// The wire form of values between ranks: a Status keeps its code and words,
// every read checks its type, and a wrong value says which field and why.
#include "harness/comm/wire.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "harness/phase/bad_file.h"

namespace iofab {
namespace {

using nlohmann::json;

json decoded(const std::string& bytes) {
  json j;
  EXPECT_TRUE(wire_decode(bytes, &j));
  return j;
}

TEST(Wire, AStatusKeepsItsCodeAndMessage) {
  for (const Status& s : {Status::Ok(), Status::Invalid("a"), Status::IoError("b"), Status::Interrupted("c"),
                          Status::Unavailable("d"), Status::Internal("e")}) {
    Status back = Status::Internal("not read");
    ASSERT_TRUE(from_wire(decoded(wire_bytes(to_wire(s))), &back).ok());
    EXPECT_EQ(back.code(), s.code());
    EXPECT_EQ(back.message(), s.message());
  }
  EXPECT_EQ(to_wire(Status::IoError("x")), (json{{"code", 2}, {"message", "x"}}));
}

TEST(Wire, AMalformedStatusSaysWhatIsWrong) {
  Status out;
  EXPECT_EQ(from_wire(json{{"code", 6}, {"message", ""}}, &out).message(), "code: 6 is no status code");
  EXPECT_EQ(from_wire(json{{"code", -1}, {"message", ""}}, &out).message(), "code: -1 is no status code");
  EXPECT_EQ(from_wire(json{{"code", "2"}, {"message", ""}}, &out).message(),
            "code: expected an int, got string");
  EXPECT_EQ(from_wire(json{{"code", 1}}, &out).message(), "message: missing");
  EXPECT_EQ(from_wire(json::array({1, "x"}), &out).message(), "expected an object, got array");
}

TEST(Wire, NumbersAreCheckedForTypeAndRange) {
  int i = 0;
  EXPECT_TRUE(from_wire(json(-5), &i).ok());
  EXPECT_EQ(i, -5);
  EXPECT_FALSE(from_wire(json(int64_t{1} << 40), &i).ok());
  EXPECT_FALSE(from_wire(json(1.5), &i).ok());
  uint64_t u = 0;
  EXPECT_TRUE(from_wire(json(UINT64_MAX), &u).ok());
  EXPECT_EQ(u, UINT64_MAX);
  EXPECT_FALSE(from_wire(json(-1), &u).ok());
  double d = 0;
  EXPECT_TRUE(from_wire(json(7), &d).ok());
  EXPECT_EQ(d, 7.0);
  // No NaN travels: it goes as null, which is no number; a NaN that came anyway is refused.
  EXPECT_FALSE(from_wire(decoded(wire_bytes(to_wire(std::nan("")))), &d).ok());
  EXPECT_FALSE(from_wire(decoded(wire_bytes(json(std::nan("")))), &d).ok());
  EXPECT_EQ(d, 7.0);
  bool b = false;
  EXPECT_FALSE(from_wire(json(1), &b).ok());
  // A pointer to text is text, never the bool it would convert to.
  EXPECT_EQ(to_wire("words"), json("words"));
}

TEST(Wire, AVectorSaysWhichItemIsWrong) {
  std::vector<uint64_t> v = {9};
  EXPECT_EQ(from_wire(json::array({1, 2, "3"}), &v).message(), "[2]: expected an integer >= 0, got string");
  EXPECT_EQ(v, std::vector<uint64_t>{9});  // untouched on failure
  ASSERT_TRUE(from_wire(to_wire(std::vector<uint64_t>{4, 5}), &v).ok());
  EXPECT_EQ(v, (std::vector<uint64_t>{4, 5}));
}

TEST(WireReader, KeepsTheFirstProblemAndNamesItsField) {
  const json j = {{"a", 1}, {"b", "two"}, {"c", nullptr}};
  uint64_t a = 0, b = 0, c = 5, d = 6;
  WireReader r(j);
  r.field("a", &a).field("b", &b).field("missing", &c);
  EXPECT_EQ(a, 1u);
  EXPECT_EQ(r.status().message(), "b: expected an integer >= 0, got string");
  WireReader opt(j);
  opt.optional("c", &c).optional("d", &d).field("a", &a);
  EXPECT_TRUE(opt.status().ok()) << opt.status().message();
  EXPECT_EQ(c, 5u);
  EXPECT_EQ(d, 6u);
  EXPECT_EQ(WireReader(json(3)).field("a", &a).status().message(), "expected an object, got number");
}

TEST(WireReader, AnItemOfAnArrayFieldIsNamedAsTheSuiteNamesIt) {
  // field[i], and [i][j] for an array of arrays: the path a user reads in a suite error.
  const json j = {{"bad", json::array({{{"name", "a"}, {"reason", "r"}, {"io", false}}, {{"name", 3}}})},
                  {"grid", json::array({json::array({1}), json::array({2, -1})})}};
  std::vector<BadFile> bad;
  WireReader r(j);
  r.field("bad", &bad);
  EXPECT_EQ(r.status().message(), "bad[1]: name: expected a string, got number");
  EXPECT_TRUE(bad.empty());
  std::vector<std::vector<uint64_t>> grid;
  WireReader g(j);
  g.field("grid", &grid);
  EXPECT_EQ(g.status().message(), "grid[1][1]: expected an integer >= 0, got number");
}

TEST(Wire, ABadFileComesBackAsItWent) {
  const BadFile sent{"layer.3.safetensors", "xxh3 mismatch at 4096", true};
  BadFile back;
  ASSERT_TRUE(from_wire(decoded(wire_bytes(to_wire(sent))), &back).ok());
  EXPECT_EQ(back.name, sent.name);
  EXPECT_EQ(back.reason, sent.reason);
  EXPECT_TRUE(back.io);
  EXPECT_EQ(from_wire(json{{"name", "x"}, {"reason", "y"}}, &back).message(), "io: missing");
}

TEST(Wire, TextThatIsNotUtf8TravelsAsItIs) {
  const std::string bad = "rank 1: /data/\xff\xfe";
  std::string back;
  ASSERT_TRUE(from_wire(decoded(wire_bytes(to_wire(Status::IoError(bad))))["message"], &back).ok());
  EXPECT_EQ(back, bad);  // the report's writer replaces such bytes (json_text), not the wire
}

TEST(Wire, BytesThatAreNotOneWholeValueAreRefused) {
  json j;
  const std::string good = wire_bytes(json{{"a", 1}});
  EXPECT_TRUE(wire_decode(good, &j));
  EXPECT_FALSE(wire_decode(good.substr(0, good.size() - 1), &j));  // cut short
  EXPECT_FALSE(wire_decode(good + good, &j));                      // something after it
  EXPECT_FALSE(wire_decode("", &j));
}

}  // namespace
}  // namespace iofab
