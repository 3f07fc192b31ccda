#include "mem_bucket.h"

#include <chrono>

namespace iofab::mem {
namespace {

int64_t unix_ns_now() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::mutex buckets_mu;
std::map<std::string, std::shared_ptr<MemBucket>>& buckets() {
  static std::map<std::string, std::shared_ptr<MemBucket>> all;
  return all;
}

}  // namespace

void MemBucket::put(const std::string& key, std::string bytes) {
  auto stored = std::make_shared<const std::string>(std::move(bytes));
  std::lock_guard<std::mutex> lock(mu_);
  objects_[key] = MemObject{.bytes = std::move(stored), .modified_unix_ns = unix_ns_now()};
  ++puts_;
}

MemObject MemBucket::get(const std::string& key) const {
  std::lock_guard<std::mutex> lock(mu_);
  const auto it = objects_.find(key);
  return it == objects_.end() ? MemObject{} : it->second;
}

std::map<std::string, MemObject> MemBucket::list(const std::string& prefix) const {
  std::lock_guard<std::mutex> lock(mu_);
  std::map<std::string, MemObject> out;
  for (auto it = objects_.lower_bound(prefix); it != objects_.end() && it->first.starts_with(prefix); ++it) {
    out.insert(*it);
  }
  return out;
}

void MemBucket::remove(const std::string& key) {
  std::lock_guard<std::mutex> lock(mu_);
  objects_.erase(key);
}

uint64_t MemBucket::remove_prefix(const std::string& prefix) {
  std::lock_guard<std::mutex> lock(mu_);
  uint64_t n = 0;
  auto it = objects_.lower_bound(prefix);
  while (it != objects_.end() && it->first.starts_with(prefix)) {
    it = objects_.erase(it);
    ++n;
  }
  return n;
}

uint64_t MemBucket::puts() const {
  std::lock_guard<std::mutex> lock(mu_);
  return puts_;
}

std::shared_ptr<MemBucket> mem_bucket(const std::string& name) {
  std::lock_guard<std::mutex> lock(buckets_mu);
  auto& b = buckets()[name];
  if (b == nullptr) b = std::make_shared<MemBucket>(name);
  return b;
}

void forget_mem_buckets() {
  std::lock_guard<std::mutex> lock(buckets_mu);
  buckets().clear();
}

}  // namespace iofab::mem
