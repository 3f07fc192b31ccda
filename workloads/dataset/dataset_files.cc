// The dataset's data files: generating this rank's part (through an Engine,
// so a file is an object on an object store), opening a file to read, and
// the page-cache pass before an epoch.
#include <algorithm>
#include <cstring>
#include <memory>
#include <mutex>
#include <thread>

#include "harness/core/mix.h"
#include "harness/engines/data_fill.h"
#include "harness/engines/engine.h"
#include "harness/engines/io_buffers.h"
#include "harness/engines/io_pump.h"
#include "harness/fs/page_cache.h"
#include "workloads/dataset/dataset.h"
#include "workloads/dataset/dataset_manifest.h"

namespace iofab {
namespace {

// Sample files a generator takes at a time (shards go one at a time).
constexpr uint64_t kFilesPerUnit = 64;
// Shards are written through a buffer of this size.
constexpr uint64_t kWriteChunk = 4ULL << 20;

// Makes the folder path ("d01/d07") below data, one level at a time (the store makes one whose
// parent exists); other writers making the same folder at once is fine.
Status make_folder_chain(Store& store, const std::string& data, const std::string& path) {
  size_t pos = 0;
  while (pos < path.size()) {
    size_t slash = path.find('/', pos);
    if (slash == std::string::npos) slash = path.size();
    if (Status s = store.make_folder(join_store_path(data, path.substr(0, slash))); !s.ok()) return s;
    pos = slash + 1;
  }
  return Status::Ok();
}

// The engine a dataset is written with: the store's own (an object store's), else psync: buffered
// writes, one pwrite each, as a data-preparation job makes them; the data reach the disk at the
// part's one sync_all.
Status make_writer_engine(Store& store, std::unique_ptr<Engine>* out) {
  std::string name;
  Status s = engine_for_store(store, store.caps().engine != nullptr ? "auto" : "psync", &name);
  if (s.ok()) s = make_engine(name, EngineOptions{}, out);
  return s;
}

// One writer thread's engine and its one buffer.
struct Writer {
  std::unique_ptr<Engine> engine;
  IoBuffers buf;
};

// Creates path and writes its len bytes through the writer's engine, in order (an object takes no
// other), chunk bytes at a time; fill(dst, offset, n) makes the bytes at [offset, offset + n). On a
// store whose files exist only once committed (an object store), the file's commit ends it.
template <class Fill>
Status write_dataset_file(Store& store, Writer& w, const std::string& path, uint64_t len, uint64_t chunk,
                          Fill&& fill, const std::atomic<bool>* stop, std::atomic<uint64_t>* progress) {
  StoreFile f;
  Status s = store.create(path, {}, &f);
  if (!s.ok()) return s;
  int h = -1;
  if (s = w.engine->add_store_file(f, &h); !s.ok()) return s;
  IoPump pump(*w.engine, w.buf, {.slots = 1, .progress = progress, .stop = stop});
  uint64_t off = 0;
  s = pump.run(
      [&](unsigned, IoRequest& req) {
        if (off >= len) return false;
        const uint64_t n = std::min(chunk, len - off);
        fill(static_cast<unsigned char*>(req.buf), off, n);
        req.file = h;
        req.op = IoOp::kWrite;
        req.offset = off;
        req.len = static_cast<uint32_t>(n);
        off += n;
        return true;
      },
      [](unsigned, const IoRequest&) {});
  if (s.ok() && store.caps().commit_per_file) s = w.engine->fsync(h);
  s.update(w.engine->remove_file(h));
  if (!s.ok() && s.code() != Status::Code::kInterrupted) {
    s = Status::FromCode(s.code(), path + ": " + s.message());
  }
  return s;
}

// The bytes under the sample headers: the default data, a stream per file (sample file or shard) keyed
// from one dataset-wide key, at the file's offsets; or with compressibility or dedup ReducibleFiller's,
// in kRecordAlignment units numbered per file (files and shards are padded to whole units, and shards are
// written in chunks of whole units). A unit holding a header differs from what was generated, so a
// duplicate of it would not be one on disk: in the files layout, where the header is always in unit 0,
// that unit is a stream of its own and the others number from 0, so duplicates repeat header-free units
// only. (In a shard the headers fall where the samples start.)
struct SampleData {
  uint64_t key = 0;  // the dataset's: every file's stream derives from it
  const ReducibleFiller& reducible;
  bool reduce = false;
  bool header_unit_apart = false;  // the files layout

