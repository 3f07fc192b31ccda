#include "driver/suite/suite.h"

#include <openssl/evp.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>

#include "driver/suite/embedded_suites.h"
#include "driver/suite/phase_list.h"
#include "driver/suite/suite_header.h"
#include "driver/suite/suite_set.h"
#include "harness/core/input_file.h"
#include "harness/core/json_input.h"
#include "harness/core/json_text.h"
#include "harness/core/text.h"
#include "harness/phase/params.h"

namespace iofab {

using nlohmann::json;

std::string sha256_hex(std::string_view data) {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  EVP_Digest(data.data(), data.size(), md, &len, EVP_sha256(), nullptr);
  std::string hex;
  char b[3];
  for (unsigned i = 0; i < len; ++i) {
    std::snprintf(b, sizeof b, "%02x", md[i]);
    hex += b;
  }
  return hex;
}

namespace {

// One suite document into a Suite, every error kept (each names its JSON path): its header, its defaults,
// its phases.
Status parse_document(const json& doc, Suite* out) {
  std::vector<std::string> errors;
  parse_suite_header(doc, out, &errors);
  SuiteDefaults defaults(doc, &errors);
  if (!doc.contains("phases") || !doc["phases"].is_array() || doc["phases"].empty()) {
    errors.push_back("phases: expected a non-empty array of phases like [{\"kind\": \"ingest\"}]");
  } else {
    parse_phase_list(doc["phases"], defaults, out, &errors);
  }
  if (!errors.empty()) return Status::Invalid(join(errors, "\n"));
  return Status::Ok();
}

}  // namespace

Status parse_suite(std::string_view text, std::string_view source, const std::vector<std::string>& sets,
                   Suite* out) {
  out->source = source;
  out->sha256 = sha256_hex(text);
  json doc;
  JsonInputOptions options;
  options.allow_comments = true;
  if (Status s = parse_json_input(text, options, &doc); !s.ok()) {
    return Status::Invalid(std::string(source) + ": " + s.message());
  }
  if (!doc.is_object()) {
    return Status::Invalid(std::string(source) + ": expected a JSON object with \"phases\", got " +
                           describe_json_value(doc));
  }
  for (const auto& s : sets) {
    Status st = apply_set(&doc, s);
    if (!st.ok()) return st;
  }
  out->document = doc;
  return parse_document(out->document, out);
}

bool has_concurrent_groups(const Suite& suite) { return !suite.groups.empty(); }

Status load_suite(const std::string& path_or_name, const std::vector<std::string>& sets, Suite* out) {
  std::string name = path_or_name;
  if (name.rfind("builtin:", 0) == 0) name = name.substr(8);
  const bool builtin_only = path_or_name.rfind("builtin:", 0) == 0;
  const bool is_builtin_name = std::any_of(embedded_suites().begin(), embedded_suites().end(),
                                           [&](const auto& s) { return s.name == name; });
  if (!builtin_only) {
    std::string text;
    Status rs = read_input_file(path_or_name, kMaxSuiteFileBytes, &text);
    if (rs.ok()) return parse_suite(text, path_or_name, sets, out);
    // A missing file may be a built-in suite's name; so may a folder of that name in the current folder.
    struct stat st {};
    const bool missing = stat(path_or_name.c_str(), &st) != 0 && errno == ENOENT;
    if (!missing && !(is_builtin_name && S_ISDIR(st.st_mode))) {
      return Status::Invalid("suite " + rs.message());
    }
  }
  for (const auto& s : embedded_suites()) {
    if (s.name == name) return parse_suite(s.text, "builtin:" + name, sets, out);
  }
  std::string known;
  for (const auto& s : embedded_suites()) known += (known.empty() ? "" : ", ") + std::string(s.name);
  return Status::Invalid("suite " + path_or_name +
                         ": no such file, and not a built-in suite (built-in: " + known + ")");
}

}  // namespace iofab
