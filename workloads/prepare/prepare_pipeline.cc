#include "workloads/prepare/prepare_pipeline.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <thread>

#include "harness/engines/io_buffers.h"
#include "harness/engines/io_pump.h"
#include "workloads/prepare/prepare_queue.h"
#include "workloads/prepare/prepare_shard_writer.h"

namespace iofab {
namespace {

// One sample on its way: its raw bytes (an aligned buffer, as an O_DIRECT read needs), then its
// transformed bytes.
struct Item {
  uint64_t sample = 0;
  uint32_t size = 0;
  IoBuffers raw;
  std::vector<unsigned char> out;
  size_t out_len = 0;
};

// Buffers handed back by the stage after the one that used them, so a run allocates only as many as
// are ever in flight at once.
template <class T>
class FreeList {
 public:
  bool take(T* out) {
    std::lock_guard<std::mutex> lock(mu_);
    if (items_.empty()) return false;
    *out = std::move(items_.back());
    items_.pop_back();
    return true;
  }
  void put(T item) {
    std::lock_guard<std::mutex> lock(mu_);
    items_.push_back(std::move(item));
  }

 private:
  std::mutex mu_;
  std::vector<T> items_;
};

// The first error of any thread (errors before interruptions); it cancels both queues.
class FirstError {
 public:
  void keep(const Status& s) {
    std::lock_guard<std::mutex> lock(mu_);
    if (first_.ok() ||
        (first_.code() == Status::Code::kInterrupted && s.code() != Status::Code::kInterrupted)) {
      first_ = s;
    }
  }
  Status get() const {
    std::lock_guard<std::mutex> lock(mu_);
    return first_;
  }

 private:
  mutable std::mutex mu_;
  Status first_;
};

// One thread's figures, kept by the thread alone and merged once it is joined.
struct ThreadFigures {
  StageFigures stage;
  uint64_t bytes = 0;  // read: sample bytes; transform: payload bytes
  uint64_t io_bytes = 0;
  uint64_t corrupt = 0;
};

// Times a thread's life and CPU from construction to finish().
class ThreadClock {
 public:
  ThreadClock() : wall0_(now_ns()), cpu0_(thread_cpu_ns()) {}
  void finish(StageFigures* f) const {
    f->threads = 1;
    f->thread_seconds = static_cast<double>(now_ns() - wall0_) * 1e-9;
    f->cpu_seconds = static_cast<double>(thread_cpu_ns() - cpu0_) * 1e-9;
  }

 private:
  uint64_t wall0_;
  uint64_t cpu0_;
};

double seconds(uint64_t ns) { return static_cast<double>(ns) * 1e-9; }

class Pipeline {
 public:
  Pipeline(const PipelineConfig& cfg, const PipelineIo& io)
      : cfg_(cfg), io_(io), read_q_(cfg.queue_depth), write_q_(cfg.queue_depth) {}

  Status run(PipelineFigures* out);

 private:
  void fail(const Status& s) {
    errors_.keep(s);
    read_q_.cancel();
    write_q_.cancel();
  }
  bool stopping() const { return io_.stop != nullptr && io_.stop->load(std::memory_order_relaxed); }
  void note_in_flight(int64_t delta) {
    const int64_t now = in_flight_.fetch_add(delta) + delta;
    int64_t seen = max_in_flight_.load();
    while (now > seen && !max_in_flight_.compare_exchange_weak(seen, now)) {
    }
  }

  Status read_one(Engine& engine, Item* item, ThreadFigures* f);
  void reader(Engine& engine, ThreadFigures* f);
  void transformer(SampleTransform& transform, ThreadFigures* f);
  void writer(ShardWriter& shards, ThreadFigures* f);

