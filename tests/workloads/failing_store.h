// A Store that passes every call to another one, except creating a path that ends with a given
// name: that fails, as if the process died there (the files made before it stay as they were).
#pragma once

#include <memory>
#include <string>
#include <utility>

#include "forwarding_store.h"

namespace iofab::testing {

class FailingStore final : public ForwardingStore {
 public:
  FailingStore(std::unique_ptr<Store> inner, std::string fail_suffix)
      : ForwardingStore(std::move(inner)), suffix_(std::move(fail_suffix)) {}

  Status create(std::string_view path, const OpenOptions& opts, StoreFile* out) override {
    if (path.ends_with(suffix_)) {
      ++failed_;
      return Status::IoError("create " + std::string(path) + ": the process died here (FailingStore)");
    }
    return ForwardingStore::create(path, opts, out);
  }

  int failed() const { return failed_; }

 private:
  std::string suffix_;
  int failed_ = 0;
};

}  // namespace iofab::testing
