// The bytes torch.save frames tensors with, so a layout that emulates it writes files of the real size
// with every tensor's bytes where torch puts them (PyTorch 1.13.1, Debian's python3-torch, measured by
// tests/workloads/checkpoint/torch_framing_test.cc against the real writer where /usr/bin/python3 has torch).
//
// torch.save(obj, f) (torch/serialization.py, _save; caffe2/serialize/inline_container.cc,
// PyTorchStreamWriter) writes a zip archive, nothing compressed:
//   <a>/data.pkl      the pickle (protocol 2) of obj, each tensor a call of
//                     torch._utils._rebuild_tensor_v2 on a persistent id
//                     ('storage', <dtype>Storage, key, 'cpu', numel); keys "0", "1", ... in pickling order
//   <a>/data/<key>    each storage's bytes, in sorted(keys) order: as strings, so "10" comes before "2"
//   <a>/version       "3\n"
//   the central directory, zip64's end record and locator, the end record.
// Every entry's data starts at a multiple of 64 bytes of the archive: its local header carries an
// extra field "FB" of padding (getPadding). <a> is "archive" when f is a file object (DCP's records),
// the file name's stem when f is a path (torch.save(sd, "rank_0.pt"): "rank_0").
//
// Pure: sizes and offsets, no I/O. Thread-safety: free functions are reentrant.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace iofab {

// One tensor as torch.save sees it: a 1-D tensor of numel elements over its own whole storage.
struct TorchTensor {
  std::string name;               // the state dict's key; unused for a bare tensor
  std::string_view storage_type;  // "BFloat16Storage", "FloatStorage", ... (torch_storage_type)
  uint64_t numel = 0;
  uint64_t bytes = 0;  // numel x the element's bytes
};

// The storage class torch.save pickles for an element of dtype_bytes bytes in a float model: 2
// BFloat16Storage, 4 FloatStorage, 8 DoubleStorage, else ByteStorage (an odd size left by a scale is
// kept as a uint8 tensor of its bytes).
std::string_view torch_storage_type(uint32_t dtype_bytes);
// The tensor a record of bytes becomes: numel = bytes / dtype_bytes, or a uint8 tensor of bytes.
TorchTensor torch_tensor_of(std::string name, uint64_t bytes, uint32_t dtype_bytes);

// data.pkl: the pickle torch.save writes for one bare tensor (dict false: DCP's records) or a dict of
// tensors in their order (dict true: torch.save(state_dict) of a plain dict).
std::string torch_pickle(const std::vector<TorchTensor>& tensors, bool dict);

// Where torch.save puts everything in its archive.
struct TorchArchive {
  std::vector<uint64_t> data_offsets;  // per tensor, in the given order: where its bytes start
  uint64_t pickle_bytes = 0;           // data.pkl
  uint64_t tensor_bytes = 0;           // the tensors' own bytes
  uint64_t bytes = 0;                  // the whole archive
  uint64_t framing_bytes() const { return bytes - tensor_bytes; }
};
TorchArchive torch_archive(std::string_view archive_name, const std::vector<TorchTensor>& tensors, bool dict);

// The order torch.save writes storages: the tensors' indexes sorted by their keys as strings.
std::vector<size_t> torch_storage_order(size_t tensors);

// The zip arithmetic, apart so tests can check it by hand. A stored entry of name_bytes (the full name,
// "archive/data/0") and data bytes whose local header starts at cursor: where its data starts, 64-aligned.
uint64_t torch_zip_data_start(uint64_t cursor, uint64_t name_bytes, uint64_t data_bytes);
// Its central-directory header's bytes (46 + the name + zip64's extra where the size or offset needs it).
uint64_t torch_zip_central_bytes(uint64_t local_offset, uint64_t name_bytes, uint64_t data_bytes);
// The archive's end: zip64's end record (56) and locator (20), then the end record (22).
inline constexpr uint64_t kTorchZipEndBytes = 56 + 20 + 22;

// A file name's stem, as PyTorchStreamWriter names the archive of a path: "rank_0.pt" -> "rank_0".
std::string torch_archive_name_of(std::string_view file_name);

}  // namespace iofab
