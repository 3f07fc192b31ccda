// The wire form of values between ranks: a Status keeps its code and words,
// every read checks its type, and a wrong value says which field and why.
#include "harness/comm/wire.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <optional>
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

// Structs that declare their fields once, as a rank's results do (in an unnamed namespace, as there: their
// pair is found through wire.h, not by argument-dependent lookup).
struct Item {
  uint64_t n = 0;
  std::string name;
  static constexpr auto wire_fields() { return std::tuple{wire_field("n", &Item::n), wire_field("name", &Item::name)}; }
};

struct RankFigures {
  Item first;
  std::vector<Item> items;
  std::optional<uint64_t> device_bytes;
  Status status;
  json requests;
  static constexpr auto wire_fields() {
    using R = RankFigures;
    return std::tuple{wire_field("first", &R::first), wire_field("items", &R::items),
                      wire_optional("device_bytes", &R::device_bytes), wire_field("status", &R::status),
                      wire_optional("requests", &R::requests)};
  }
};

TEST(WireFields, AStructOfDeclaredFieldsComesBackAsItWent) {
  RankFigures sent{.first = {7, "a"},
                   .items = {{1, "b"}, {2, "c"}},
                   .device_bytes = 4096,
                   .status = Status::IoError("disk"),
                   .requests = json{{"requests", 3}}};
  const json wire = decoded(wire_bytes(to_wire(sent)));
  EXPECT_EQ(wire.size(), 5u) << wire.dump();
  RankFigures back;
  ASSERT_TRUE(from_wire(wire, &back).ok());
  EXPECT_EQ(back.first.n, 7u);
  EXPECT_EQ(back.first.name, "a");
  ASSERT_EQ(back.items.size(), 2u);
  EXPECT_EQ(back.items[1].name, "c");
  EXPECT_EQ(back.device_bytes, std::optional<uint64_t>(4096));
  EXPECT_EQ(back.status.code(), Status::Code::kIoError);
  EXPECT_EQ(back.requests, sent.requests);
  // Absent travels as null and comes back absent.
  sent.device_bytes.reset();
  EXPECT_TRUE(to_wire(sent)["device_bytes"].is_null());
  RankFigures fresh;
  ASSERT_TRUE(from_wire(decoded(wire_bytes(to_wire(sent))), &fresh).ok());
  EXPECT_FALSE(fresh.device_bytes.has_value());
  // A required optional<> field reads null as absent.
  std::optional<uint64_t> maybe = 5;
  ASSERT_TRUE(from_wire(json(nullptr), &maybe).ok());
  EXPECT_FALSE(maybe.has_value());
}

TEST(WireFields, EveryDeclaredFieldIsReadCheckedAndNamed) {
  const json good = to_wire(RankFigures{.first = {1, "x"},
                                        .items = {{2, "y"}},
                                        .device_bytes = std::nullopt,
                                        .status = Status::Ok(),
                                        .requests = json()});
  json missing = good;
  missing.erase("first");
  RankFigures out;
  EXPECT_NE(from_wire(missing, &out).message().find("first"), std::string::npos) << from_wire(missing, &out).message();
  json wrong = good;
  wrong["items"][0]["n"] = "two";
  const Status st = from_wire(wrong, &out);
  EXPECT_EQ(st.message(), "items[0]: n: expected an integer >= 0, got string");
  // An optional field an older sender lacks keeps the member's value.
  json older = good;
  older.erase("requests");
  older.erase("device_bytes");
  RankFigures kept;
  kept.device_bytes = 9;
  ASSERT_TRUE(from_wire(older, &kept).ok());
  EXPECT_EQ(kept.device_bytes, std::optional<uint64_t>(9));
  EXPECT_FALSE(from_wire(json::array(), &out).ok());
}

}  // namespace
}  // namespace iofab
