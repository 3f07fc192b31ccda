#include "workloads/checkpoint/dcp_metadata.h"

#include <map>
#include <string>
#include <string_view>

#include "workloads/checkpoint/torch_framing.h"

namespace iofab {
namespace {

constexpr uint64_t kFrameTarget = 64 * 1024;  // pickle's _FRAME_SIZE_TARGET
constexpr uint64_t kFrameHeader = 9;          // FRAME and its 8-byte length
constexpr size_t kBatch = 1000;               // pickle's BATCHSIZE for dict items and list appends

// Counts the bytes of a protocol-4 pickle as Python's C pickler writes it: MEMOIZE (one byte) after every
// memoized object, BINGET or LONG_BINGET by the memo's size, a frame committed at the first object boundary
// past 64 KiB.
class Pickle4 {
 public:
  void op(uint64_t bytes = 1) { body_ += bytes; }
  uint64_t memo() {
    op();
    return memo_++;
  }
  void get(uint64_t i) { op(i < 256 ? 2 : 5); }
  uint64_t text(std::string_view s) {
    op(s.size() < 256 ? 2 + s.size() : 5 + s.size());
    return memo();
  }
  void integer(uint64_t v) {
    if (v <= 0xff) return op(2);
    if (v <= 0xffff) return op(3);
    if (v <= 0x7fffffff) return op(5);
    int bits = 0;
    for (uint64_t x = v; x != 0; x >>= 1) ++bits;
    op(2 + bits / 8 + 1);
  }
  // An object Python pickles once and then fetches: key names it; emit writes it and returns its memo.
  template <class Emit>
  void once(const std::string& key, Emit emit) {
    if (const auto it = seen_.find(key); it != seen_.end()) return get(it->second);
    seen_[key] = emit();
  }
  // A module-level name: the module's string (once), the name's, STACK_GLOBAL, memoized.
  void global(const std::string& module, const std::string& name) {
    once(module + "." + name, [&] {
      once("str:" + module, [&] { return text(module); });
      text(name);
      op();  // STACK_GLOBAL
      return memo();
    });
  }
  void key(const std::string& k) {
    once("str:" + k, [&] { return text(k); });
  }
  void boundary() {
    if (body_ - frame_start_ >= kFrameTarget) {
      ++frames_;
      frame_start_ = body_;
    }
  }
  uint64_t bytes() const {  // PROTO, the frames and their bodies (STOP in the last)
    const uint64_t last = body_ + 1 - frame_start_;
    return 2 + body_ + 1 + kFrameHeader * (frames_ + (last >= 4 ? 1 : 0));
  }

