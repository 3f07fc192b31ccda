// Comms that misbehave, for tests of what rides on the control plane: one
// that sends a forged answer in place of its rank's own, and one that has
// lost its peers.
#pragma once

#include <string>
#include <vector>

#include "harness/comm/comm.h"
#include "harness/comm/wire.h"

namespace iofab::testing {

// Another Comm, except that this rank's gathers send `forged` instead of what the caller gave:
// written as JSON text for the reader, sent in the wire's form (wire_bytes) when it is JSON, and
// as its raw bytes when not (a malformed answer).
class ForgingComm final : public Comm {
 public:
  ForgingComm(Comm& inner, const std::string& forged) : inner_(inner), forged_(encode(forged)) {}
  std::string_view name() const override { return inner_.name(); }
  int rank() const override { return inner_.rank(); }
  int size() const override { return inner_.size(); }
  Status barrier() override { return inner_.barrier(); }
  Status broadcast(std::string* s, int root) override { return inner_.broadcast(s, root); }
  Status gather(const std::string&, std::vector<std::string>* all, int root) override {
    return inner_.gather(forged_, all, root);
  }
  Status all_gather(double mine, std::vector<double>* all) override { return inner_.all_gather(mine, all); }
  void abort(int exit_code) override { inner_.abort(exit_code); }

 private:
  static std::string encode(const std::string& text) {
    const nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
    return j.is_discarded() ? text : wire_bytes(j);
  }

  Comm& inner_;
  std::string forged_;
};

// Rank 0 of two whose peer stopped answering: every call fails as MpiComm's do after the rank
// timeout, naming rank 1, and the Comm is failed().
class LostPeerComm final : public Comm {
 public:
  static constexpr const char* kFailure = "during gather: lost contact with rank 1 within 1 s (rank timeout)";
  std::string_view name() const override { return "lost"; }
  int rank() const override { return 0; }
  int size() const override { return 2; }
  Status barrier() override { return fail(); }
  Status broadcast(std::string*, int) override { return fail(); }
  Status gather(const std::string&, std::vector<std::string>* all, int) override {
    all->clear();
    return fail();
  }
  Status all_gather(double, std::vector<double>* all) override {
    all->clear();
    return fail();
  }
  void abort(int) override {}

 private:
  Status fail() {
    failed_ = true;
    lost_ = {1};
    return Status::IoError(kFailure);
  }
};

}  // namespace iofab::testing
