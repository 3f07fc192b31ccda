#include "harness/results/check_op.h"

#include <cmath>

namespace iofab {

const char* check_op_text(CheckOp op) {
  switch (op) {
    case CheckOp::kGe: return ">=";
    case CheckOp::kLe: return "<=";
    case CheckOp::kGt: return ">";
    case CheckOp::kLt: return "<";
    case CheckOp::kEq: return "==";
  }
  return "?";
}

bool check_passes(CheckOp op, double value, double threshold) {
  if (std::isnan(value)) return false;
  switch (op) {
    case CheckOp::kGe: return value >= threshold;
    case CheckOp::kLe: return value <= threshold;
    case CheckOp::kGt: return value > threshold;
    case CheckOp::kLt: return value < threshold;
    case CheckOp::kEq: return value == threshold;
  }
  return false;
}

}  // namespace iofab
