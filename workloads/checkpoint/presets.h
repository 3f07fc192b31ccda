// Named models: the Llama 3 architectures as published (counted exactly),
// and MLPerf Storage's checkpointing workloads as DLIO runs them. A suite's
// `preset` param and `iofab plan --preset` read this table; docs/models.md
// gives each row's source.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "workloads/checkpoint/model_spec.h"

namespace iofab {

struct ModelPreset {
  std::string_view name;
  std::string_view about;  // one line: what it is and where its numbers come from
  TransformerSpec spec;
  // MLPerf Storage's published checkpoint size in GiB (its table writes "GB"); 0 where none.
  double published_gib = 0;
};

const std::vector<ModelPreset>& model_presets();
// nullptr when no preset has that name.
const ModelPreset* find_model_preset(std::string_view name);
// "llama3-8b, llama3-70b, ...": for messages.
std::string model_preset_names();

}  // namespace iofab