  // buf: bytes [off, off + n) of file.
  void make(unsigned char* buf, uint64_t file, uint64_t off, uint64_t n) const {
    if (!reduce) {
      DataStream(data_key(key, file)).fill(buf, n, off);
      return;
    }
    for (uint64_t at = off; at < off + n; at += kRecordAlignment) {
      const uint64_t unit = at / kRecordAlignment;
      const uint64_t len = std::min(kRecordAlignment, off + n - at);
      if (!header_unit_apart) {
        reducible.fill(buf + (at - off), len, file, unit);
      } else if (unit == 0) {
        reducible.fill(buf + (at - off), len, file | (1ULL << 63), 0);
      } else {
        reducible.fill(buf + (at - off), len, file, unit - 1);
      }
    }
  }
};

// Writes one sample file (files layout): the sample, its header first, padding after, in one write.
Status write_sample_file(Store& store, Writer& w, const std::string& folder, const DatasetLayout& layout,
                         uint64_t sample, const SampleData& data, const std::atomic<bool>* stop,
                         std::atomic<uint64_t>* progress) {
  const uint64_t len = layout.file_bytes(sample);
  auto fill = [&](unsigned char* buf, uint64_t, uint64_t n) {
    data.make(buf, sample, 0, n);
    unsigned char header[kSampleHeader];
    sample_header(layout.spec(), sample, header);
    std::memcpy(buf, header, std::min<uint64_t>(kSampleHeader, layout.size_of(sample)));
  };
  return write_dataset_file(store, w, join_store_path(folder, layout.name_of(sample)), len, len, fill, stop,
                            progress);
}

// Writes one shard: the samples back to back, padding at the end, kWriteChunk bytes at a time.
Status write_shard(Store& store, Writer& w, const std::string& data, const DatasetLayout& layout,
                   uint64_t shard, const SampleData& sample_data, const std::atomic<bool>* stop,
                   std::atomic<uint64_t>* progress) {
  const uint64_t first = layout.first_sample(shard);
  const uint64_t end_sample = first + layout.samples_in(shard);
  uint64_t next_header = first;  // the first sample whose header may still start at or after `off`
  auto fill = [&](unsigned char* buf, uint64_t off, uint64_t n) {
    sample_data.make(buf, shard, off, n);
    // Headers that overlap [off, off + n); one may straddle the previous chunk's end.
    while (next_header < end_sample) {
      const uint64_t ho = layout.offset_of(next_header);
      const uint64_t hl = std::min<uint64_t>(kSampleHeader, layout.size_of(next_header));
      if (ho >= off + n) break;
      unsigned char header[kSampleHeader];
      sample_header(layout.spec(), next_header, header);
      const uint64_t from = std::max(ho, off);
      const uint64_t to = std::min(ho + hl, off + n);
      if (from < to) std::memcpy(buf + (from - off), header + (from - ho), to - from);
      if (ho + hl > off + n) break;  // the rest of this header goes in the next chunk
      ++next_header;
    }
  };
  return write_dataset_file(store, w, join_store_path(data, layout.name_of(shard)), layout.file_bytes(shard),
                            kWriteChunk, fill, stop, progress);
}

}  // namespace

Status generate_dataset_part(Store& store, std::string_view data_view, const DatasetLayout& layout,
                             const GenerateOptions& opts, uint64_t* bytes) {
  const std::string data(data_view);
  const bool files = layout.spec().layout == DatasetLayoutKind::kFiles;
  const uint64_t unit_files = files ? kFilesPerUnit : 1;
  const uint64_t units = (layout.num_files() + unit_files - 1) / unit_files;
  const auto rank = static_cast<uint64_t>(opts.rank);
  const auto ranks = static_cast<uint64_t>(std::max(opts.ranks, 1));
  const uint64_t mine = units > rank ? (units - rank + ranks - 1) / ranks : 0;
  const unsigned threads = static_cast<unsigned>(std::clamp<uint64_t>(mine, 1, std::max(opts.threads, 1u)));
  const uint64_t buf_len = files ? layout.max_aligned_span() : std::min(kWriteChunk, layout.total_bytes());
  // Every file's stream comes from one dataset-wide key, so no byte run of the dataset repeats another.
  const uint64_t key = fmix64(layout.spec().seed ^ 0x510e527fade682d1ULL);
  const ReducibleFiller reducible(key, layout.spec().reduce);
  const SampleData sample_data{key, reducible, layout.spec().reduce.any(), files};

  std::atomic<uint64_t> next{0};
  std::atomic<uint64_t> written{0};
  std::mutex mu;
  Status first;
  auto worker = [&](unsigned) {
    Writer w;
    Status s = make_writer_engine(store, &w.engine);
    if (s.ok()) s = IoBuffers::allocate(1, std::max<uint64_t>(buf_len, kRecordAlignment), &w.buf);
    while (s.ok()) {
      const uint64_t k = next.fetch_add(1);
      if (k >= mine) break;
      if (opts.stop != nullptr && opts.stop->load(std::memory_order_relaxed)) {
        s = Status::Interrupted();
        break;
      }
      const uint64_t unit = rank + k * ranks;
      if (!files) {
        s = write_shard(store, w, data, layout, unit, sample_data, opts.stop, opts.progress);
        if (s.ok()) written.fetch_add(layout.file_bytes(unit));
        continue;
      }
      std::string made;  // the folder the files before this one went to
      bool made_any = false;
      for (uint64_t f = unit * unit_files;
           f < std::min(layout.num_files(), (unit + 1) * unit_files) && s.ok(); ++f) {
        const std::string folder = layout.folder_of(f);
        if (!made_any || folder != made) {
          s = make_folder_chain(store, data, folder);
          if (!s.ok()) break;
          made = folder;
          made_any = true;
        }
        s = write_sample_file(store, w, join_store_path(data, folder), layout, f, sample_data, opts.stop,
                              opts.progress);
        if (s.ok()) written.fetch_add(layout.file_bytes(f));
      }
    }
    if (!s.ok()) {
      std::lock_guard<std::mutex> lock(mu);
      // A real error wins over an interruption, so Ctrl-C never hides it.
      if (first.ok() ||
          (first.code() == Status::Code::kInterrupted && s.code() != Status::Code::kInterrupted)) {
        first = s;
      }
      next.store(mine);  // the others stop after their current unit
    }
  };
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < threads; ++t) pool.emplace_back(worker, t);
  for (auto& th : pool) th.join();
  *bytes = written.load();
  if (!first.ok()) return first;
  // One flush for the whole part: a sync per small file would cost a device flush each.
  return store.sync_all();
}

