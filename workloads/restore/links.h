// The restore's link to the checkpoint it reads back (PhaseKind::links): its `checkpoint` param, or the
// nearest earlier checkpoint phase; and, when it loads tensors, that checkpoint must write a tensor index.
#pragma once

#include <span>

#include "harness/phase/phase_columns.h"

namespace iofab {

std::span<const PhaseLink> restore_links();

}  // namespace iofab
