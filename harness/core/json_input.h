// Parsing JSON that came from outside (suite files, --set values, reports read
// back, checkpoint and dataset manifests, cufile.json). Two things plain
// json::parse accepts are refused here:
// - nesting deeper than kMaxJsonDepth: parsing is iterative, but copying,
//   comparing and printing a value recurse, and 60k levels overflow the stack;
// - a key twice in one object: JSON leaves it undefined which value counts
//   (nlohmann keeps the last), so a suite could silently run with another
//   block size than the one its author read.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "harness/core/status.h"

namespace iofab {

// Far deeper than any suite (4 levels), report (7) or manifest (3) has.
inline constexpr int kMaxJsonDepth = 64;

struct JsonInputOptions {
  bool allow_comments = false;  // suites and cufile.json may hold // and /* */ comments
  int max_depth = kMaxJsonDepth;
};

enum class JsonInputError {
  kNone,
  kSyntax,     // not JSON at all (a --set value then counts as a string)
  kDepth,      // nested deeper than max_depth
  kDuplicate,  // a key twice in one object
};

// Parses text into *out. On error, the message names the problem without a
// source prefix: "not valid JSON: parse error at line 1, column 2: ...",
// "nested deeper than 64 levels (at phases[0].x)", "phases[1]: the key
// \"block_size\" appears twice; JSON leaves it undefined which one counts".
// *error (optional) says which kind of problem it was.
Status parse_json_input(std::string_view text, const JsonInputOptions& options, nlohmann::json* out,
                        JsonInputError* error = nullptr);

// A non-negative integer, whether nlohmann holds it as unsigned (parsed text) or signed (a value built
// in code); false for anything else, *out untouched.
inline bool json_u64(const nlohmann::json& v, uint64_t* out) {
  if (v.is_number_unsigned()) {
    *out = v.get<uint64_t>();
    return true;
  }
  if (v.is_number_integer() && v.get<int64_t>() >= 0) {
    *out = static_cast<uint64_t>(v.get<int64_t>());
    return true;
  }
  return false;
}

}  // namespace iofab
