#include "workloads/collectives/sweep.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <string>

#include "harness/comm/wire.h"
#include "harness/core/packed_u64.h"
#include "harness/phase/params.h"
#include "harness/phase/phase.h"
#include "workloads/collectives/agreement.h"
#include "workloads/collectives/coll_data.h"
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

json SizeSample::to_wire() const {
  // Whole nanoseconds, packed (packed_u64.h): rank 0 reads every rank's; the clocks are no finer.
  std::vector<uint64_t> iters;
  iters.reserve(iter_seconds.size());
  for (double s : iter_seconds) iters.push_back(static_cast<uint64_t>(std::llround(std::max(s, 0.0) * 1e9)));
  return {{"op", coll_op_name(op)},
          {"size", size},
          {"bytes", bytes},
          {"count", count},
          {"in_place", in_place},
          {"iter_ns", pack_u64(iters)},
          {"total_ns", std::llround(total_seconds * 1e9)},
          {"checked", checked},
          {"wrong", wrong}};
}

bool SizeSample::from_json(const json& j, SizeSample* out) {
  std::vector<uint64_t> iter_ns;
  if (!j.is_object() || !j.contains("op") || !j["op"].is_string() || !j.contains("iter_ns") ||
      !unpack_u64(j["iter_ns"], &iter_ns)) {
    return false;
  }
  auto op = parse_coll_op(j["op"].get<std::string>());
  if (!op) return false;
  // Checked reads: a field of the wrong type from another rank is a refusal, never an exception.
  SizeSample v;
  v.op = *op;
  double total_ns = 0;
  WireReader r(j);
  r.optional("size", &v.size)
      .optional("bytes", &v.bytes)
      .optional("count", &v.count)
      .optional("in_place", &v.in_place)
      .optional("total_ns", &total_ns)
      .optional("checked", &v.checked)
      .optional("wrong", &v.wrong);
  if (!r.status().ok()) return false;
  v.iter_seconds.reserve(iter_ns.size());
  for (uint64_t ns : iter_ns) v.iter_seconds.push_back(static_cast<double>(ns) * 1e-9);
  v.total_seconds = total_ns * 1e-9;
  *out = std::move(v);
  return true;
}

std::vector<bool> sweep_placements(const SweepSpec& spec, const CollOpInfo& op) {
  std::vector<bool> out;
  if (spec.out_of_place && op.out_of_place) out.push_back(false);
  if (spec.in_place && op.in_place) out.push_back(true);
  // An op with one placement runs in it whatever the suite asks: its figures are the op's only ones.
  if (out.empty()) out.push_back(op.in_place && !op.out_of_place);
  return out;
}

