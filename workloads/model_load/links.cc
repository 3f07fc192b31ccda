#include "workloads/model_load/links.h"

#include <string>

namespace iofab {

namespace {

using nlohmann::json;

std::string weights_from(const json& params) {
  const auto it = params.find("weights_from");
  return it != params.end() && it->is_string() ? it->get<std::string>() : "";
}

// A phase that reads another's files (its own weights_from) wrote none to read.
std::string writes_no_files(const json& /*params*/, const json& source, const std::string& source_name) {
  const std::string theirs = weights_from(source);
  if (theirs.empty()) return "";
  return ".weights_from: phase \"" + source_name + "\" writes no files: it reads \"" + theirs +
         "\"'s (its weights_from); name \"" + theirs + "\"";
}

constexpr PhaseLink kModelLoadLinks[] = {
    {.param = "weights_from", .kind = "model_load", .what = "its files", .check_source = &writes_no_files},
};

}  // namespace

std::span<const PhaseLink> model_load_links() { return kModelLoadLinks; }

}  // namespace iofab
