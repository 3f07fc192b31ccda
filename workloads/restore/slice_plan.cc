#include "workloads/restore/slice_plan.h"

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>

#include "workloads/checkpoint/checkpoint_files.h"
#include "workloads/checkpoint/tensor_plan.h"

namespace iofab {
namespace {

struct Held {
  size_t shard = 0;
  const FileRecord* record = nullptr;
};

}  // namespace

Status restore_target(const Manifest& m, const nlohmann::json* reshard_to, const std::string& field,
                      TransformerSpec* out) {
  if (!m.model || m.shards.empty() || m.shards.front().records.empty()) {
    return Status::Invalid(field + ": the checkpoint has no tensor index (its manifest lists no model and no "
                                   "records): write it with a model and layout \"dcp\" or \"megatron\"");
  }
  if (m.model->formula != ModelFormula::kExact) {
    return Status::Invalid(field + ": the checkpoint follows DLIO's rules (model.formula \"dlio\"), whose "
                                   "rounded pieces do not add up to whole tensors; write it with formula \"exact\"");
  }
  TransformerSpec spec = *m.model;
  if (reshard_to != nullptr) {
    if (Status s = parse_model_spec(*reshard_to, field, &spec); !s.ok()) return s;
    if (Status s = check_model_spec(spec, field); !s.ok()) return s;
  }
  *out = spec;
  return Status::Ok();
}

Status plan_slice_reads(const Manifest& m, const TransformerSpec& target, bool weights_only, int rank,
                        int ranks, unsigned workers, SlicePlan* out) {
  // Every record of the checkpoint by tensor, in the tensor's byte order.
  std::map<uint64_t, std::vector<Held>> index;
  for (size_t s = 0; s < m.shards.size(); ++s) {
    for (const FileRecord& r : m.shards[s].records) index[r.key].push_back({s, &r});
  }
  for (auto& [key, held] : index) {
    std::sort(held.begin(), held.end(),
              [](const Held& a, const Held& b) { return a.record->tensor_offset < b.record->tensor_offset; });
  }
  const uint64_t readers = static_cast<uint64_t>(ranks) * workers;
  out->per_worker.assign(workers, {});
  // Every rank loads all it holds, replicas included: kAll.
  const auto all = all_rank_tensors(target, ReplicaWriter::kAll);
  for (uint64_t planned = 0; planned < all.size(); ++planned) {
    const uint64_t g = planned % readers;
    const bool mine = static_cast<int>(g % static_cast<uint64_t>(ranks)) == rank;
    for (const RankTensor& t : all[planned]) {
      if (weights_only && t.state != TensorState::kWeights) continue;
      const ScaledSpan want = scaled_span(t, m.scale);
      if (want.bytes == 0) continue;
      const uint64_t key = tensor_key(t);
      const auto it = index.find(key);
      uint64_t covered = 0;
      if (it != index.end()) {
        // The first record that ends past the start of the piece, then every one that overlaps it.
        auto h = std::partition_point(it->second.begin(), it->second.end(), [&](const Held& x) {
          return x.record->tensor_offset + x.record->bytes <= want.offset;
        });
        // Copies of one piece (replicas every holder wrote) cover the same bytes: each byte is read
        // once, from the first file that holds it.
        uint64_t cursor = want.offset;
        for (; h != it->second.end() && h->record->tensor_offset < want.offset + want.bytes; ++h) {
          const FileRecord& r = *h->record;
          const uint64_t from = std::max(cursor, r.tensor_offset);
          const uint64_t to = std::min(want.offset + want.bytes, r.tensor_offset + r.bytes);
          if (from >= to) continue;
          cursor = to;
          covered += to - from;
          out->all_bytes += to - from;
          ++out->all_slices;
          if (to - from < r.bytes) ++out->all_partial;
          if (!mine) continue;
          SliceRead sr{h->shard, r.file_offset + (from - r.tensor_offset), to - from, key, from,
                       to - from < r.bytes};
          out->per_worker[g / static_cast<uint64_t>(ranks)].push_back(sr);
          out->bytes += sr.bytes;
          ++out->slices;
          if (sr.partial) ++out->partial;
        }
      }
      if (covered != want.bytes) {
        return Status::Invalid("the checkpoint holds " + std::to_string(covered) + " of the " +
                               std::to_string(want.bytes) + " bytes of " + tensor_name(t) + " that rank " +
                               std::to_string(planned) + " loads (bytes " + std::to_string(want.offset) + " to " +
                               std::to_string(want.offset + want.bytes) + " of the tensor)");
      }
    }
  }
  for (auto& slices : out->per_worker) {
    std::stable_sort(slices.begin(), slices.end(), [](const SliceRead& a, const SliceRead& b) {
      return a.shard != b.shard ? a.shard < b.shard : a.file_offset < b.file_offset;
    });
  }
  return Status::Ok();
}

}  // namespace iofab
