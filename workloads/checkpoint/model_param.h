// A suite's model: `preset` (a row of presets.h) and `model` (its fields over the preset's, or over the
// defaults), as the checkpoint and model_load phases read them. Every error names its JSON path.
#pragma once

#include "workloads/checkpoint/model_spec.h"

namespace iofab {

class ParamReader;

// False when neither preset nor model is given (*spec untouched). Otherwise *valid says whether *spec
// holds the model; each error went to r, one a line, naming its field.
bool read_model_param(ParamReader& r, TransformerSpec* spec, bool* valid);

}  // namespace iofab
