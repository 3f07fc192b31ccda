#include "harness/engines/fill_ahead.h"

namespace iofab {

void FillAhead::take(uint64_t i, bool more, IoRequest& req) {
  beside_.wait();
  const auto slot = static_cast<size_t>(i % 2);
  void* buf = ring_.at(slot);
  if (ahead_ != i) make_(i, buf);  // the first block (or, had the writer skipped one, any)
  req.buf = buf;
  req.buf_index = static_cast<int>(slot);
  ahead_ = more ? i + 1 : kNone;
  if (more) beside_.post([this, next = i + 1] { make_(next, ring_.at(next % 2)); });
}

}  // namespace iofab
