#include "workloads/checkpoint/torch_framing.h"

#include <algorithm>
#include <numeric>

namespace iofab {
namespace {

constexpr uint64_t kU32Max = 0xFFFFFFFFULL;
constexpr uint64_t kTorchAlign = 64;     // PyTorchStreamWriter's kFieldAlignment
constexpr uint64_t kLocalHeader = 30;    // MZ_ZIP_LOCAL_DIR_HEADER_SIZE
constexpr uint64_t kCentralHeader = 46;  // MZ_ZIP_CENTRAL_DIR_HEADER_SIZE
constexpr std::string_view kTorchVersion = "3\n";

// The zip64 extra field miniz adds where a size or an offset passes 32 bits: its id and length, the two
// sizes, the offset.
uint64_t zip64_extra(uint64_t offset, uint64_t data_bytes) {
  if (data_bytes < kU32Max && offset < kU32Max) return 0;
  return 4 + (data_bytes >= kU32Max ? 16 : 0) + (offset >= kU32Max ? 8 : 0);
}

// A protocol-2 pickler for what torch.save pickles here: it keeps Python's memo numbering, so every
// BINPUT and BINGET has the width Python's gives it.
class Pickle {
 public:
  std::string out;

  void op(char c) { out.push_back(c); }
  void u32(uint64_t v) {
    for (int i = 0; i < 4; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
  }
  // Memoizes the object just written (BINPUT, LONG_BINPUT past 255); returns its memo index.
  uint64_t put() {
    const uint64_t i = memo_++;
    if (i < 256) {
      op('q');
      op(static_cast<char>(i));
    } else {
      op('r');
      u32(i);
    }
    return i;
  }
  void get(uint64_t i) {
    if (i < 256) {
      op('h');
      op(static_cast<char>(i));
    } else {
      op('j');
      u32(i);
    }
  }
  // BININT1, BININT2, BININT, LONG1 as Python's save_long picks them (non-negative here).
  void integer(uint64_t v) {
    if (v <= 0xff) {
      op('K');
      op(static_cast<char>(v));
    } else if (v <= 0xffff) {
      op('M');
      for (int i = 0; i < 2; ++i) op(static_cast<char>((v >> (8 * i)) & 0xff));
    } else if (v <= 0x7fffffff) {
      op('J');
      u32(v);
    } else {
      int bits = 0;
      for (uint64_t x = v; x != 0; x >>= 1) ++bits;
      const int n = bits / 8 + 1;  // two's complement: room for the sign bit
      op('\x8a');
      op(static_cast<char>(n));
      for (int i = 0; i < n; ++i) op(static_cast<char>(i < 8 ? (v >> (8 * i)) & 0xff : 0));
    }
  }
  void text(std::string_view s) {  // BINUNICODE, memoized
    op('X');
    u32(s.size());
    out.append(s);
    put();
  }
  // A string or a global Python keeps as one object: written and memoized once, then fetched.
  void once(std::string_view key, std::string_view written) {
    for (const auto& [k, i] : seen_) {
      if (k == key) return get(i);
    }
    out.append(written);
    seen_.emplace_back(std::string(key), put());
  }
  void tensor(const TorchTensor& t, uint64_t key);

 private:
  uint64_t memo_ = 0;
  std::vector<std::pair<std::string, uint64_t>> seen_;
};

std::string binunicode(std::string_view s) {
  std::string o = "X";
  for (int i = 0; i < 4; ++i) o.push_back(static_cast<char>((s.size() >> (8 * i)) & 0xff));
  return o.append(s);
}

// Tensor.__reduce_ex__: _rebuild_tensor_v2(storage, 0, (numel,), (1,), False, OrderedDict()), the
// storage by its persistent id.
void Pickle::tensor(const TorchTensor& t, uint64_t key) {
  once("rebuild", "ctorch._utils\n_rebuild_tensor_v2\n");
  op('(');
  op('(');  // the persistent id
  once("storage", binunicode("storage"));
  once(t.storage_type, "ctorch\n" + std::string(t.storage_type) + "\n");
  text(std::to_string(key));
  once("cpu", binunicode("cpu"));
  integer(t.numel);
  op('t');
  put();
  op('Q');           // BINPERSID
  integer(0);        // storage_offset
  integer(t.numel);  // size
  op('\x85');        // TUPLE1
  put();
  integer(1);  // stride
  op('\x85');
  put();
  op('\x89');  // NEWFALSE: requires_grad
  once("OrderedDict", "ccollections\nOrderedDict\n");
  op(')');  // EMPTY_TUPLE
  op('R');  // REDUCE
  put();
  op('t');  // the arguments' TUPLE
  put();
  op('R');
  put();  // the tensor
}

}  // namespace

std::string_view torch_storage_type(uint32_t dtype_bytes) {
  switch (dtype_bytes) {
    case 2:
      return "BFloat16Storage";
    case 4:
      return "FloatStorage";
    case 8:
      return "DoubleStorage";
    default:
      return "ByteStorage";
  }
}

TorchTensor torch_tensor_of(std::string name, uint64_t bytes, uint32_t dtype_bytes) {
  TorchTensor t{.name = std::move(name), .storage_type = "ByteStorage", .numel = bytes, .bytes = bytes};
  if (dtype_bytes > 1 && bytes % dtype_bytes == 0 && torch_storage_type(dtype_bytes) != "ByteStorage") {
    t.storage_type = torch_storage_type(dtype_bytes);
    t.numel = bytes / dtype_bytes;
  }
  return t;
}

std::string torch_pickle(const std::vector<TorchTensor>& tensors, bool dict) {
  Pickle p;
  p.out = "\x80\x02";  // PROTO 2
  if (!dict) {
    if (!tensors.empty()) p.tensor(tensors[0], 0);
  } else {
    p.op('}');  // EMPTY_DICT
    p.put();
    // Python's batch_dict_exact: one item as SETITEM, else batches of 1000 (MARK ... SETITEMS), with an
    // empty batch after a full one.
    constexpr size_t kBatch = 1000;
    if (tensors.size() == 1) {
      p.text(tensors[0].name);
      p.tensor(tensors[0], 0);
      p.op('s');
    } else if (!tensors.empty()) {
      size_t i = 0;
      size_t in_batch = 0;
      do {
        in_batch = 0;
        p.op('(');
        for (; i < tensors.size() && in_batch < kBatch; ++i, ++in_batch) {
          p.text(tensors[i].name);
          p.tensor(tensors[i], i);
        }
        p.op('u');
      } while (in_batch == kBatch);
    }
  }
  p.op('.');  // STOP
  return p.out;
}

std::vector<size_t> torch_storage_order(size_t tensors) {
  std::vector<size_t> order(tensors);
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(),
            [](size_t a, size_t b) { return std::to_string(a) < std::to_string(b); });
  return order;
}

uint64_t torch_zip_data_start(uint64_t cursor, uint64_t name_bytes, uint64_t data_bytes) {
  const uint64_t start = cursor + kLocalHeader + name_bytes + 4 + zip64_extra(cursor, data_bytes);
  return (start + kTorchAlign - 1) / kTorchAlign * kTorchAlign;
}

uint64_t torch_zip_central_bytes(uint64_t local_offset, uint64_t name_bytes, uint64_t data_bytes) {
  return kCentralHeader + name_bytes + zip64_extra(local_offset, data_bytes);
}

TorchArchive torch_archive(std::string_view archive_name, const std::vector<TorchTensor>& tensors,
                           bool dict) {
  const std::vector<TorchTensor> first(tensors.begin(), tensors.begin() + (dict ? tensors.size() : 1));
  TorchArchive a;
  a.pickle_bytes = torch_pickle(first, dict).size();
  a.data_offsets.assign(first.size(), 0);
  for (const TorchTensor& t : first) a.tensor_bytes += t.bytes;
  const std::string prefix = std::string(archive_name) + "/";
  uint64_t cursor = 0;
  uint64_t central = 0;
  const auto entry = [&](const std::string& name, uint64_t bytes) {
    const uint64_t start = torch_zip_data_start(cursor, prefix.size() + name.size(), bytes);
    central += torch_zip_central_bytes(cursor, prefix.size() + name.size(), bytes);
    const uint64_t descriptor = zip64_extra(cursor, bytes) == 0 ? 16 : 24;
    // The data descriptor after the data (flag bit 3): its signature, crc and sizes, 64-bit with zip64.
    cursor = start + bytes + descriptor;
    return start;
  };
  entry("data.pkl", a.pickle_bytes);
  for (size_t i : torch_storage_order(first.size())) {
    a.data_offsets[i] = entry("data/" + std::to_string(i), first[i].bytes);
  }
  entry(std::string("version"), kTorchVersion.size());
  a.bytes = cursor + central + kTorchZipEndBytes;
  return a;
}

std::string torch_archive_name_of(std::string_view file_name) {
  const size_t slash = file_name.find_last_of('/');
  std::string_view base = slash == std::string_view::npos ? file_name : file_name.substr(slash + 1);
  const size_t dot = base.find_last_of('.');
  return std::string(dot == std::string_view::npos ? base : base.substr(0, dot));
}

}  // namespace iofab
