// An in-process data plane for tests: each rank's Collectives on host
// memory, its collectives computed from every rank's bytes swapped through
// a ThreadCommHub (tests/thread_comm.h) of its own, as MPI's duplicated
// communicator keeps the data plane apart. Reductions compute in double and
// store in the dtype (avg: the sum / ranks), which is exact for the small integers the sweep's
// checked data holds. Every call, mark, upload and download is appended to
// `log` (one letter each), so a test can see what ran inside a timed span.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "harness/comm/collectives.h"
#include "thread_comm.h"
#include "workloads/collectives/coll_data.h"

namespace iofab::testing {

class ThreadCollectives final : public Collectives {
 public:
  ThreadCollectives(ThreadCommHub& hub, int rank, int size) : hub_(hub), rank_(rank), size_(size) {}

  std::string_view name() const override { return "threads"; }
  int rank() const override { return rank_; }
  int size() const override { return size_; }
  MemoryKind memory() const override { return MemoryKind::kHost; }
  std::string describe() const override { return "host memory, threads"; }
  Status allocate(size_t bytes, Buffer* out) override {
    *out = Buffer{std::calloc(std::max<size_t>(bytes, 1), 1), bytes, MemoryKind::kHost};
    return Status::Ok();
  }
  void release(Buffer* b) override {
    std::free(b->data);
    *b = Buffer{};
  }
  Status upload(const Buffer& d, const void* s, size_t n) override {
    if (uploads_left_ok >= 0 && uploads_left_ok-- == 0) return Status::IoError("injected upload failure");
    log += 'U';
    std::memcpy(d.data, s, n);
    return Status::Ok();
  }
  Status download(void* d, const Buffer& s, size_t n) override {
    log += 'D';
    std::memcpy(d, s.data, n);
    return Status::Ok();
  }

  Status all_reduce(const Buffer& send, const Buffer& recv, size_t count, DType t, RedOp op) override {
    const auto all = swap(send, count, t);
    for (size_t i = 0; i < count; ++i) store_value(t, recv.data, i, reduce_at(all, i, t, op));
    return Status::Ok();
  }
  Status all_gather(const Buffer& send, const Buffer& recv, size_t count, DType t) override {
    const auto all = swap(send, count, t);
    for (size_t p = 0; p < all.size(); ++p) copy_block(all[p], 0, recv, p * count, count, t);
    return Status::Ok();
  }
  Status reduce_scatter(const Buffer& send, const Buffer& recv, size_t count, DType t, RedOp op) override {
    const auto all = swap(send, count * static_cast<size_t>(size_), t);
    for (size_t i = 0; i < count; ++i)
      store_value(t, recv.data, i, reduce_at(all, static_cast<size_t>(rank_) * count + i, t, op));
    return Status::Ok();
  }
  Status broadcast(const Buffer& buf, size_t count, DType t, int root) override {
    const auto all = swap(buf, count, t);
    copy_block(all[static_cast<size_t>(root)], 0, buf, 0, count, t);
    return Status::Ok();
  }
  Status reduce(const Buffer& send, const Buffer& recv, size_t count, DType t, RedOp op, int root) override {
    const auto all = swap(send, count, t);
    if (rank_ != root) return Status::Ok();
    for (size_t i = 0; i < count; ++i) store_value(t, recv.data, i, reduce_at(all, i, t, op));
    return Status::Ok();
  }
  Status all_to_all(const Buffer& send, const Buffer& recv, size_t count, DType t) override {
    const auto all = swap(send, count * static_cast<size_t>(size_), t);
    for (size_t p = 0; p < all.size(); ++p)
      copy_block(all[p], static_cast<size_t>(rank_) * count, recv, p * count, count, t);
    return Status::Ok();
  }
  Status gather(const Buffer& send, const Buffer& recv, size_t count, DType t, int root) override {
    const auto all = swap(send, count, t);
    if (rank_ != root) return Status::Ok();
    for (size_t p = 0; p < all.size(); ++p) copy_block(all[p], 0, recv, p * count, count, t);
    return Status::Ok();
  }
  Status scatter(const Buffer& send, const Buffer& recv, size_t count, DType t, int root) override {
    const auto all = swap(send, rank_ == root ? count * static_cast<size_t>(size_) : 0, t);
    copy_block(all[static_cast<size_t>(root)], static_cast<size_t>(rank_) * count, recv, 0, count, t);
    return Status::Ok();
  }
  Status send_recv(const Buffer& send, const Buffer& recv, size_t count, DType t) override {
    const auto all = swap(send, count, t);
    copy_block(all[static_cast<size_t>((rank_ - 1 + size_) % size_)], 0, recv, 0, count, t);
    return Status::Ok();
  }

  Status synchronize() override { return Status::Ok(); }
  Status mark(size_t slot) override {
    log += 'M';
    if (slot >= marks_.size()) marks_.resize(slot + 1);
    marks_[slot] = std::chrono::steady_clock::now();
    return Status::Ok();
  }
  Status seconds_between(size_t a, size_t b, double* seconds) override {
    *seconds = std::chrono::duration<double>(marks_.at(b) - marks_.at(a)).count();
    return Status::Ok();
  }

  std::string log;           // C call, M mark, U upload, D download (and what a LoggingComm adds)
  int uploads_left_ok = -1;  // >= 0: that many uploads succeed, then one fails

 private:
  // Every rank's first `count` elements of buf, copied before any rank writes (so in place works).
  std::vector<std::string> swap(const Buffer& buf, size_t count, DType t) {
    log += 'C';
    return hub_.exchange(rank_, std::string(static_cast<const char*>(buf.data), count * dtype_size(t)));
  }
  static double reduce_at(const std::vector<std::string>& all, size_t i, DType t, RedOp op) {
    double v = op == RedOp::kProd ? 1 : op == RedOp::kMin ? 1e300 : op == RedOp::kMax ? -1e300 : 0;
    for (const auto& b : all) {
      const double x = load_value(t, b.data(), i);
      v = op == RedOp::kProd  ? v * x
          : op == RedOp::kMin ? std::min(v, x)
          : op == RedOp::kMax ? std::max(v, x)
                              : v + x;
    }
    return op == RedOp::kAvg ? v / static_cast<double>(all.size()) : v;
  }
  static void copy_block(const std::string& from, size_t from_at, const Buffer& to, size_t to_at,
                         size_t count, DType t) {
    const size_t es = dtype_size(t);
    std::memcpy(static_cast<char*>(to.data) + to_at * es, from.data() + from_at * es, count * es);
  }

  ThreadCommHub& hub_;
  int rank_;
  int size_;
  std::vector<std::chrono::steady_clock::time_point> marks_;
};

// A Comm that notes each control-plane round ('A') in a log, then passes it on.
class LoggingComm final : public Comm {
 public:
  LoggingComm(Comm& inner, std::string* log) : inner_(inner), log_(log) {}
  std::string_view name() const override { return inner_.name(); }
  int rank() const override { return inner_.rank(); }
  int size() const override { return inner_.size(); }
  Status barrier() override { return note(inner_.barrier()); }
  Status broadcast(std::string* s, int root) override { return note(inner_.broadcast(s, root)); }
  Status gather(const std::string& mine, std::vector<std::string>* all, int root) override {
    return note(inner_.gather(mine, all, root));
  }
  Status all_gather(double mine, std::vector<double>* all) override {
    return note(inner_.all_gather(mine, all));
  }
  void abort(int code) override { inner_.abort(code); }

 private:
  Status note(Status s) {
    *log_ += 'A';
    return s;
  }
  Comm& inner_;
  std::string* log_;
};

}  // namespace iofab::testing
