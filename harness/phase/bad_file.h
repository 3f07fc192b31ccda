// A file a reading phase (restore, model_load) could not verify, as its ranks
// send it to rank 0 and as the report lists it. One form for both phases, so
// one reader checks what a rank sent.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "harness/core/status.h"

namespace iofab {

struct BadFile {
  std::string name;
  std::string reason;
  // Could not be read (EIO, EACCES): the run failed to measure, an error. Otherwise the file itself is
  // wrong (missing, wrong size, corrupt): a verdict on the storage, the phase `failed`.
  bool io = false;
};

nlohmann::json to_wire(const BadFile& b);
Status from_wire(const nlohmann::json& j, BadFile* out);

}  // namespace iofab