void sweep_buffer_bytes(const SweepSpec& spec, int ranks, uint64_t* send, uint64_t* recv) {
  const size_t es = dtype_size(spec.dtype);
  *send = 0;
  *recv = 0;
  for (CollOp info : spec.ops) {
    for (uint64_t size : sweep_sizes(spec.min_bytes, spec.max_bytes, spec.factor)) {
      const OpCounts c = info->counts(size / es, ranks, es);
      *send = std::max<uint64_t>(*send, c.send * es);
      *recv = std::max<uint64_t>(*recv, c.recv * es);
      if (info->in_place) *recv = std::max<uint64_t>(*recv, in_place_extent(c, ranks) * es);
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
// A chunk after a mid-run stop check starts with one untimed call (below) when it holds at least
// this many calls: the extra call then costs at most 1/8 of the chunk's time.
constexpr int kSettleMinCalls = 8;

double sweep_seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// A view of part of a buffer the backend allocated (device pointers offset as host ones do).
Buffer slice(const Buffer& b, size_t offset_bytes) {
  return Buffer{static_cast<char*>(b.data) + offset_bytes, b.bytes - std::min(b.bytes, offset_bytes), b.kind};
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
    if (s.ok() && spec_.check) {
      host_send_.resize(send);
      host_recv_.resize(recv);
    }
    return s;
  }

  OpArgs args(const CollOpInfo& info, uint64_t size, bool in_place) const {
    const size_t es = dtype_size(spec_.dtype);
    return OpArgs{info.counts(size / es, comm_.size(), es),
                  spec_.dtype,
                  comm_.rank(),
                  comm_.size(),
                  spec_.root,
                  in_place,
                  spec_.redop};
  }

  // One untimed call of an op at a size: the warm-up of every size, and the size's pace.
  Status warm(const CollOpInfo& info, uint64_t size, double* seconds) {
    *seconds = 0;
    const OpArgs a = args(info, size, false);
    if (a.counts.bus == 0) return Status::Ok();
    const auto t0 = std::chrono::steady_clock::now();
    Status s = call(info, a);
    if (s.ok()) s = coll_.synchronize();
    *seconds = sweep_seconds_since(t0);
    return s;
  }

  // pace: seconds per call at this size, the slowest rank's, from the warm-up pass.
  Status measure(const CollOpInfo& info, uint64_t size, bool in_place, double pace, SizeSample* out) {
    const size_t es = dtype_size(spec_.dtype);
    const OpArgs a = args(info, size, in_place);
    out->op = &info;
    out->size = size;
    out->bytes = a.counts.bus * es;
    out->count = a.counts.param;
    out->in_place = in_place;
    if (a.counts.bus == 0) return Status::Ok();
    // The ranks leave the agreement before this at different times; these calls absorb that.
    Status s;
    for (int i = 0; i < spec_.warmup && s.ok(); ++i) s = call(info, a);
    if (s.ok()) s = coll_.synchronize();
    // The iterations run in chunks of about kStopCheckSeconds, and the ranks agree between
    // chunks, outside the timed spans, whether a stop signal came: a launcher ending the job
    // kills the ranks about a second after its signal, and the report must be out before.
    // Fast sizes fit in one chunk, so they are timed exactly as nccl-tests times them.
    std::vector<std::pair<size_t, size_t>> spans;  // each iteration's (start mark, end mark)
    spans.reserve(static_cast<size_t>(spec_.iters));
    double per_iter = pace;
    size_t slot = 0;
    for (int i = 0; i < spec_.iters && s.ok();) {
      // From the slowest rank's pace, so every rank cuts its chunks at the same iterations.
      const int chunk = spec_.stop_check_calls > 0 ? spec_.stop_check_calls
                        : per_iter > 0 ? static_cast<int>(std::clamp(kStopCheckSeconds / per_iter, 1.0, 1e9))
                                       : 1;
      const int end = std::min(spec_.iters, i + chunk);
      // The stop check's verdict is broadcast, so the root leaves it first and would wait out the
      // others inside the chunk's first timed call (measured at 1 MiB on this project's 2-core VM:
      // 2.2x the other calls on rank 0 with 2 ranks, 1.3x with 4). One untimed call puts the ranks back in
      // step, as the warm-up calls do before the first chunk. The chunk length is agreed, so every rank makes
      // it or none does. Chunks of fewer calls (each > 12 ms) skip it: the skew is small against such a call,
      // and the extra call would cost more than 1/8 of the run.
      if (i > 0 && chunk >= kSettleMinCalls) s = call(info, a);
      const auto t0 = std::chrono::steady_clock::now();
      if (s.ok()) s = coll_.mark(slot);
      for (; i < end && s.ok(); ++i) {
        s = call(info, a);
        if (s.ok()) s = coll_.mark(slot + 1);
        spans.emplace_back(slot, slot + 1);
        ++slot;
      }
      ++slot;
      if (s.ok()) s = coll_.synchronize();
      per_iter = sweep_seconds_since(t0) / chunk;
      if (i < spec_.iters) s = agree_to_continue(comm_, s, stop_, &per_iter);
    }
    // A rank out of its last timed call would go straight on to the check's fill, work that never
    // yields: where ranks share cores it takes the core from a rank still inside that call, and the
    // call's time grows (measured at 1 MiB, 4 ranks on 2 cores, 20 iterations: the last call 2.3 to 4.7x
    // the others, on one or two ranks in each of five runs). In the barrier a rank waits as in a call, so the
    // last call ends as the others do. Every rank comes to it, one that failed too.
    const Status out_together = comm_.barrier();
    if (s.ok()) s = out_together;
    out->iter_seconds.assign(spans.size(), 0.0);
    out->total_seconds = 0;
    for (size_t i = 0; i < spans.size() && s.ok(); ++i) {
      s = coll_.seconds_between(spans[i].first, spans[i].second, &out->iter_seconds[i]);
      out->total_seconds += out->iter_seconds[i];
    }
    // Every rank comes to the check's agreement, a rank that failed above too, so none waits alone.
    if (spec_.check) s = check(info, a, s, out);
    return s;
  }

 private:
  Status call(const CollOpInfo& info, const OpArgs& a) {
    if (!a.in_place) return info.run(coll_, send_.get(), recv_.get(), a);
    const size_t es = dtype_size(a.dtype);
    const size_t rank = static_cast<size_t>(a.rank);
    return info.run(coll_, slice(recv_.get(), a.counts.send_in_place * rank * es),
                    slice(recv_.get(), a.counts.recv_in_place * rank * es), a);
  }

  // nccl-tests' check run, after the timed one: fill, one call, compare. In place, the inputs are
  // written over the sentinels at the op's in-place send offset. before: how the timed run ended.
  Status check(const CollOpInfo& info, const OpArgs& a, const Status& before, SizeSample* out) {
    Status s = before;
    const size_t es = dtype_size(a.dtype);
    const size_t rank = static_cast<size_t>(a.rank);
    const size_t extent = (a.in_place ? in_place_extent(a.counts, a.ranks) : a.counts.recv) * es;
    const size_t recv_at = a.in_place ? a.counts.recv_in_place * rank * es : 0;
    if (s.ok() && a.in_place) fill_sentinel(a.dtype, host_recv_.data(), extent / es);
    if (s.ok()) info.fill(a, host_send_.data(), host_recv_.data() + recv_at);
    if (s.ok() && a.in_place && a.counts.send > 0) {
      std::memcpy(host_recv_.data() + a.counts.send_in_place * rank * es, host_send_.data(),
                  a.counts.send * es);
    }
    if (s.ok()) s = coll_.upload(recv_.get(), host_recv_.data(), extent);
    if (s.ok() && !a.in_place && a.counts.send > 0) {
      s = coll_.upload(send_.get(), host_send_.data(), a.counts.send * es);
    }
    // A failed upload on one rank must not leave the others in the call.
    s = agree_to_continue(comm_, s, stop_);
    if (s.ok()) s = call(info, a);
    if (s.ok()) s = coll_.synchronize();
    if (s.ok()) s = coll_.download(host_recv_.data(), recv_.get(), extent);
    if (!s.ok()) return s;
    out->wrong = info.check(a, host_recv_.data() + recv_at);
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
  for (CollOp info : spec.ops) {
    const uint64_t runs = info != nullptr ? sweep_placements(spec, *info).size() : 1;
    for (uint64_t s : sizes) total += s * static_cast<uint64_t>(spec.iters) * runs;
  }
  if (progress != nullptr) progress->total_bytes.fetch_add(total);
  SweepRunner runner(coll, comm, spec, stop);
  Status st = runner.prepare();
  // The warm-up of every size, before any is timed; each size's pace, the slowest rank's.
  std::vector<std::vector<double>> pace(spec.ops.size(), std::vector<double>(sizes.size(), 0.0));
  for (size_t o = 0; o < spec.ops.size(); ++o) {
    for (size_t k = 0; k < sizes.size(); ++k) {
      st = agree_to_continue(comm, spec.ops[o] != nullptr ? st : Status::Internal("no such op"), stop,
                             k > 0 ? &pace[o][k - 1] : nullptr);
      if (!st.ok()) return st;
      st = runner.warm(*spec.ops[o], sizes[k], &pace[o][k]);
    }
    st = agree_to_continue(comm, st, stop, sizes.empty() ? nullptr : &pace[o].back());
    if (!st.ok()) return st;
  }
  for (size_t o = 0; o < spec.ops.size(); ++o) {
    const CollOpInfo& info = *spec.ops[o];
    for (size_t k = 0; k < sizes.size(); ++k) {
      for (bool in_place : sweep_placements(spec, info)) {
        st = agree_to_continue(comm, st, stop);
        if (!st.ok()) return st;
        SizeSample sample;
        st = runner.measure(info, sizes[k], in_place, pace[o][k], &sample);
        out->push_back(std::move(sample));
        if (progress != nullptr) progress->done_bytes.fetch_add(sizes[k] * static_cast<uint64_t>(spec.iters));
      }
    }
  }
  return agree_to_continue(comm, st, stop);
}

}  // namespace iofab
