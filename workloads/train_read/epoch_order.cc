#include "workloads/train_read/epoch_order.h"

#include <algorithm>
#include <numeric>

#include "harness/core/mix.h"

namespace iofab {

namespace {

// Keys the file permutation apart from the sample permutation of the same seed and epoch.
constexpr uint64_t kFileKey = 0x243f6a8885a308d3ULL;

uint64_t file_count(const EpochOrder& o) {
  const uint64_t per = std::max<uint64_t>(o.samples_per_file, 1);
  return (o.num_samples + per - 1) / per;
}

// The samples of the files in `files`, each file's in order.
std::vector<uint32_t> samples_of(const EpochOrder& o, const std::vector<uint32_t>& files) {
  const uint64_t per = std::max<uint64_t>(o.samples_per_file, 1);
  std::vector<uint32_t> out;
  out.reserve(files.size() * per);
  for (uint32_t f : files) {
    const uint64_t first = static_cast<uint64_t>(f) * per;
    const uint64_t end = std::min(o.num_samples, first + per);
    for (uint64_t s = first; s < end; ++s) out.push_back(static_cast<uint32_t>(s));
  }
  return out;
}

// The samples of `files` read `cycle` files at a time, one sample from each in turn; a finished file's
// place in the cycle goes to the next file.
std::vector<uint32_t> interleaved(const EpochOrder& o, const std::vector<uint32_t>& files, uint64_t cycle) {
  if (cycle <= 1) return samples_of(o, files);
  const uint64_t per = std::max<uint64_t>(o.samples_per_file, 1);
  struct Open {
    uint64_t next, end;
  };
  std::vector<Open> open;
  size_t next_file = 0;
  auto open_next = [&]() -> bool {
    if (next_file >= files.size()) return false;
    const uint64_t first = static_cast<uint64_t>(files[next_file++]) * per;
    open.push_back({first, std::min(o.num_samples, first + per)});
    return true;
  };
  while (open.size() < cycle && open_next()) {
  }
  std::vector<uint32_t> out;
  while (!open.empty()) {
    for (size_t i = 0; i < open.size();) {
      out.push_back(static_cast<uint32_t>(open[i].next++));
      if (open[i].next < open[i].end) {
        ++i;
        continue;
      }
      // The finished file's slot takes the next file, which joins the cycle at this position.
      if (next_file < files.size()) {
        const uint64_t first = static_cast<uint64_t>(files[next_file++]) * per;
        open[i] = {first, std::min(o.num_samples, first + per)};
        ++i;
      } else {
        open.erase(open.begin() + static_cast<ptrdiff_t>(i));
      }
    }
  }
  return out;
}

void drop_short_batch(std::vector<uint32_t>* samples, uint64_t batch_size) {
  samples->resize(samples->size() - samples->size() % batch_size);
}

// DLIO's PyTorch sampler: the rank's contiguous block in index order, whole batches, at most
// floor(n / batch / ranks) of them (see epoch_order.h).
BatchPlan dlio_torch_plan(uint64_t n, uint64_t r, uint64_t n_ranks, uint64_t batch_size) {
  BatchPlan plan;
  plan.batch_size = batch_size;
  const uint64_t per_rank = (n + n_ranks - 1) / n_ranks;
  const uint64_t begin = std::min(n, r * per_rank);
  const uint64_t end = std::min(n, begin + per_rank);
  const uint64_t max_steps = n / batch_size / n_ranks;
  const uint64_t steps = std::min((end - begin) / batch_size, max_steps);
  for (uint64_t i = begin; i < begin + steps * batch_size; ++i)
    plan.samples.push_back(static_cast<uint32_t>(i));
  return plan;
}

}  // namespace

const char* order_kind_name(OrderKind k) { return k == OrderKind::kDlioTorch ? "dlio_torch" : "default"; }

const char* shuffle_name(Shuffle s) {
  switch (s) {
    case Shuffle::kOff:
      return "off";
    case Shuffle::kSeed:
      return "seed";
    case Shuffle::kRandom:
      return "random";
  }
  return "off";
}

const char* reader_kind_name(ReaderKind k) { return k == ReaderKind::kStream ? "stream" : "map"; }

std::vector<uint32_t> epoch_file_order(const EpochOrder& o, uint64_t epoch) {
  const uint64_t files = file_count(o);
  if (o.file_shuffle == Shuffle::kOff) {
    std::vector<uint32_t> in_order(files);
    std::iota(in_order.begin(), in_order.end(), 0u);
    return in_order;
  }
  return epoch_permutation(files, o.seed ^ kFileKey, epoch);
}

std::vector<uint32_t> shuffle_buffer_order(uint64_t n, uint64_t buffer, uint64_t seed) {
  std::vector<uint32_t> place(n);
  if (buffer <= 1) {
    std::iota(place.begin(), place.end(), 0u);
    return place;
  }
  // The buffer holds positions in the input; each output draws one slot.
  std::vector<uint32_t> held;
  held.reserve(std::min(n, buffer));
  uint64_t next_in = 0;
  while (next_in < n && held.size() < buffer) held.push_back(static_cast<uint32_t>(next_in++));
  const uint64_t key = fmix64(seed ^ 0x13198a2e03707344ULL);
  for (uint64_t out = 0; out < n; ++out) {
    // A multiply-high draw: its bias, under held.size() / 2^64, cannot show in any order a test could
    // tell apart.
    const uint64_t h = fmix64(key + (out + 1) * kGolden);
    const auto j = static_cast<size_t>((static_cast<Uint128>(h) * held.size()) >> 64);
    place[held[j]] = static_cast<uint32_t>(out);
    if (next_in < n) {
      held[j] = static_cast<uint32_t>(next_in++);
    } else {
      held[j] = held.back();
      held.pop_back();
    }
  }
  return place;
}

BatchPlan plan_ordered_epoch(const EpochOrder& o, uint64_t epoch, int rank, int ranks, uint64_t batch_size,
                             bool drop_last) {
  if (o.kind == OrderKind::kDlioTorch && ranks > 0 && rank >= 0 && rank < ranks) {
    return dlio_torch_plan(o.num_samples, static_cast<uint64_t>(rank), static_cast<uint64_t>(ranks),
                           batch_size == 0 ? 1 : batch_size);
  }
  if (o.reader == ReaderKind::kMap && o.sample_shuffle != Shuffle::kOff) {
    return plan_epoch(o.num_samples, o.seed, epoch, rank, ranks, batch_size, drop_last);
  }
  BatchPlan plan;
  plan.batch_size = batch_size == 0 ? 1 : batch_size;
  if (ranks <= 0 || rank < 0 || rank >= ranks) return plan;
  const auto n_ranks = static_cast<uint64_t>(ranks);
  const auto r = static_cast<uint64_t>(rank);
  const std::vector<uint32_t> files = epoch_file_order(o, epoch);

  if (o.reader == ReaderKind::kMap) {
    const std::vector<uint32_t> all = samples_of(o, files);
    const uint64_t per_rank = (all.size() + n_ranks - 1) / n_ranks;
    const uint64_t begin = std::min<uint64_t>(all.size(), r * per_rank);
    const uint64_t end = std::min<uint64_t>(all.size(), begin + per_rank);
    plan.samples.assign(all.begin() + static_cast<ptrdiff_t>(begin),
                        all.begin() + static_cast<ptrdiff_t>(end));
    if (drop_last) drop_short_batch(&plan.samples, plan.batch_size);
    return plan;
  }

  std::vector<uint32_t> mine;
  for (uint64_t k = r; k < files.size(); k += n_ranks) mine.push_back(files[k]);
  plan.samples = interleaved(o, mine, o.interleave);
  if (drop_last) drop_short_batch(&plan.samples, plan.batch_size);
  if (o.sample_shuffle != Shuffle::kOff && o.shuffle_buffer > 1) {
    const uint64_t seed = fmix64(o.seed ^ fmix64(epoch + kGolden)) ^ fmix64(r + 0xa4093822299f31d0ULL);
    plan.consume = shuffle_buffer_order(plan.samples.size(), o.shuffle_buffer, seed);
    plan.lookahead = o.shuffle_buffer - 1;
  }
  return plan;
}

}  // namespace iofab
