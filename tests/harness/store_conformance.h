// The Store contract's fixture: every store runs the same tests (store_conformance_test.cc), through the
// Store and Engine interfaces only (bytes go through the engine the store names, as a phase's do). Each
// store is one instantiation: the POSIX and memory stores in store_conformance_test.cc, the S3 store
// against a real s3rver in store_conformance_curl_test.cc.
#pragma once

#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <string>

#include "harness/store/store.h"
#include "harness/store/store_bytes.h"

namespace iofab::testing {

// A store for one test, and whatever must outlive it (a temporary folder).
struct StoreUnderTest {
  std::unique_ptr<Store> store;
  std::shared_ptr<void> keep;
};

struct StoreParam {
  std::string name;
  // Opens an empty store for the test named test; *skip says why it cannot run here (and Ok comes back).
  std::function<Status(const std::string& test, StoreUnderTest* out, std::string* skip)> open;
};

class StoreConformance : public ::testing::TestWithParam<StoreParam> {
 protected:
  void SetUp() override {
    std::string skip;
    const std::string test = ::testing::UnitTest::GetInstance()->current_test_info()->name();
    ASSERT_TRUE(GetParam().open(test, &sut_, &skip).ok());
    if (!skip.empty()) GTEST_SKIP() << skip;
    store_ = sut_.store.get();
  }

  // Writes text into a new file at path, through the store's engine, and commits it.
  Status put(const std::string& path, const std::string& text) {
    StoreFile f;
    if (Status s = store_->create(path, {}, &f); !s.ok()) return s;
    if (Status s = write_store_file(*store_, f, text); !s.ok()) return s;
    return store_->sync(f);
  }

  std::string get(const std::string& path) {
    StoreFile f;
    Status s = store_->open(path, {}, &f);
    std::string out;
    if (s.ok()) s = read_store_file(*store_, f, 1 << 20, &out);
    return s.ok() ? out : "<" + s.message() + ">";
  }

  // Real folders: a folder exists once made; otherwise (an object store) a prefix exists once something
  // is below it.
  bool has_folders() const { return store_->caps().folders; }

  StoreUnderTest sut_;
  Store* store_ = nullptr;
};

}  // namespace iofab::testing
