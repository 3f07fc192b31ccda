// Engine: storage I/O in fio's shape. A caller stages I/Os with queue(),
// submits them with commit(), and collects completions with reap().
// queue() answers kCompleted (a synchronous engine did the I/O already),
// kQueued (its completion comes from reap()) or kBusy (reap first).
//
// Thread-safety: an Engine is used by one worker thread at a time; each
// worker owns its own instance. Files are opened by the caller through the
// Store (so that every open goes through the run folder's safety rules) and
// handed in with add_store_file(); the caller keeps ownership of the file and
// closes it after the engine is destroyed or the file's I/O is finished.
// A descriptor engine takes the file's fd (add_file, which tests call with a
// bare fd); an object store's engine takes its object.
#pragma once

#include <sys/uio.h>

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "harness/core/status.h"
#include "harness/engines/store_file.h"

namespace iofab {

enum class IoOp : uint8_t { kRead, kWrite };

struct IoRequest {
  int file = -1;        // index from Engine::add_file
  IoOp op = IoOp::kRead;
  void* buf = nullptr;
  uint32_t len = 0;
  uint64_t offset = 0;
  int buf_index = -1;   // slot from register_buffers, or -1 when not registered
  uint64_t tag = 0;     // the caller's, handed back in the completion
};

struct IoCompletion {
  uint64_t tag = 0;
  int64_t result = 0;   // bytes moved (may be short), or -errno
};

enum class QueueResult { kQueued, kCompleted, kBusy };

// Capabilities, declared so callers never test an engine's type.
struct EngineCaps {
  bool sync = false;                   // every queue() answers kCompleted
  bool needs_aligned_buffers = false;  // O_DIRECT or device rules apply
  bool moves_data = true;              // false for the null engine
};

// mmap: the madvise hint each mapping gets before its first page is touched (a suite's `madvise`).
enum class MapAdvice : uint8_t { kNone, kSequential, kRandom, kWillNeed, kHugePage };
// "none", "sequential", "random", "willneed", "hugepage": the suite's names, in that order.
std::span<const std::string_view> map_advice_names();
std::string_view map_advice_name(MapAdvice advice);
// False when name is none of map_advice_names(); out may be null (only asks).
bool parse_map_advice(std::string_view name, MapAdvice* out);

struct EngineOptions {
  unsigned queue_depth = 1;
  bool direct = false;          // files were opened with O_DIRECT
  bool fixed_buffers = true;    // io_uring: use registered buffers when given
  bool fixed_files = true;      // io_uring: register files
  unsigned max_files = 64;      // io_uring: size of the fixed file table
  MapAdvice map_advice = MapAdvice::kNone;  // mmap: the madvise hint on each mapping
};

class Engine {
 public:
  Engine() = default;
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;
  virtual ~Engine() = default;

  virtual std::string_view name() const = 0;
  virtual EngineCaps caps() const = 0;

  // Makes fd addressable as IoRequest::file; *index receives the handle.
  virtual Status add_file(int fd, int* index) = 0;
  // Makes a Store's file addressable. Descriptor engines pass its fd to add_file (so their path is the
  // same int as before); an object store's engine overrides this to take its object. A file of the
  // other kind is refused, naming it and the engine.
  virtual Status add_store_file(const StoreFile& file, int* index);
  // Forgets a file (its I/O must be reaped); the index may be reused.
  virtual Status remove_file(int index) = 0;
  // Registers buffers for IoRequest::buf_index (io_uring fixed buffers);
  // engines without registration accept and ignore the call.
  virtual Status register_buffers(std::span<const iovec> bufs) = 0;

  // Stages one I/O. For kCompleted, *done holds the completion.
  virtual QueueResult queue(const IoRequest& req, IoCompletion* done) = 0;
  // Submits everything staged since the last commit.
  virtual Status commit() = 0;
  // Waits until at least min_complete completions are available (0: do not
  // wait), stores up to out.size() of them, sets *n to the count stored.
  virtual Status reap(unsigned min_complete, std::span<IoCompletion> out, unsigned* n) = 0;
  // Number of I/Os queued or in flight and not yet reaped.
  virtual unsigned in_flight() const = 0;

  // Makes the file durable. For an object store's file being written it is the commit: the upload is
  // completed (the object exists from then on, whole).
  virtual Status fsync(int file) = 0;
};

struct EngineInfo {
  std::string name;
  std::string description;
  bool built = false;      // compiled in
  bool usable = false;     // works on this machine now
  std::string reason;      // why not, when !usable
};

// The engine table: the one place that lists engines.
std::vector<EngineInfo> list_engines();
bool is_engine_name(std::string_view name);
// What a suite may ask of the engine named name (a table name, or "auto": io_uring or psync), checked when
// the suite is read: O_DIRECT (`direct: true`), and a madvise hint (`madvise`, engines that map files).
bool engine_takes_direct(std::string_view name);
bool engine_takes_map_advice(std::string_view name);
// Creates an engine by name; a missing or unusable engine answers an
// Unavailable status that says why.
Status make_engine(std::string_view name, const EngineOptions& opts, std::unique_ptr<Engine>* out);

}  // namespace iofab
