// The order a loader reads a dataset in, beyond plan_epoch's one global
// shuffle: the access patterns of MLPerf Storage's readers (DLIO), as
// pure logic.
//
// File f holds samples [f * samples_per_file, (f + 1) * samples_per_file),
// the last file fewer; the `files` layout is samples_per_file 1.
//
// Map-style readers (PyTorch's Dataset with a sampler: npz, hdf5, jpeg):
//  - sample_shuffle on: a new permutation of every sample each epoch, rank r
//    taking every n-th (plan_epoch exactly). A uniform permutation of the
//    samples already scatters every file's samples, so file_shuffle changes
//    nothing a storage system can see, and is not applied.
//  - sample_shuffle off: the files in order (file_shuffle off) or in a new
//    permutation each epoch, each file's samples in order, and rank r
//    taking the r-th contiguous block of ceil(n / ranks) of that sequence,
//    as DLIO splits it: a file's samples stay together.
//
// Streaming readers (tf.data over TFRecord files): the files in order or
// permuted (file_shuffle), file k of that order going to rank k % ranks.
// Each rank reads `interleave` of its files at once, a sample from each in
// turn, a finished file's place taken by the rank's next one (tf.data's
// interleave with cycle_length interleave, block_length 1); each file is
// read front to back. With
// sample_shuffle on, a shuffle buffer of shuffle_buffer samples decides the
// order they are consumed in (tf.data's Dataset.shuffle: fill the buffer,
// then hand out a random element and put the next one read in its place).
// A buffer of 1 consumes in read order.
//
// DLIO's PyTorch order (order kDlioTorch; argonne-lcf/dlio_benchmark branch
// mlperf_storage_v2.0, data_loader/torch_data_loader.py dlio_sampler, lines
// 88-107): rank r reads the r-th contiguous block of ceil(n / ranks) sample
// indices, in index order, the same block every epoch; the configured
// shuffles have no effect there (the sampler yields the block as it is).
// Its DataLoader drops a short last batch (drop_last=True, line 148) and
// main.py's _train stops after floor(n / batch / ranks) steps (line 319),
// so a rank reads at most that many whole batches.
//
// `random` shuffles are `seed` shuffles whose seed the run draws once (the
// phase draws it on rank 0 and sends it to every rank), so the ranks agree.
// Every epoch of either kind draws a new order, as DLIO does by default
// (seed_change_epoch).
//
// Thread-safety: pure functions of their arguments.
#pragma once

#include <cstdint>
#include <vector>

#include "workloads/train_read/sampler.h"

namespace iofab {

enum class Shuffle { kOff, kSeed, kRandom };
enum class ReaderKind { kMap, kStream };
// kDefault: the reader and the shuffles decide; kDlioTorch: DLIO's PyTorch sampler (above).
enum class OrderKind { kDefault, kDlioTorch };

const char* shuffle_name(Shuffle s);
const char* reader_kind_name(ReaderKind k);
const char* order_kind_name(OrderKind k);

struct EpochOrder {
  uint64_t num_samples = 0;
  uint64_t samples_per_file = 1;
  ReaderKind reader = ReaderKind::kMap;
  OrderKind kind = OrderKind::kDefault;
  Shuffle file_shuffle = Shuffle::kOff;
  Shuffle sample_shuffle = Shuffle::kSeed;
  uint64_t shuffle_buffer = 1;  // stream with sample_shuffle on
  uint64_t interleave = 1;      // stream: files a rank reads at once (tf.data's num_parallel_reads)
  uint64_t seed = 1;
};

// Rank `rank` of `ranks`: its samples in read order, batches of batch_size
// in consumption order. drop_last drops a final short batch; a streaming
// rank drops it from the end of what it reads, before its shuffle buffer.
BatchPlan plan_ordered_epoch(const EpochOrder& order, uint64_t epoch, int rank, int ranks,
                             uint64_t batch_size, bool drop_last);

// The files in the order an epoch visits them.
std::vector<uint32_t> epoch_file_order(const EpochOrder& order, uint64_t epoch);

// For a stream of n samples through a shuffle buffer of `buffer` samples:
// element i is the place in the output of the i-th sample in. Output k only
// ever holds a sample among the first k + buffer in, so a consumer of output
// k needs reads up to k + buffer - 1.
std::vector<uint32_t> shuffle_buffer_order(uint64_t n, uint64_t buffer, uint64_t seed);

}  // namespace iofab
