#include "workloads/collectives/sweep.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <string>

#include "harness/phase/params.h"
#include "harness/phase/phase.h"
#include "workloads/collectives/agreement.h"
#include "workloads/collectives/coll_ops.h"

namespace iofab {

using nlohmann::json;

std::vector<uint64_t> sweep_sizes(uint64_t min_bytes, uint64_t max_bytes, double factor) {
  std::vector<uint64_t> out;
  for (uint64_t s = min_bytes; s <= max_bytes;) {
    out.push_back(s);
    const double next = std::floor(static_cast<double>(s) * factor);
    if (next >= 1.8e19) break;
    s = std::max(s + 1, static_cast<uint64_t>(next));
  }
  return out;
}

json SizeSample::to_json() const {
  json iters = json::array();
  // Whole nanoseconds keep the gathered text short; the clocks are no finer.
  for (double s : iter_seconds) iters.push_back(std::llround(s * 1e9));
  return {{"op", coll_op_name(op)}, {"size", size},     {"bytes", bytes},
          {"count", count},         {"iter_ns", iters}, {"total_ns", std::llround(total_seconds * 1e9)},
          {"checked", checked},     {"wrong", wrong}};
}

bool SizeSample::from_json(const json& j, SizeSample* out) {
  if (!j.is_object() || !j.contains("op") || !j["op"].is_string() || !j.contains("iter_ns") ||
      !j["iter_ns"].is_array()) {
    return false;
  }
  auto op = parse_coll_op(j["op"].get<std::string>());
  if (!op) return false;
  out->op = *op;
  out->size = j.value("size", uint64_t{0});
  out->bytes = j.value("bytes", uint64_t{0});
  out->count = j.value("count", uint64_t{0});
  out->iter_seconds.clear();
  for (const auto& v : j["iter_ns"]) {
    if (!v.is_number()) return false;
    out->iter_seconds.push_back(v.get<double>() * 1e-9);
  }
  out->total_seconds = j.value("total_ns", 0.0) * 1e-9;
  out->checked = j.value("checked", false);
  out->wrong = j.value("wrong", uint64_t{0});
  return true;
}

void sweep_buffer_bytes(const SweepSpec& spec, int ranks, uint64_t* send, uint64_t* recv) {
  const size_t es = dtype_size(spec.dtype);
  *send = 0;
  *recv = 0;
  for (CollOp info : spec.ops) {
    for (uint64_t size : sweep_sizes(spec.min_bytes, spec.max_bytes, spec.factor)) {
      const OpCounts c = info->counts(size / es, ranks);
      *send = std::max<uint64_t>(*send, c.send * es);
      *recv = std::max<uint64_t>(*recv, c.recv * es);
    }
  }
}

void check_sweep_bounds(ParamReader& r, uint64_t min_bytes, uint64_t max_bytes, double factor) {
  if (max_bytes < min_bytes) {
    r.fail("max_bytes", "must be >= min_bytes (" + std::to_string(min_bytes) + ")");
  } else if (factor <= 1 && max_bytes > min_bytes) {
    r.fail("factor", "must be > 1 when max_bytes > min_bytes, so the sweep ends");
  } else if (sweep_sizes(min_bytes, max_bytes, factor).size() > 1000) {
    r.fail("factor", "makes more than 1000 sizes from min_bytes to max_bytes; use a larger factor");
  }
}

namespace {

constexpr double kStopCheckSeconds = 0.1;

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

class SweepRunner {
 public:
  SweepRunner(Collectives& coll, Comm& comm, const SweepSpec& spec, const std::atomic<bool>& stop)
      : coll_(coll), comm_(comm), spec_(spec), stop_(stop) {}

  Status prepare() {
    uint64_t send = 0, recv = 0;
    sweep_buffer_bytes(spec_, comm_.size(), &send, &recv);
    Status s = send_.allocate(coll_, send);
    if (s.ok()) s = recv_.allocate(coll_, recv);
    if (s.ok() && spec_.check && coll_.memory() == MemoryKind::kDevice) {
      host_send_.resize(send);
      host_recv_.resize(recv);
    }
    return s;
  }

