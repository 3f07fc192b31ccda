#include "harness/core/json_input.h"

#include <set>
#include <vector>

#include "harness/core/json_text.h"

namespace iofab {

using nlohmann::json;

namespace {

// Thrown from the parser callback to stop the parse at the first problem; it
// never leaves parse_json_input.
struct Refused {
  JsonInputError kind;
  std::string message;
};

// Where the parser is: one frame per open object or array, so a refusal can
// name the place ("phases[1].checks[0]").
struct Frame {
  bool is_object = false;
  std::set<std::string> keys;  // objects: the keys seen so far
  std::string key;             // objects: the current key
  size_t index = 0;            // arrays: the current element
};

// with_last: also the innermost frame's current key or index (where a value
// is being read), not only the container it is in.
std::string path_of(const std::vector<Frame>& stack, bool with_last) {
  std::string p;
  for (size_t i = 0; i < stack.size() && p.size() <= 80; ++i) {
    const Frame& f = stack[i];
    if (i + 1 == stack.size() && !with_last) break;
    if (f.is_object)
      p += (p.empty() ? "" : ".") + f.key;
    else
      p += "[" + std::to_string(f.index) + "]";
  }
  if (p.size() > 80) p = p.substr(0, 77) + "...";
  return p.empty() ? "the top level" : p;
}

// A value ended inside the innermost array: the next one has the next index.
void value_done(std::vector<Frame>* stack) {
  if (!stack->empty() && !stack->back().is_object) ++stack->back().index;
}

}  // namespace

Status parse_json_input(std::string_view text, const JsonInputOptions& options, json* out,
                        JsonInputError* error) {
  std::vector<Frame> stack;
  const int max_depth = options.max_depth;
  json::parser_callback_t check = [&](int depth, json::parse_event_t event, json& parsed) {
    switch (event) {
      case json::parse_event_t::object_start:
      case json::parse_event_t::array_start:
        if (depth >= max_depth) {
          throw Refused{JsonInputError::kDepth, "nested deeper than " + std::to_string(max_depth) +
                                                    " levels of objects and arrays (at " +
                                                    path_of(stack, true) + "); iofab reads at most " +
                                                    std::to_string(max_depth)};
        }
        stack.push_back(Frame{event == json::parse_event_t::object_start, {}, {}, 0});
        break;
      case json::parse_event_t::key: {
        Frame& f = stack.back();
        f.key = parsed.get<std::string>();
        if (!f.keys.insert(f.key).second) {
          throw Refused{JsonInputError::kDuplicate,
                        path_of(stack, false) + ": the key " + json_text(parsed) +
                            " appears twice in one object; JSON leaves it undefined which value counts, "
                            "so remove one"};
        }
        break;
      }
      case json::parse_event_t::object_end:
      case json::parse_event_t::array_end:
        stack.pop_back();
        value_done(&stack);
        break;
      case json::parse_event_t::value:
        value_done(&stack);
        break;
    }
    return true;
  };
  if (error != nullptr) *error = JsonInputError::kNone;
  try {
    *out = json::parse(text, check, /*allow_exceptions=*/true, options.allow_comments);
  } catch (const Refused& r) {
    if (error != nullptr) *error = r.kind;
    return Status::Invalid(r.message);
  } catch (const json::exception& e) {  // parse_error, and out_of_range for a number too big for a double
    // "[json.exception.parse_error.101] parse error at line 3, ..." -> from "parse error".
    std::string what = e.what();
    const auto pos = what.find("] ");
    if (pos != std::string::npos) what = what.substr(pos + 2);
    if (error != nullptr) *error = JsonInputError::kSyntax;
    return Status::Invalid("not valid JSON: " + what);
  }
  return Status::Ok();
}

}  // namespace iofab
