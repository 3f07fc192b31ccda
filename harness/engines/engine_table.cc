// The engine table: the one place that lists engines. A new engine is a new
// file with a factory (and a probe when it may not work everywhere), plus one
// row here that names them and the params it takes. A test may add an engine
// beside the rows while it runs (added_engine.h); iofab itself adds none.
#include <cstdio>
#include <cstdlib>
#include <list>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "harness/engines/added_engine.h"
#include "harness/engines/cufile_engine.h"
#include "harness/engines/engine.h"
#include "harness/engines/engine_choice.h"
#include "harness/engines/io_uring_engine.h"

namespace iofab {

// Defined in psync_engine.cc and null_engine.cc; this table is their only caller.
Status make_psync_engine(const EngineOptions& opts, std::unique_ptr<Engine>* out);
Status make_null_engine(const EngineOptions& opts, std::unique_ptr<Engine>* out);
Status make_mmap_engine(const EngineOptions& opts, std::unique_ptr<Engine>* out);
#ifdef IOFAB_HAVE_CURL
Status make_s3_engine(const EngineOptions& opts, std::unique_ptr<Engine>* out);  // s3_engine_curl.cc
#endif

Status Engine::add_store_file(const StoreFile& file, int* index) {
  if (file.fd() < 0) {
    return Status::Invalid(std::string(name()) + ": " + file.path() +
                           (file.object() != nullptr
                                ? " is an object-store object, not a file; set engine: auto"
                                : " is not open"));
  }
  return add_file(file.fd(), index);
}

namespace {

using MakeEngineFn = Status (*)(const EngineOptions& opts, std::unique_ptr<Engine>* out);
// Whether a built engine works on this machine now: *why not when it does not; *mode a note on how it runs.
using UsableFn = bool (*)(std::string* why, std::string* mode);

#ifdef IOFAB_HAVE_URING
bool io_uring_usable_here(std::string* why, std::string* /*mode*/) {
  // A ring is cheap to set up, but the answer cannot change while we run.
  static const std::string reason = [] {
    std::string w;
    return io_uring_usable(&w) ? std::string() : w;
  }();
  *why = reason;
  return reason.empty();
}
constexpr MakeEngineFn kMakeIoUring = make_io_uring_engine;
constexpr UsableFn kIoUringUsable = io_uring_usable_here;
#else
constexpr MakeEngineFn kMakeIoUring = nullptr;
constexpr UsableFn kIoUringUsable = nullptr;
#endif
#ifdef IOFAB_HAVE_CURL
constexpr MakeEngineFn kMakeS3 = make_s3_engine;
#else
constexpr MakeEngineFn kMakeS3 = nullptr;
#endif
// cuFile is loaded at run time, never linked: the engine is always there (its probe says why it cannot
// run), built with the CUDA runtime only when the toolkit was found.
#ifdef IOFAB_HAVE_CUDA
constexpr bool kCufileBuilt = true;
#else
constexpr bool kCufileBuilt = false;
#endif

// One engine: its name, what it is, its factory, its probe and the params it takes (as fio's
// ioengine_ops carries its .options).
struct EngineRow {
  const char* name = nullptr;
  const char* description = nullptr;
  MakeEngineFn make = nullptr;    // null: not built in
  const char* missing = nullptr;  // what the build lacked, when make is null
  UsableFn usable = nullptr;      // null: usable wherever it is built
  bool built = true;              // built with what it needs (make may still exist, to say why not)
  bool direct = true;             // takes O_DIRECT files (direct: true)
  bool map_advice = false;        // maps files: takes a madvise hint (madvise)
  bool moves_data = true;         // false: reads leave the buffers as they were (EngineCaps::moves_data)
  // How it runs here, when that changes what the figures mean (the report's engine_mode); null: one way.
  std::string (*mode)() = nullptr;
};

constexpr EngineRow kEngines[] = {
    {.name = "psync",
     .description = "pread/pwrite, one I/O at a time per worker (fio's psync)",
     .make = make_psync_engine},
    {.name = "io_uring",
     .description = "Linux io_uring via liburing: queue depth, registered files and buffers",
     .make = kMakeIoUring,
     .missing = "liburing was not found at build time",
     .usable = kIoUringUsable},
    {.name = "cufile",
     .description = "GPUDirect Storage via cuFile (loaded at run time): device buffers, a host copy per I/O",
     .make = make_cufile_engine,
     .usable = cufile_usable,
     .built = kCufileBuilt,
     .mode = cufile_mode_text},
    {.name = "s3",
     .description =
         "S3 objects over HTTP (libcurl): ranged GETs, multipart uploads; the engine of an s3:// target",
     .make = kMakeS3,
     .missing = "libcurl was not found at build time"},
    {.name = "mmap",
     .description =
         "page-fault reads from a shared mapping, copied out (safetensors, torch.load(mmap=True)); "
         "madvise hints; writes are pwrite",
     .make = make_mmap_engine,
     .direct = false,
     .map_advice = true},
    {.name = "null",
     .description =
         "moves no data: queued I/Os complete at once, in full (tests the harness, not the storage)",
     .make = make_null_engine,
     .moves_data = false},
};

EngineInfo probe(const EngineRow& row) {
  EngineInfo info;
  info.name = row.name;
  info.description = row.description;
  if (row.make == nullptr) {
    info.reason = std::string("not built: ") + row.missing;
    return info;
  }
  info.built = row.built;
  if (row.usable == nullptr) {
    info.usable = true;
    return info;
  }
  std::string mode;
  info.usable = row.usable(&info.reason, &mode);
  if (!mode.empty()) info.description += "; " + mode;
  return info;
}

// The rows an AddedEngine holds (added_engine.h): none in iofab itself. A list, so that a row keeps its
// address while others come and go.
std::mutex added_mu;
std::list<EngineRow>& added_rows() {
  static std::list<EngineRow> rows;
  return rows;
}

const EngineRow* find_row(std::string_view name) {
  for (const EngineRow& row : kEngines) {
    if (name == row.name) return &row;
  }
  std::lock_guard<std::mutex> lock(added_mu);
  for (const EngineRow& row : added_rows()) {
    if (name == row.name) return &row;
  }
  return nullptr;
}

// Every row, the table's then the added ones.
std::vector<const EngineRow*> all_rows() {
  std::vector<const EngineRow*> out;
  for (const EngineRow& row : kEngines) out.push_back(&row);
  std::lock_guard<std::mutex> lock(added_mu);
  for (const EngineRow& row : added_rows()) out.push_back(&row);
  return out;
}

}  // namespace

AddedEngine::AddedEngine(const char* name, const char* description, Make make) : name_(name) {
  if (find_row(name) != nullptr) {
    std::fprintf(stderr, "iofab: AddedEngine: engine %s is in the table already\n", name);
    std::abort();
  }
  std::lock_guard<std::mutex> lock(added_mu);
  added_rows().push_back(EngineRow{.name = name, .description = description, .make = make, .direct = false});
}

AddedEngine::~AddedEngine() {
  std::lock_guard<std::mutex> lock(added_mu);
  added_rows().remove_if([this](const EngineRow& row) { return std::string_view(row.name) == name_; });
}

std::vector<EngineInfo> list_engines() {
  std::vector<EngineInfo> out;
  for (const EngineRow* row : all_rows()) out.push_back(probe(*row));
  return out;
}

bool is_engine_name(std::string_view name) { return find_row(name) != nullptr; }

// "auto" is io_uring or psync, both of which take O_DIRECT and neither of which maps.
bool engine_takes_direct(std::string_view name) {
  const EngineRow* row = find_row(name);
  return row == nullptr || row->direct;
}

bool engine_takes_map_advice(std::string_view name) {
  const EngineRow* row = find_row(name);
  return row != nullptr && row->map_advice;
}

bool engine_moves_data(std::string_view name) {
  const EngineRow* row = find_row(name);
  return row == nullptr || row->moves_data;
}

std::optional<std::string> engine_mode_text(std::string_view name) {
  const EngineRow* row = find_row(name);
  if (row == nullptr || row->mode == nullptr) return std::nullopt;
  return row->mode();
}

Status make_engine(std::string_view name, const EngineOptions& opts, std::unique_ptr<Engine>* out) {
  const EngineRow* row = find_row(name);
  if (row == nullptr) {
    std::string known;
    for (const EngineRow* r : all_rows()) known += (known.empty() ? "" : ", ") + std::string(r->name);
    return Status::Invalid("unknown engine '" + std::string(name) + "' (known: " + known + ")");
  }
  if (opts.queue_depth == 0) {
    return Status::Invalid("engine " + std::string(name) + ": queue_depth must be >= 1");
  }

  const EngineInfo info = probe(*row);
  if (!info.usable) return Status::Unavailable("engine " + info.name + " unavailable: " + info.reason);

  return row->make(opts, out);
}

}  // namespace iofab
