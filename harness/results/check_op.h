// A check's comparison: how a suite states a threshold, how the runner judges
// a measured value, and how a report (read back by compare) names it.
#pragma once

namespace iofab {

enum class CheckOp { kGe, kLe, kGt, kLt, kEq };

// ">=", "<=", ">", "<", "=="
const char* check_op_text(CheckOp op);
// NaN never passes.
bool check_passes(CheckOp op, double value, double threshold);

}  // namespace iofab
