// The bytes of a checkpoint's tensors, as a pure function of (run seed,
// step, tensor key, byte offset in the whole tensor): any slice of any
// tensor can be made again and compared, by a restore with another
// parallelism that reads a piece no writer wrote alone. The bytes are the
// default data's stream (harness/engines/data_fill.h) keyed by (seed, step,
// tensor) at the offset in the tensor: incompressible at any window and never
// repeating, so dedup or compression cannot report fiction.
// With compressibility or dedup asked for (Reducibility), the content is
// instead ReducibleFiller's blocks of a stream of the tensor's own, in 4 KiB
// chunks that fall on the 4 KiB boundaries of the file holding the bytes
// (file_phase: the record's file offset - its tensor offset), so a
// filesystem that dedups 4 KiB blocks finds the duplicate chunks though
// records are packed back to back; duplicates repeat an earlier chunk of the
// same tensor. A record's first and last chunk are cut where it starts and ends.
//
// Thread-safety: reentrant.
#pragma once

#include <cstddef>
#include <cstdint>

#include "harness/engines/data_fill.h"

namespace iofab {

// The unit a tensor's reducible content is made in (its dedup unit), counted from the tensor's start.
constexpr uint64_t kTensorChunk = 4096;

// Fills buf with bytes [offset, offset + len) of tensor key's content at step.
void fill_tensor_bytes(uint64_t seed, uint64_t step, uint64_t key, uint64_t offset, unsigned char* buf,
                       size_t len, const Reducibility& reduce = {}, uint64_t file_phase = 0);
// Whether buf holds exactly those bytes; *first_bad gets the offset (in the tensor) of the first byte
// that differs.
bool check_tensor_bytes(uint64_t seed, uint64_t step, uint64_t key, uint64_t offset, const unsigned char* buf,
                        size_t len, uint64_t* first_bad, const Reducibility& reduce = {},
                        uint64_t file_phase = 0);

}  // namespace iofab