  const PipelineConfig& cfg_;
  const PipelineIo& io_;
  BoundedQueue<Item> read_q_;
  BoundedQueue<Item> write_q_;
  FreeList<IoBuffers> raw_buffers_;
  FreeList<std::vector<unsigned char>> out_buffers_;
  std::atomic<size_t> next_{0};
  std::atomic<unsigned> readers_left_{0};
  std::atomic<unsigned> transformers_left_{0};
  std::atomic<int64_t> in_flight_{0};
  std::atomic<int64_t> max_in_flight_{0};
  FirstError errors_;
  const char* extension_ = "bin";
};

// Opens the sample's file, reads it whole (padded to 4 KiB, so an O_DIRECT read never passes its end)
// and checks its header. The open counts as reading: for small files it is much of what storage does.
Status Pipeline::read_one(Engine& engine, Item* item, ThreadFigures* f) {
  const DatasetLayout& layout = *io_.layout;
  const uint64_t len = layout.file_bytes(item->sample);
  StoreFile file;
  Status s = open_dataset_file(*io_.store, io_.raw_data, layout, item->sample, cfg_.direct, &file);
  int h = -1;
  if (s.ok()) s = engine.add_store_file(file, &h);
  if (!s.ok()) return s;
  IoPump pump(engine, item->raw, {.slots = 1, .progress = io_.progress, .stop = io_.stop});
  bool sent = false;
  s = pump.run(
      [&](unsigned, IoRequest& req) {
        if (sent) return false;
        req.file = h;
        req.op = IoOp::kRead;
        req.offset = 0;
        req.len = static_cast<uint32_t>(len);
        sent = true;
        return true;
      },
      [](unsigned, const IoRequest&) {});
  s.update(engine.remove_file(h));
  if (!s.ok())
    return s.code() == Status::Code::kInterrupted
               ? s
               : Status::FromCode(s.code(), file.path() + ": " + s.message());
  unsigned char header[kSampleHeader];
  sample_header(layout.spec(), item->sample, header);
  // An engine that moves no data (null) left the buffer as it was: nothing to check, nothing corrupt.
  if (engine.caps().moves_data &&
      std::memcmp(item->raw.at(0), header, std::min<uint64_t>(kSampleHeader, item->size)) != 0) {
    ++f->corrupt;
  }
  f->io_bytes += len;
  return Status::Ok();
}

void Pipeline::reader(Engine& engine, ThreadFigures* f) {
  ThreadClock clock;
  uint64_t wait_room = 0, busy = 0;
  Status s;
  while (true) {
    const size_t k = next_.fetch_add(1);
    if (k >= io_.samples.size()) break;
    if (stopping()) {
      s = Status::Interrupted();
      break;
    }
    Item item;
    item.sample = io_.samples[k];
    item.size = io_.layout->size_of(item.sample);
    if (!raw_buffers_.take(&item.raw)) {
      s = IoBuffers::allocate(1, io_.layout->max_aligned_span(), &item.raw);
      if (!s.ok()) break;
    }
    const uint64_t t = now_ns();
    s = read_one(engine, &item, f);
    busy += now_ns() - t;
    if (!s.ok()) break;
    f->stage.items++;
    f->bytes += item.size;
    note_in_flight(1);
    if (!read_q_.push(std::move(item), &wait_room)) break;  // cancelled: another thread failed
  }
  if (!s.ok()) fail(s);
  if (readers_left_.fetch_sub(1) == 1) read_q_.close();
  clock.finish(&f->stage);
  f->stage.busy_seconds = seconds(busy);
  f->stage.wait_room_seconds = seconds(wait_room);
}

void Pipeline::transformer(SampleTransform& transform, ThreadFigures* f) {
  ThreadClock clock;
  uint64_t wait_input = 0, wait_room = 0, busy = 0;
  Item item;
  while (read_q_.pop(&item, &wait_input)) {
    const uint64_t t = now_ns();
    if (!out_buffers_.take(&item.out)) item.out.clear();
    item.out.resize(std::max(item.out.size(), transform.max_output(item.size)));
    Status s = transform.apply(static_cast<const unsigned char*>(item.raw.at(0)), item.size, item.out.data(),
                               item.out.size(), &item.out_len);
    raw_buffers_.put(std::move(item.raw));
    busy += now_ns() - t;
    if (!s.ok()) {
      fail(s);
      break;
    }
    f->stage.items++;
    f->bytes += item.out_len;
    if (!write_q_.push(std::move(item), &wait_room)) break;
  }
  if (transformers_left_.fetch_sub(1) == 1) write_q_.close();
  clock.finish(&f->stage);
  f->stage.busy_seconds = seconds(busy);
  f->stage.wait_input_seconds = seconds(wait_input);
  f->stage.wait_room_seconds = seconds(wait_room);
}

void Pipeline::writer(ShardWriter& shards, ThreadFigures* f) {
  ThreadClock clock;
  uint64_t wait_input = 0, busy = 0;
  Status s;
  Item item;
  while (s.ok() && write_q_.pop(&item, &wait_input)) {
    const uint64_t t = now_ns();
    s = shards.add(sample_member_name(item.sample, extension_), item.out.data(), item.out_len);
    busy += now_ns() - t;
    out_buffers_.put(std::move(item.out));
    note_in_flight(-1);
    if (s.ok()) f->stage.items++;
  }
  // The last shard's end and fsync are the writer's work too; after an error or Ctrl-C it is left as is.
  if (s.ok() && errors_.get().ok() && !stopping()) {
    const uint64_t t = now_ns();
    s = shards.finish();
    busy += now_ns() - t;
  }
  if (!s.ok()) fail(s);
  clock.finish(&f->stage);
  f->stage.busy_seconds = seconds(busy);
  f->stage.wait_input_seconds = seconds(wait_input);
}

Status Pipeline::run(PipelineFigures* out) {
  *out = PipelineFigures{};
  // Engines, transforms and shard writers are made before the clock starts.
  EngineOptions eo;
  eo.queue_depth = 1;
  eo.direct = cfg_.direct;
  eo.fixed_buffers = false;  // a sample's buffer travels with it; none is registered
  std::vector<std::unique_ptr<Engine>> read_engines(cfg_.readers), write_engines(cfg_.writers);
  std::vector<std::unique_ptr<SampleTransform>> transforms(cfg_.transformers);
  std::vector<std::unique_ptr<ShardWriter>> shard_writers(cfg_.writers);
  Status s;
  for (auto& e : read_engines) {
    if (s.ok()) s = io_.make_engine(eo, &e);
  }
  for (auto& t : transforms) {
    if (s.ok()) s = SampleTransform::create(cfg_.transform, &t);
  }
  if (s.ok() && !transforms.empty()) extension_ = transforms.front()->extension();
  for (unsigned w = 0; w < cfg_.writers && s.ok(); ++w) {
    s = io_.make_engine(eo, &write_engines[w]);
    if (!s.ok()) break;
    ShardWriterOptions so;
    so.folder = io_.out_folder;
    so.name_prefix = io_.shard_prefix + "w" + std::to_string(w) + "-";
    so.shard_size = cfg_.shard_size;
    so.block_size = cfg_.block_size;
    so.direct = cfg_.direct;
    so.fsync = cfg_.fsync;
    shard_writers[w] = std::make_unique<ShardWriter>(*io_.store, *write_engines[w], so);
    s = shard_writers[w]->init();
  }
  if (!s.ok()) return s;

  readers_left_ = cfg_.readers;
  transformers_left_ = cfg_.transformers;
  std::vector<ThreadFigures> rf(cfg_.readers), tf(cfg_.transformers), wf(cfg_.writers);
  const uint64_t t0 = now_ns();
  std::vector<std::thread> threads;
  for (unsigned i = 0; i < cfg_.readers; ++i)
    threads.emplace_back([&, i] { reader(*read_engines[i], &rf[i]); });
  for (unsigned i = 0; i < cfg_.transformers; ++i) {
    threads.emplace_back([&, i] { transformer(*transforms[i], &tf[i]); });
  }
  for (unsigned i = 0; i < cfg_.writers; ++i)
    threads.emplace_back([&, i] { writer(*shard_writers[i], &wf[i]); });
  for (auto& t : threads) t.join();
  out->wall_ns = now_ns() - t0;

  for (const auto& f : rf) {
    out->read.merge(f.stage);
    out->input_bytes += f.bytes;
    out->read_bytes += f.io_bytes;
    out->corrupt_samples += f.corrupt;
  }
  for (const auto& f : tf) {
    out->transform.merge(f.stage);
    out->payload_bytes += f.bytes;
  }
  for (const auto& f : wf) out->write.merge(f.stage);
  out->samples = out->write.items;
  for (const auto& w : shard_writers) {
    out->output_bytes += w->bytes_written();
    out->shards += w->shards();
  }
  out->read_queue_high_water = read_q_.high_water();
  out->write_queue_high_water = write_q_.high_water();
  out->max_in_flight = static_cast<uint64_t>(max_in_flight_.load());
  shard_writers.clear();  // before their engines
  return errors_.get();
}

}  // namespace

std::string sample_member_name(uint64_t sample, const char* extension) {
  char name[48];
  std::snprintf(name, sizeof name, "%09llu.%s", static_cast<unsigned long long>(sample), extension);
  return name;
}

Status run_prepare_pipeline(const PipelineConfig& cfg, const PipelineIo& io, PipelineFigures* out) {
  Pipeline p(cfg, io);
  return p.run(out);
}

}  // namespace iofab
