#include "harness/core/json_input.h"

#include <gtest/gtest.h>

#include "harness/core/utf8.h"

namespace iofab::testing {
namespace {

using nlohmann::json;

std::string nested(size_t levels, char open = '[', char close = ']') {
  return std::string(levels, open) + std::string(levels, close);
}

TEST(JsonInput, SixtyThousandLevelsAreRefusedNotACrash) {
  json j;
  JsonInputError kind = JsonInputError::kNone;
  Status s = parse_json_input(nested(60000), {}, &j, &kind);
  EXPECT_EQ(s.code(), Status::Code::kInvalidArgument);
  EXPECT_EQ(kind, JsonInputError::kDepth);
  EXPECT_NE(s.message().find("nested deeper than 64 levels"), std::string::npos) << s.message();
  std::string objects;
  for (int i = 0; i < 60000; ++i) objects += "{\"a\":";
  objects += "1" + std::string(60000, '}');
  s = parse_json_input(objects, {}, &j, &kind);
  EXPECT_EQ(kind, JsonInputError::kDepth);
  EXPECT_NE(s.message().find("(at a.a.a."), std::string::npos) << s.message();
}

TEST(JsonInput, TheLimitItselfIsAccepted) {
  json j;
  EXPECT_TRUE(parse_json_input(nested(kMaxJsonDepth), {}, &j).ok());
  EXPECT_FALSE(parse_json_input(nested(kMaxJsonDepth + 1), {}, &j).ok());
}

TEST(JsonInput, ARepeatedKeyIsRefusedNamingItAndWhere) {
  json j;
  JsonInputError kind = JsonInputError::kNone;
  Status s = parse_json_input(
      R"({"phases": [{"kind": "ingest"}, {"kind": "ingest", "block_size": 1, "block_size": 2}]})", {}, &j,
      &kind);
  EXPECT_EQ(kind, JsonInputError::kDuplicate);
  EXPECT_EQ(s.message().rfind("phases[1]: the key \"block_size\" appears twice", 0), 0u) << s.message();
  s = parse_json_input(R"({"a": 1, "a": 1})", {}, &j);
  EXPECT_EQ(s.message().rfind("the top level: the key \"a\" appears twice", 0), 0u) << s.message();
  // The same key in two objects is fine.
  s = parse_json_input(R"({"a": {"x": 1}, "b": {"x": 2}, "c": [{"x": 1}, {"x": 2}]})", {}, &j);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(j["c"][1]["x"], 2);
}

TEST(JsonInput, SyntaxErrorsSayWhereAndCommentsOnlyWhenAllowed) {
  json j;
  JsonInputError kind = JsonInputError::kNone;
  Status s = parse_json_input("{\"a\": }", {}, &j, &kind);
  EXPECT_EQ(kind, JsonInputError::kSyntax);
  EXPECT_EQ(s.message().rfind("not valid JSON: parse error at line 1, column 7", 0), 0u) << s.message();
  EXPECT_FALSE(parse_json_input("// c\n{}", {}, &j).ok());
  JsonInputOptions comments;
  comments.allow_comments = true;
  EXPECT_TRUE(parse_json_input("// c\n{}", comments, &j).ok());
  EXPECT_EQ(parse_json_input("1e999", {}, &j, &kind).code(), Status::Code::kInvalidArgument);
  EXPECT_EQ(kind, JsonInputError::kSyntax);
}

TEST(Utf8, InvalidBytesBecomeTheReplacementCharacter) {
  EXPECT_EQ(valid_utf8("plain"), "plain");
  EXPECT_EQ(valid_utf8("caf\xC3\xA9 \xF0\x9F\x98\x80"), "caf\xC3\xA9 \xF0\x9F\x98\x80");
  EXPECT_EQ(valid_utf8("a\xFF"
                       "b"),
            "a\xEF\xBF\xBD"
            "b");
  EXPECT_EQ(valid_utf8("\xC3"), "\xEF\xBF\xBD");                                  // cut short
  EXPECT_EQ(valid_utf8("\xC0\xAF"), "\xEF\xBF\xBD\xEF\xBF\xBD");                  // overlong '/'
  EXPECT_EQ(valid_utf8("\xED\xA0\x80"), "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");  // a surrogate
  EXPECT_EQ(valid_utf8("\xF4\x90\x80\x80").find("\xF4"), std::string::npos);      // past U+10FFFF
  // What comes out always dumps as JSON.
  EXPECT_NO_THROW(json(valid_utf8("\xFE\xFF\x80x")).dump());
}

}  // namespace
}  // namespace iofab::testing
