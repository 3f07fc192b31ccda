// model_load's link (PhaseKind::links): weights_from names an earlier model_load phase that wrote its own
// files (not one that itself reads another's).
#pragma once

#include <span>

#include "harness/phase/phase_columns.h"

namespace iofab {

std::span<const PhaseLink> model_load_links();

}  // namespace iofab
