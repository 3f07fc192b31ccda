// The engine table: the one place that lists engines. A new engine is a new
// file with a factory, plus one row here.
#include <memory>
#include <string>
#include <string_view>
#include <vector>

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
                           (file.object() != nullptr ? " is an object-store object, not a file; set engine: auto"
                                                     : " is not open"));
  }
  return add_file(file.fd(), index);
}

namespace {

struct EngineRow {
  const char* name;
  const char* description;
  bool direct = true;       // takes O_DIRECT files (direct: true)
  bool map_advice = false;  // maps files: takes a madvise hint (madvise)
  bool moves_data = true;   // false: reads leave the buffers as they were (EngineCaps::moves_data)
};

constexpr EngineRow kEngines[] = {
    {"psync", "pread/pwrite, one I/O at a time per worker (fio's psync)"},
    {"io_uring", "Linux io_uring via liburing: queue depth, registered files and buffers"},
    {"cufile", "GPUDirect Storage via cuFile (loaded at run time): device buffers, a host copy per I/O"},
    {"s3", "S3 objects over HTTP (libcurl): ranged GETs, multipart uploads; the engine of an s3:// target"},
    {"mmap",
     "page-fault reads from a shared mapping, copied out (safetensors, torch.load(mmap=True)); madvise "
     "hints; writes are pwrite",
     false, true},
    {.name = "null",
     .description =
         "moves no data: queued I/Os complete at once, in full (tests the harness, not the storage)",
     .moves_data = false},
};

EngineInfo probe(const EngineRow& row) {
  EngineInfo info;
  info.name = row.name;
  info.description = row.description;
  const std::string_view name = row.name;
  if (name == "io_uring") {
#ifdef IOFAB_HAVE_URING
    info.built = true;
    // A ring is cheap to set up, but the answer cannot change while we run.
    static const std::string reason = [] {
      std::string why;
      return io_uring_usable(&why) ? std::string() : why;
    }();
    info.usable = reason.empty();
    info.reason = reason;
#else
    info.reason = "not built: liburing was not found at build time";
#endif
    return info;
  }
  if (name == "s3") {
#ifdef IOFAB_HAVE_CURL
    info.built = true;
    info.usable = true;
#else
    info.reason = "not built: libcurl was not found at build time";
#endif
    return info;
  }
  if (name == "cufile") {
    std::string mode;
    info.usable = cufile_usable(&info.reason, &mode);
#ifdef IOFAB_HAVE_CUDA
    info.built = true;  // its cuFile part is loaded at run time, never linked
#endif
    if (!mode.empty()) info.description += "; " + mode;
    return info;
  }
  info.built = true;
  info.usable = true;
  return info;
}

const EngineRow* find_row(std::string_view name) {
  for (const EngineRow& row : kEngines) {
    if (name == row.name) return &row;
  }
  return nullptr;
}

}  // namespace

std::vector<EngineInfo> list_engines() {
  std::vector<EngineInfo> out;
  out.reserve(std::size(kEngines));
  for (const EngineRow& row : kEngines) out.push_back(probe(row));
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

Status make_engine(std::string_view name, const EngineOptions& opts, std::unique_ptr<Engine>* out) {
  const EngineRow* row = nullptr;
  std::string known;
  for (const EngineRow& r : kEngines) {
    if (name == r.name) row = &r;
    if (!known.empty()) known += ", ";
    known += r.name;
  }
  if (row == nullptr) {
    return Status::Invalid("unknown engine '" + std::string(name) + "' (known: " + known + ")");
  }
  if (opts.queue_depth == 0) {
    return Status::Invalid("engine " + std::string(name) + ": queue_depth must be >= 1");
  }

  const EngineInfo info = probe(*row);
  if (!info.usable) return Status::Unavailable("engine " + info.name + " unavailable: " + info.reason);

  if (name == "psync") return make_psync_engine(opts, out);
  if (name == "null") return make_null_engine(opts, out);
  if (name == "mmap") return make_mmap_engine(opts, out);
  if (name == "cufile") return make_cufile_engine(opts, out);
#ifdef IOFAB_HAVE_URING
  if (name == "io_uring") return make_io_uring_engine(opts, out);
#endif
#ifdef IOFAB_HAVE_CURL
  if (name == "s3") return make_s3_engine(opts, out);
#endif
  return Status::Internal("engine " + std::string(name) + " is listed but has no factory");
}

}  // namespace iofab