Status open_dataset_file(Store& store, std::string_view data, const DatasetLayout& layout, uint64_t file,
                         bool direct, StoreFile* out) {
  OpenOptions opts;
  opts.direct = direct;
  // The layout knows the file's size: an object store sends no lookup before the first read.
  opts.known_size = layout.file_bytes(file);
  Status s = store.open(join_store_path(data, layout.file_path(file)), opts, out);
  if (!s.ok() && direct && s.message().find("Invalid argument") != std::string::npos) {
    return Status::IoError(s.message() + " (this filesystem does not support O_DIRECT; set direct: false)");
  }
  return s;
}

Status dataset_cache_pass(Store& store, std::string_view data, const DatasetLayout& layout, uint64_t part,
                          uint64_t parts, bool drop, CacheCounts* out) {
  *out = CacheCounts{};
  // An object store's reads are requests over the network: there is no page cache here to drop or count.
  if (!dataset_has_page_cache(store)) return Status::Ok();
  if (parts == 0) parts = 1;
  for (uint64_t f = part; f < layout.num_files(); f += parts) {
    StoreFile file;
    Status s = open_dataset_file(store, data, layout, f, false, &file);
    if (!s.ok()) return s;
    if (drop) {
      Status d = drop_cached_pages(file.fd());
      if (!d.ok() && out->drop_error.empty()) out->drop_error = layout.file_path(f) + ": " + d.message();
    }
    uint64_t resident = 0;
    s = resident_bytes(file.fd(), layout.file_bytes(f), &resident);
    if (!s.ok()) return s;
    out->files++;
    out->bytes += layout.file_bytes(f);
    out->resident_bytes += resident;
  }
  return Status::Ok();
}

}  // namespace iofab
