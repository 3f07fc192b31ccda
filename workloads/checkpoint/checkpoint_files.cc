#include "workloads/checkpoint/checkpoint_files.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "workloads/checkpoint/shard_layout.h"
#include "workloads/checkpoint/torch_framing.h"

namespace iofab {
namespace {

uint64_t scaled(uint64_t bytes, double scale) {
  if (scale == 1) return bytes;
  return static_cast<uint64_t>(std::floor(static_cast<double>(bytes) / scale));
}

FileRecord record_of(const RankTensor& t, uint64_t rank, double scale) {
  const ScaledSpan s = scaled_span(t, scale);
  FileRecord r;
  r.tensor = tensor_name(t);
  // Under DLIO's rules every rank's piece of a tensor starts at 0: the rank keeps their bytes apart,
  // or storage that deduplicates would keep one copy.
  r.key = t.whole == 0 ? tensor_key(t) ^ (0x9e3779b97f4a7c15ULL * (rank + 1)) : tensor_key(t);
  r.bytes = s.bytes;
  r.tensor_offset = s.offset;
  r.tensor_bytes = t.whole == 0 ? 0 : scaled(t.whole * t.dtype_bytes, scale);
  r.weights = t.state == TensorState::kWeights;
  r.dtype_bytes = t.dtype_bytes;
  return r;
}

// How the records sit in their file: back to back (kNone); each its own torch.save archive, as DCP's
// _write_item writes a tensor (kTorchRecords); or all in one torch.save of the state dict, the file a
// zip whose data.pkl comes first and whose storages follow in torch's key order (kTorchSave).
enum class Framing { kNone, kTorchRecords, kTorchSave };

// Places f's records (in the order written) as framing puts them; sets f's bytes.
void place_records(Framing framing, const std::vector<uint32_t>& dtype_bytes, PlannedFile* f) {
  if (framing == Framing::kTorchSave) {
    std::vector<TorchTensor> tensors;
    for (size_t i = 0; i < f->records.size(); ++i) {
      tensors.push_back(torch_tensor_of(f->records[i].tensor, f->records[i].bytes, dtype_bytes[i]));
    }
    const TorchArchive a = torch_archive(torch_archive_name_of(f->path), tensors, true);
    for (size_t i = 0; i < f->records.size(); ++i) {
      f->records[i].file_offset = a.data_offsets[i];
      f->records[i].frame_offset = a.data_offsets[i];
      f->records[i].frame_bytes = f->records[i].bytes;
    }
    // A reader finds a record by its offset: the file's records in the order they lie in it.
    std::stable_sort(f->records.begin(), f->records.end(),
                     [](const FileRecord& x, const FileRecord& y) { return x.file_offset < y.file_offset; });
    f->bytes = f->records.empty() ? 0 : a.bytes;
    return;
  }
  f->bytes = 0;
  for (size_t i = 0; i < f->records.size(); ++i) {
    FileRecord& r = f->records[i];
    r.frame_offset = f->bytes;
    if (framing == Framing::kNone) {
      r.file_offset = f->bytes;
      r.frame_bytes = r.bytes;
      f->bytes += r.bytes;
      continue;
    }
    const TorchArchive a =
        torch_archive("archive", {torch_tensor_of(r.tensor, r.bytes, dtype_bytes[i])}, false);
    r.file_offset = f->bytes + a.data_offsets[0];
    r.frame_bytes = a.bytes;
    f->bytes += a.bytes;
  }
}

// keep_empty: the file is written even with no record (dcp creates and fsyncs every file it plans).
void add_file(std::string path, uint64_t rank, const std::vector<const RankTensor*>& tensors, double scale,
              bool align, std::vector<PlannedFile>* out, bool keep_empty = false,
              Framing framing = Framing::kNone) {
  PlannedFile f;
  f.path = std::move(path);
  f.plan_rank = rank;
  std::vector<uint32_t> dtype_bytes;
  for (const RankTensor* t : tensors) {
    FileRecord r = record_of(*t, rank, scale);
    if (r.bytes == 0) continue;
    f.records.push_back(std::move(r));
    dtype_bytes.push_back(t->dtype_bytes);
  }
  if (f.records.empty() && !keep_empty) return;
  place_records(framing, dtype_bytes, &f);
  if (align) f.bytes = (f.bytes + kShardAlign - 1) / kShardAlign * kShardAlign;
  out->push_back(std::move(f));
}

// filesystem.py (PyTorch 2.5, commit b639d82): write_data puts one file per bucket of
// _split_by_size_and_type in the queue, an empty bucket too; _write_files_from_queue creates, writes and
// fsyncs each. With one thread and a device to copy from, its _OverlappingCpuLoader sorts the file's
// tensors by size, ascending (a stable sort: equal sizes keep the plan's order), before writing them; an
// async save stages first (per_thread_copy_ahead 0) and its _SerialCpuLoader keeps the plan's order.
void dcp_files(const TransformerSpec& spec, ReplicaWriter writer, unsigned threads, double scale, bool align,
               bool staged, Framing framing, std::vector<PlannedFile>* out) {
  const auto all = all_rank_tensors(spec, writer);
  for (uint64_t r = 0; r < all.size(); ++r) {
    std::vector<std::vector<const RankTensor*>> bins(threads);
    if (threads == 1) {
      for (const RankTensor& t : all[r]) bins[0].push_back(&t);
      if (!staged) {
        std::stable_sort(bins[0].begin(), bins[0].end(),
                         [](const RankTensor* a, const RankTensor* b) { return a->bytes() < b->bytes(); });
      }
    } else {
      std::vector<const RankTensor*> by_size;
      for (const RankTensor& t : all[r]) by_size.push_back(&t);
      std::stable_sort(by_size.begin(), by_size.end(),
                       [](const RankTensor* a, const RankTensor* b) { return a->bytes() > b->bytes(); });
      std::vector<uint64_t> sizes(threads, 0);
      for (const RankTensor* t : by_size) {
        const size_t i = static_cast<size_t>(std::min_element(sizes.begin(), sizes.end()) - sizes.begin());
        bins[i].push_back(t);
        sizes[i] += t->bytes();
      }
    }
    for (unsigned i = 0; i < threads; ++i) {
      add_file("__" + std::to_string(r) + "_" + std::to_string(i) + ".distcp", r, bins[i], scale, align, out,
               true, framing);
    }
  }
}

// torch.save(state_dict, "rank_R.pt") on every rank with something to write: its tensors in the state
// dict's order (weights, then each tensor's master and moments), one archive.
void torch_save_files(const TransformerSpec& spec, ReplicaWriter writer, double scale, bool align,
                      std::vector<PlannedFile>* out) {
  const auto all = all_rank_tensors(spec, writer);
  for (uint64_t r = 0; r < all.size(); ++r) {
    std::vector<const RankTensor*> tensors;
    for (const RankTensor& t : all[r]) tensors.push_back(&t);
    add_file(torch_save_file_name(r), r, tensors, scale, align, out, false, Framing::kTorchSave);
  }
}

void megatron_files(const TransformerSpec& spec, double scale, bool align, std::vector<PlannedFile>* out) {
  // The first data-parallel rank of each tensor x pipeline group holds its whole piece: plan that rank
  // as if alone (no data parallelism), with every tensor rank's copy of the norms, as each writes its own.
  TransformerSpec one = spec;
  one.data = 1;
  one.zero = 0;
  for (uint64_t p = 0; p < spec.pipeline; ++p) {
    for (uint64_t t = 0; t < spec.tensor; ++t) {
      const uint64_t rank = t + spec.tensor * p;
      const std::vector<RankTensor> tensors = rank_tensors(one, rank, ReplicaWriter::kAll);
      char folder[64];
      if (spec.pipeline == 1) {
        std::snprintf(folder, sizeof folder, "mp_rank_%02llu", static_cast<unsigned long long>(t));
      } else {
        std::snprintf(folder, sizeof folder, "mp_rank_%02llu_%03llu", static_cast<unsigned long long>(t),
                      static_cast<unsigned long long>(p));
      }
      std::vector<const RankTensor*> model;
      std::vector<const RankTensor*> optimizer;
      for (const RankTensor& x : tensors) (x.state == TensorState::kWeights ? model : optimizer).push_back(&x);
      if (spec.zero == 0) {
        model.insert(model.end(), optimizer.begin(), optimizer.end());
        add_file(std::string(folder) + "/model_optim_rng.pt", rank, model, scale, align, out);
        continue;
      }
      // save_checkpoint writes the distributed optimizer's state first (optimizer.save_parameter_state,
      // under "Save distributed optimizer's custom parameter state."), then torch.save of the model's.
      std::vector<const RankTensor*> flat;
      for (TensorState st : {TensorState::kMaster, TensorState::kMoment1, TensorState::kMoment2}) {
        for (auto it = optimizer.rbegin(); it != optimizer.rend(); ++it) {
          if ((*it)->state == st) flat.push_back(*it);
        }
      }
      add_file(std::string(folder) + "/distrib_optim.pt", rank, flat, scale, align, out);
      add_file(std::string(folder) + "/model_optim_rng.pt", rank, model, scale, align, out);
    }
  }
}

}  // namespace

ScaledSpan scaled_span(const RankTensor& t, double scale) {
  const uint64_t begin = t.offset * t.dtype_bytes;
  const uint64_t end = begin + t.bytes();
  if (t.whole == 0) return {0, std::max<uint64_t>(scaled(t.bytes(), scale), 1)};
  const uint64_t b = scaled(begin, scale);
  return {b, scaled(end, scale) - b};
}

std::string torch_save_file_name(uint64_t rank) { return "rank_" + std::to_string(rank) + ".pt"; }

std::vector<PlannedFile> plan_checkpoint_files(const TransformerSpec& spec, ReplicaWriter writer,
                                               CheckpointLayoutKind layout, unsigned threads, double scale,
                                               bool align, bool staged, bool raw) {
  std::vector<PlannedFile> out;
  if (layout == CheckpointLayoutKind::kDcp) {
    dcp_files(spec, writer, std::max(threads, 1u), scale, align, staged,
              raw ? Framing::kNone : Framing::kTorchRecords, &out);
  }
  if (layout == CheckpointLayoutKind::kTorchSave) torch_save_files(spec, writer, scale, align, &out);
  if (layout == CheckpointLayoutKind::kMegatron) megatron_files(spec, scale, align, &out);
  return out;
}

}  // namespace iofab
