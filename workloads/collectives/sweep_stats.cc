#include "workloads/collectives/sweep_stats.h"

#include <algorithm>
#include <cmath>

namespace iofab {

using nlohmann::json;

json SizeStats::to_json() const {
  json j = {{"op", coll_op_name(op)}, {"size", size}, {"bytes", bytes}, {"count", count}, {"ran", ran}};
  if (!ran) return j;
  j.update({{"time_across_ranks", time_across_ranks_name(across)},
            {"mean_s", mean_s},
            // nccl-tests' "time (us)" column, beside its algbw and busbw.
            {"time_us", mean_s * 1e6},
            {"p50_s", p50_s},
            {"p99_s", p99_s},
            {"algbw", algbw},
            {"busbw", busbw},
            {"checked", checked},
            {"wrong", wrong},
            {"skew", skew},
            {"rank_mean_s", rank_mean_s}});
  return j;
}

double percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const double rank = std::ceil(std::clamp(p, 0.0, 1.0) * static_cast<double>(v.size()));
  const size_t idx = rank < 1 ? 0 : static_cast<size_t>(rank) - 1;
  return v[std::min(idx, v.size() - 1)];
}

bool merge_sweep(const std::vector<std::vector<SizeSample>>& per_rank, TimeAcrossRanks across,
                 std::vector<SizeStats>* out) {
  out->clear();
  if (per_rank.empty()) return true;
  const int ranks = static_cast<int>(per_rank.size());
  const size_t n = per_rank[0].size();
  for (const auto& r : per_rank) {
    if (r.size() != n) return false;
  }
  for (size_t k = 0; k < n; ++k) {
    const SizeSample& first = per_rank[0][k];
    SizeStats s;
    s.op = first.op;
    s.size = first.size;
    s.bytes = first.bytes;
    s.count = first.count;
    s.in_place = first.in_place;
    s.across = across;
    s.ran = first.bytes > 0 && !first.iter_seconds.empty();
    const size_t iters = first.iter_seconds.size();
    // by_iter[i][r]: rank r's time for iteration i.
    std::vector<std::vector<double>> by_iter(iters, std::vector<double>(per_rank.size(), 0.0));
    s.checked = true;
    for (int r = 0; r < ranks; ++r) {
      const SizeSample& x = per_rank[static_cast<size_t>(r)][k];
      if (x.op != s.op || x.size != s.size || x.bytes != s.bytes || x.in_place != s.in_place ||
          x.iter_seconds.size() != iters) {
        return false;
      }
      for (size_t i = 0; i < iters; ++i) by_iter[i][static_cast<size_t>(r)] = x.iter_seconds[i];
      s.rank_mean_s.push_back(iters == 0 ? 0 : x.total_seconds / static_cast<double>(iters));
      s.checked = s.checked && x.checked;
      s.wrong += x.wrong;
    }
    if (s.ran) {
      std::vector<double> per_iter;
      per_iter.reserve(iters);
      for (const auto& times : by_iter) per_iter.push_back(combine_across_ranks(across, times));
      const double slowest = *std::max_element(s.rank_mean_s.begin(), s.rank_mean_s.end());
      const double fastest = *std::min_element(s.rank_mean_s.begin(), s.rank_mean_s.end());
      s.mean_s = combine_across_ranks(across, s.rank_mean_s);
      s.p50_s = percentile(per_iter, 0.50);
      s.p99_s = percentile(per_iter, 0.99);
      s.algbw = algbw(static_cast<double>(s.bytes), s.mean_s);
      s.busbw = busbw(s.op, ranks, static_cast<double>(s.bytes), s.mean_s);
      s.skew = slowest > 0 ? (slowest - fastest) / slowest : 0;
    } else {
      s.checked = false;
      s.rank_mean_s.clear();
    }
    out->push_back(std::move(s));
  }
  return true;
}

}  // namespace iofab
