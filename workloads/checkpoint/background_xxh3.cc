#include "workloads/checkpoint/background_xxh3.h"

namespace iofab {

void BackgroundXxh3::reset() {
  beside_.wait();
  hash_.reset();
}

void BackgroundXxh3::feed(const void* data, size_t len) {
  if (len == 0) return;
  beside_.post([this, data, len] { hash_.update(data, len); });
}

uint64_t BackgroundXxh3::digest() {
  beside_.wait();
  return hash_.digest();
}

}  // namespace iofab
