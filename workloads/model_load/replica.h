// One replica's load: a worker of a rank that loads the whole model, as one inference server's process
// does. Untimed setup makes its engine and its ring of buffers; the timed load opens every file in the
// index's order, streams it front to back through the engine (InOrderReader, block_size at queue_depth;
// with engine mmap each block is a copy out of the mapping: page faults), parses its header and checks
// every tensor byte as it arrives (SafetensorsCheck). The replica is ready when its last file's last byte
// is checked: ready_ns. A file that cannot be read or fails its check is named in bad, and the replica is
// not ready. With a synchronous engine (psync, mmap) the check of block b runs on a thread of its own
// beside the read of block b + 1 (checker): the device does not wait for the check between two reads.
//
// Thread-safety: one Replica is used by one worker thread.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "harness/core/status.h"
#include "harness/engines/beside_thread.h"
#include "harness/engines/engine.h"
#include "harness/engines/io_buffers.h"
#include "harness/phase/bad_file.h"
#include "harness/phase/phase.h"
#include "harness/stats/io_tally.h"
#include "workloads/model_load/params.h"
#include "workloads/model_load/safetensors_ready.h"
#include "workloads/model_load/weights.h"

namespace iofab {

using BadWeightFile = BadFile;

struct Replica {
  std::unique_ptr<Engine> engine;
  IoBuffers ring;
  std::unique_ptr<BesideThread> checker;  // a synchronous engine's: checks one block behind the reads
  IoTally tally;
  uint64_t ready_ns = 0;  // from the phase start; 0: never ready (a bad file, or stopped)
  uint64_t header_ns = 0;
  uint64_t verify_ns = 0;
  uint64_t verified_bytes = 0;
  uint64_t tensors = 0;  // tensors its headers listed
  std::vector<BadWeightFile> bad;
  SafetensorsLoad safetensors;  // safetensors' ready, after the verified read (safetensors_ready.h)
};

// Untimed: the engine named engine (already resolved) and the ring.
Status setup_replica(const PhaseContext& ctx, const ModelLoadParams& p, const std::string& engine,
                     Replica* r);
// Timed from t0: loads every file of folder. Returns an error only when loading cannot go on (stopped:
// Interrupted); a bad file goes to r->bad.
Status load_replica(const PhaseContext& ctx, const ModelLoadParams& p, const std::string& folder,
                    const std::vector<WeightFile>& files, uint64_t t0, Replica* r);

}  // namespace iofab
