// The size of the .metadata PyTorch's distributed checkpoint writes last: FileSystemWriter.finish's
// pickle.dump(metadata) (Python 3.11's default protocol, 4, with its 64 KiB frames) of a Metadata whose
// state_dict_metadata maps every tensor's name to a TensorStorageMetadata (properties, size, chunks) and
// whose storage_data maps every record's MetadataIndex (fqn, offset, index) to a _StorageInfo
// (relative_path, offset, length) — torch.distributed._shard.checkpoint in PyTorch 1.13.1 (metadata.py,
// filesystem.py). iofab writes its own JSON index there (what its restore reads), padded with spaces to
// this size, so the commit writes the bytes DCP's would. tests/workloads/checkpoint/torch_framing_test.cc checks the
// size against the real writer where /usr/bin/python3 has torch.
//
// Pure. Thread-safety: reentrant.
#pragma once

#include <cstdint>
#include <vector>

#include "workloads/checkpoint/checkpoint_files.h"

namespace iofab {

// The pickled Metadata's bytes for files (dcp's, every rank's, in rank order): each record a 1-D chunk
// of its tensor, the tensors named as the records name them.
uint64_t dcp_metadata_bytes(const std::vector<PlannedFile>& files);

}  // namespace iofab