  Status measure(const CollOpInfo& info, uint64_t size, SizeSample* out) {
    const size_t es = dtype_size(spec_.dtype);
    const OpArgs a{info.counts(size / es, comm_.size()), spec_.dtype, comm_.rank(), comm_.size(), spec_.root};
    out->op = &info;
    out->size = size;
    out->bytes = a.counts.bus * es;
    out->count = a.counts.param;
    if (a.counts.bus == 0) return Status::Ok();
    Status s = spec_.check ? fill(info, a) : Status::Ok();
    // A failed fill still meets the others at the barrier; the next agreement stops everyone.
    Status b = comm_.barrier();
    if (!s.ok() || !b.ok()) return s.ok() ? b : s;
    auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < spec_.warmup && s.ok(); ++i) s = info.run(coll_, send_.get(), recv_.get(), a);
    if (s.ok()) s = coll_.synchronize();
    double per_iter = spec_.warmup > 0 ? seconds_since(t0) / spec_.warmup : 0.0;
    s = agree_to_continue(comm_, s, stop_, &per_iter);
    // The iterations run in chunks of about kStopCheckSeconds, and the ranks agree between
    // chunks, outside the timed spans, whether a stop signal came: a launcher ending the job
    // kills the ranks about a second after its signal, and the report must be out before.
    // Fast sizes fit in one chunk, so they are timed exactly as nccl-tests times them.
    std::vector<std::pair<size_t, size_t>> spans;  // each iteration's (start mark, end mark)
    size_t slot = 0;
    for (int i = 0; i < spec_.iters && s.ok();) {
      // From the slowest rank's pace, so every rank cuts its chunks at the same iterations.
      const int chunk = per_iter > 0 ? static_cast<int>(std::clamp(kStopCheckSeconds / per_iter, 1.0, 1e9)) : 1;
      const int end = std::min(spec_.iters, i + chunk);
      t0 = std::chrono::steady_clock::now();
      s = coll_.mark(slot);
      for (; i < end && s.ok(); ++i) {
        s = info.run(coll_, send_.get(), recv_.get(), a);
        if (s.ok()) s = coll_.mark(slot + 1);
        spans.emplace_back(slot, slot + 1);
        ++slot;
      }
      ++slot;
      if (s.ok()) s = coll_.synchronize();
      per_iter = seconds_since(t0) / chunk;
      if (i < spec_.iters) s = agree_to_continue(comm_, s, stop_, &per_iter);
    }
    out->iter_seconds.assign(spans.size(), 0.0);
    out->total_seconds = 0;
    for (size_t i = 0; i < spans.size() && s.ok(); ++i) {
      s = coll_.seconds_between(spans[i].first, spans[i].second, &out->iter_seconds[i]);
      out->total_seconds += out->iter_seconds[i];
    }
    if (s.ok() && spec_.check) s = check(info, a, out);
    return s;
  }

 private:
  Status fill(const CollOpInfo& info, const OpArgs& a) {
    const size_t es = dtype_size(a.dtype);
    if (coll_.memory() == MemoryKind::kHost) {
      info.fill(a, send_.get().data, recv_.get().data);
      return Status::Ok();
    }
    info.fill(a, host_send_.data(), host_recv_.data());
    Status s =
        a.counts.send > 0 ? coll_.upload(send_.get(), host_send_.data(), a.counts.send * es) : Status::Ok();
    return s.ok() ? coll_.upload(recv_.get(), host_recv_.data(), a.counts.recv * es) : s;
  }

  Status check(const CollOpInfo& info, const OpArgs& a, SizeSample* out) {
    const void* recv = recv_.get().data;
    if (coll_.memory() == MemoryKind::kDevice) {
      Status s = coll_.download(host_recv_.data(), recv_.get(), a.counts.recv * dtype_size(a.dtype));
      if (!s.ok()) return s;
      recv = host_recv_.data();
    }
    out->wrong = info.check(a, recv);
    out->checked = true;
    return Status::Ok();
  }

  Collectives& coll_;
  Comm& comm_;
  const SweepSpec& spec_;
  const std::atomic<bool>& stop_;
  OwnedBuffer send_;
  OwnedBuffer recv_;
  std::vector<unsigned char> host_send_;
  std::vector<unsigned char> host_recv_;
};

}  // namespace

Status run_sweep(Collectives& coll, Comm& comm, const SweepSpec& spec, const std::atomic<bool>& stop,
                 Progress* progress, std::vector<SizeSample>* out) {
  out->clear();
  const auto sizes = sweep_sizes(spec.min_bytes, spec.max_bytes, spec.factor);
  uint64_t total = 0;
  for (size_t i = 0; i < spec.ops.size(); ++i) {
    for (uint64_t s : sizes) total += s * static_cast<uint64_t>(spec.iters);
  }
  if (progress != nullptr) progress->total_bytes.fetch_add(total);
  SweepRunner runner(coll, comm, spec, stop);
  Status st = runner.prepare();
  for (CollOp info : spec.ops) {
    for (uint64_t size : sizes) {
      st = agree_to_continue(comm, info != nullptr ? st : Status::Internal("no such op"), stop);
      if (!st.ok()) return st;
      SizeSample sample;
      st = runner.measure(*info, size, &sample);
      out->push_back(std::move(sample));
      if (progress != nullptr) progress->done_bytes.fetch_add(size * static_cast<uint64_t>(spec.iters));
    }
  }
  return agree_to_continue(comm, st, stop);
}

}  // namespace iofab