 private:
  uint64_t body_ = 0;
  uint64_t frame_start_ = 0;
  uint64_t memo_ = 0;
  uint64_t frames_ = 0;
  std::map<std::string, uint64_t> seen_;
};

const std::string kMetadataModule = "torch.distributed._shard.checkpoint.metadata";
const std::string kShardedModule = "torch.distributed._shard.sharded_tensor.metadata";

// A dataclass instance: its class, EMPTY_TUPLE, NEWOBJ, MEMOIZE, then its __dict__ (EMPTY_DICT, MEMOIZE,
// MARK, the fields, SETITEMS; one field: SETITEM) and BUILD.
template <class Fields>
void instance(Pickle4& p, const std::string& module, const std::string& cls, Fields fields) {
  p.global(module, cls);
  p.op(2);  // EMPTY_TUPLE NEWOBJ
  p.memo();
  p.op();  // EMPTY_DICT
  p.memo();
  p.op();  // MARK
  fields();
  p.op(2);  // SETITEMS BUILD
  p.boundary();
}

// torch.Size([v]): the class, ((v,),), REDUCE.
void torch_size(Pickle4& p, uint64_t v) {
  p.global("torch", "Size");
  p.integer(v);
  p.op();  // TUPLE1
  p.memo();
  p.op();  // TUPLE1
  p.memo();
  p.op();  // REDUCE
  p.memo();
  p.boundary();
}

std::string dtype_of(std::string_view storage) {
  if (storage == "BFloat16Storage") return "bfloat16";
  if (storage == "FloatStorage") return "float32";
  if (storage == "DoubleStorage") return "float64";
  return "uint8";
}

// TensorProperties(dtype, torch.strided, False, torch.contiguous_format, False): __getstate__'s tuple.
void properties(Pickle4& p, const std::string& dtype) {
  p.key("properties");
  p.global(kShardedModule, "TensorProperties");
  p.op(2);
  p.memo();
  p.op();  // MARK
  p.once("dtype:" + dtype, [&] {
    p.once("str:torch-dtype", [&] { return p.text("torch"); });
    p.text(dtype);
    p.op();
    return p.memo();
  });
  p.once("layout", [&] {
    p.global("torch.serialization", "_get_layout");
    p.text("torch.strided");
    p.op();  // TUPLE1
    p.memo();
    p.op();  // REDUCE
    return p.memo();
  });
  p.op();  // NEWFALSE
  p.once("memory_format", [&] {
    p.global("builtins", "getattr");
    p.global(kShardedModule, "MEM_FORMAT_ENCODING");
    p.text("TORCH_CONTIGUOUS_FORMAT");
    p.op();  // TUPLE2
    p.memo();
    p.op();  // REDUCE
    return p.memo();
  });
  p.op();  // NEWFALSE
  p.op();  // TUPLE
  p.memo();
  p.op();  // BUILD
  p.boundary();
}

struct Chunk {
  uint64_t offset = 0;  // elements
  uint64_t numel = 0;
};
struct TensorEntry {
  std::string dtype;
  uint64_t size = 0;
  std::vector<Chunk> chunks;
};

// Items of a dict or list as Python batches them: one as SETITEM/APPEND, else MARK ... SETITEMS/APPENDS
// per 1000, with an empty batch after a full one.
template <class Item>
void batched(Pickle4& p, size_t n, Item item) {
  if (n == 1) {
    item(0);
    p.op();
    return;
  }
  size_t i = 0;
  size_t in_batch = 0;
  do {
    p.op();  // MARK
    for (in_batch = 0; i < n && in_batch < kBatch; ++i, ++in_batch) item(i);
    p.op();
  } while (in_batch == kBatch);
}

void tensor_metadata(Pickle4& p, const TensorEntry& t) {
  instance(p, kMetadataModule, "TensorStorageMetadata", [&] {
    properties(p, t.dtype);
    p.key("size");
    torch_size(p, t.size);
    p.key("chunks");
    p.op();  // EMPTY_LIST
    p.memo();
    batched(p, t.chunks.size(), [&](size_t i) {
      instance(p, kMetadataModule, "ChunkStorageMetadata", [&] {
        p.key("offsets");
        torch_size(p, t.chunks[i].offset);
        p.key("sizes");
        torch_size(p, t.chunks[i].numel);
      });
    });
  });
}

}  // namespace

uint64_t dcp_metadata_bytes(const std::vector<PlannedFile>& files) {
  // The tensors in the order their first record comes, each with its chunks.
  std::vector<std::string> order;
  std::map<std::string, TensorEntry> tensors;
  for (const PlannedFile& f : files) {
    for (const FileRecord& r : f.records) {
      const TorchTensor t = torch_tensor_of(r.tensor, r.bytes, r.dtype_bytes);
      const uint64_t element = t.numel == 0 ? 1 : t.bytes / t.numel;
      auto [it, fresh] = tensors.try_emplace(r.tensor);
      if (fresh) {
        order.push_back(r.tensor);
        it->second.dtype = dtype_of(t.storage_type);
        it->second.size =
            r.tensor_bytes != 0 && r.tensor_bytes % element == 0 ? r.tensor_bytes / element : t.numel;
      }
      it->second.chunks.push_back({r.tensor_offset / element, t.numel});
    }
  }
  Pickle4 p;
  p.global(kMetadataModule, "Metadata");
  p.op(2);
  p.memo();
  p.op();  // EMPTY_DICT
  p.memo();
  p.op();  // MARK: state_dict_metadata, planner_data, storage_data
  p.key("state_dict_metadata");
  p.op();
  p.memo();
  batched(p, order.size(), [&](size_t i) {
    p.once("fqn:" + order[i], [&] { return p.text(order[i]); });
    tensor_metadata(p, tensors[order[i]]);
  });
  p.key("planner_data");
  p.op();  // NONE
  p.key("storage_data");
  p.op();
  p.memo();
  std::vector<std::pair<const PlannedFile*, const FileRecord*>> records;
  for (const PlannedFile& f : files) {
    for (const FileRecord& r : f.records) records.emplace_back(&f, &r);
  }
  std::map<std::string, size_t> chunk_index;
  batched(p, records.size(), [&](size_t i) {
    // Not a structured binding: clang 14 (the fuzz build) cannot capture one in the lambdas below.
    const PlannedFile* f = records[i].first;
    const FileRecord* r = records[i].second;
    const TorchTensor t = torch_tensor_of(r->tensor, r->bytes, r->dtype_bytes);
    const uint64_t element = t.numel == 0 ? 1 : t.bytes / t.numel;
    instance(p, kMetadataModule, "MetadataIndex", [&] {
      p.key("fqn");
      p.once("fqn:" + r->tensor, [&] { return p.text(r->tensor); });
      p.key("index");
      p.integer(chunk_index[r->tensor]++);
      p.key("offset");
      torch_size(p, r->tensor_offset / element);
    });
    instance(p, "torch.distributed._shard.checkpoint.filesystem", "_StorageInfo", [&] {
      p.key("relative_path");
      p.once("path:" + f->path, [&] { return p.text(f->path); });
      p.key("offset");
      p.integer(r->frame_offset);
      p.key("length");
      p.integer(r->frame_bytes);
    });
  });
  p.op(2);  // SETITEMS BUILD
  return p.bytes();
}

}  // namespace iofab
