// An Engine that hands every call to another one: the base of test decorators
// (a delay per I/O, an injected error) that override only what they change.
#pragma once

#include <memory>

#include "harness/engines/engine.h"

namespace iofab::testing {

class ForwardingEngine : public Engine {
 public:
  explicit ForwardingEngine(std::unique_ptr<Engine> inner) : inner_(std::move(inner)) {}

  std::string_view name() const override { return inner_->name(); }
  EngineCaps caps() const override { return inner_->caps(); }
  Status add_file(int fd, int* index) override { return inner_->add_file(fd, index); }
  // A descriptor goes through add_file, so a decorator that overrides add_file sees every file the
  // phases hand in; an object goes to the inner engine.
  Status add_store_file(const StoreFile& f, int* index) override {
    return f.object() != nullptr ? inner_->add_store_file(f, index) : Engine::add_store_file(f, index);
  }
  Status remove_file(int index) override { return inner_->remove_file(index); }
  Status register_buffers(std::span<const iovec> bufs) override { return inner_->register_buffers(bufs); }
  QueueResult queue(const IoRequest& req, IoCompletion* done) override { return inner_->queue(req, done); }
  Status commit() override { return inner_->commit(); }
  Status reap(unsigned min_complete, std::span<IoCompletion> out, unsigned* n) override {
    return inner_->reap(min_complete, out, n);
  }
  unsigned in_flight() const override { return inner_->in_flight(); }
  Status fsync(int file) override { return inner_->fsync(file); }

 protected:
  std::unique_ptr<Engine> inner_;
};

}  // namespace iofab::testing
