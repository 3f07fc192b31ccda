// cufile engine: the engine itself, the driver it opens, its probe and factory. The library is
// cufile_library.cc, the data-path facts cufile_mode.cc, the status texts cufile_errors.cc, the CUDA
// runtime calls cufile_engine_cuda.cc.
#include "harness/engines/cufile_engine.h"

#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "harness/engines/cufile_abi.h"
#include "harness/engines/cufile_handles.h"
#include "harness/engines/cufile_library.h"

namespace iofab {

namespace {

namespace abi = cufile_abi;

// The driver, opened by the first engine and closed after the last one, so
// a process that never makes a cufile engine never starts cuFile.
class DriverRefs {
 public:
  Status acquire(const CufileApi& api) {
    std::lock_guard<std::mutex> lock(mu_);
    if (refs_ == 0) {
      const abi::Error e = api.driver_open();
      if (e.err != abi::kSuccess && e.err != abi::kDriverAlreadyOpen) {
        return Status::Unavailable(cufile_status_text("cuFileDriverOpen", e));
      }
      abi::DrvPropsBuffer props{};
      if (api.driver_get_properties(&props).err == abi::kSuccess) {
        props_ = props.head;
        have_props_ = true;
      }
    }
    ++refs_;
    return Status::Ok();
  }

  void release(const CufileApi& api) {
    std::lock_guard<std::mutex> lock(mu_);
    if (refs_ > 0 && --refs_ == 0) api.driver_close();
  }

  // The facts the open driver adds, when it has been opened in this process.
  void add_facts(CufileModeFacts* f) const {
    std::lock_guard<std::mutex> lock(mu_);
    if (!have_props_) return;
    f->props_allow_compat = (props_.dcontrolflags & (1u << abi::kAllowCompatModeBit)) != 0;
    if (props_.major_version != 0 || props_.minor_version != 0) {
      f->nvfs_major = props_.major_version;
      f->nvfs_minor = props_.minor_version;
    }
  }

 private:
  mutable std::mutex mu_;
  int refs_ = 0;
  bool have_props_ = false;
  abi::DrvPropsHead props_{};
};

DriverRefs& driver_refs() {
  static DriverRefs refs;
  return refs;
}

// The process's file registrations, shared by its engines (cufile_handles.h says why).
CufileHandles& file_handles(const CufileApi& api) {
  static CufileHandles handles(
      [a = &api](int fd, abi::Handle* h) {
        abi::Descr d{};
        d.type = abi::kHandleTypeOpaqueFd;
        d.handle.fd = fd;
        d.fs_ops = nullptr;
        return a->handle_register(h, &d);
      },
      [a = &api](abi::Handle h) { a->handle_deregister(h); });
  return handles;
}

#ifdef IOFAB_HAVE_CUDA
constexpr bool kCudaBuilt = true;
#else
constexpr bool kCudaBuilt = false;
#endif

// The probe's answer, found once per process.
struct Probe {
  bool usable = false;
  std::string reason;
  bool have_facts = false;
  CufileModeFacts facts;
};

const Probe& probe() {
  static const Probe p = [] {
    Probe r;
    if (!kCudaBuilt) {
      r.reason = "built without CUDA";
      return r;
    }
    // The library first: it is the cheap question, and the CUDA one starts the driver.
    std::string why;
    if (process_cufile_api(&why) == nullptr) {
      r.reason = why;
      return r;
    }
    int n = 0;
    Status s = cufile_cuda::device_count(&n);
    if (!s.ok()) {
      r.reason = s.message();
      return r;
    }
    r.facts = read_cufile_mode_facts(process_env, "/");
    r.have_facts = true;
    const CufileMode m = decide_cufile_mode(r.facts);
    r.usable = m.usable;
    if (!m.usable) r.reason = m.text;
    return r;
  }();
  return p;
}

// ---- The engine.

class CufileEngine final : public Engine {
 public:
  CufileEngine(const CufileApi& api, int device) : api_(api), device_(device) {}

  ~CufileEngine() override {
    for (File& f : files_) {
      if (f.fd >= 0) file_handles(api_).release(f.fd, f.handle);
    }
    if (bind_thread().ok()) {
      for (Slot& s : slots_) drop(s);
      drop(scratch_);
    }
    driver_refs().release(api_);
  }

  std::string_view name() const override { return "cufile"; }
  EngineCaps caps() const override {
    return EngineCaps{.sync = true, .needs_aligned_buffers = true, .moves_data = true};
  }

  Status add_file(int fd, int* index) override {
    if (fd < 0) return Status::Invalid("cufile: add_file: bad fd " + std::to_string(fd));
    abi::Handle h = nullptr;
    const abi::Error e = file_handles(api_).acquire(fd, &h);
    if (e.err != abi::kSuccess) {
      std::string msg = cufile_status_text("cuFileHandleRegister", e);
      if (e.err == 5019 || e.err == 5020)
        msg += " (GPUDirect Storage needs files opened with O_DIRECT: direct: true)";
      return Status::IoError(msg);
    }
    for (size_t i = 0; i < files_.size(); ++i) {
      if (files_[i].fd < 0) {
        files_[i] = File{fd, h};
        *index = static_cast<int>(i);
        return Status::Ok();
      }
    }
    files_.push_back(File{fd, h});
    *index = static_cast<int>(files_.size() - 1);
    return Status::Ok();
  }

  Status remove_file(int index) override {
    File* f = file(index);
    if (f == nullptr) return Status::Invalid("cufile: remove_file: no file " + std::to_string(index));
    file_handles(api_).release(f->fd, f->handle);
    *f = File{};
    return Status::Ok();
  }

  // A device buffer per host buffer, registered with cuFile up front: registration
  // is slow, and an unregistered buffer costs cuFile an internal bounce per I/O.
  Status register_buffers(std::span<const iovec> bufs) override {
    Status s = bind_thread();
    if (!s.ok()) return s;
    for (Slot& old : slots_) drop(old);
    slots_.clear();
    for (const iovec& v : bufs) {
      Slot slot;
      slot.host = static_cast<const char*>(v.iov_base);
      s = fill(&slot, v.iov_len);
      if (!s.ok()) return s;
      slots_.push_back(slot);
    }
    return Status::Ok();
  }

  QueueResult queue(const IoRequest& req, IoCompletion* done) override {
    done->tag = req.tag;
    const File* f = file(req.file);
    if (f == nullptr) {
      done->result = -EBADF;
      return QueueResult::kCompleted;
    }
    done->result = transfer(*f, req);
    return QueueResult::kCompleted;
  }

  Status commit() override { return Status::Ok(); }

  Status reap(unsigned, std::span<IoCompletion>, unsigned* n) override {
    *n = 0;  // nothing is ever in flight
    return Status::Ok();
  }

  unsigned in_flight() const override { return 0; }

  Status fsync(int index) override {
    const File* f = file(index);
    if (f == nullptr) return Status::Invalid("cufile: fsync: no file " + std::to_string(index));
    while (::fsync(f->fd) != 0) {
      if (errno != EINTR) return Status::FromErrno("fsync", errno);
    }
    return Status::Ok();
  }

 private:
  struct File {
    int fd = -1;  // -1: free slot
    abi::Handle handle = nullptr;
  };
  struct Slot {
    const char* host = nullptr;  // the host buffer this device buffer mirrors
    size_t size = 0;
    void* device = nullptr;
    bool registered = false;  // with cuFileBufRegister
  };

  File* file(int index) {
    if (index < 0 || static_cast<size_t>(index) >= files_.size()) return nullptr;
    File* f = &files_[static_cast<size_t>(index)];
    return f->fd < 0 ? nullptr : f;
  }

  // cuFile and the copies act on the calling thread's current device.
  Status bind_thread() {
    const std::thread::id me = std::this_thread::get_id();
    if (bound_ == me) return Status::Ok();
    Status s = cufile_cuda::use_device(device_);
    if (s.ok()) bound_ = me;
    return s;
  }

  Status fill(Slot* slot, size_t size) {
    Status s = cufile_cuda::alloc(size, &slot->device);
    if (!s.ok()) return s;
    slot->size = size;
    const abi::Error e = api_.buf_register(slot->device, size, 0);
    if (e.err != abi::kSuccess) {
      drop(*slot);
      std::string msg = cufile_status_text("cuFileBufRegister", e) + " (" + std::to_string(size) +
                        " bytes of device memory";
      // Registration maps the buffer through the GPU's BAR1 window, whose size varies by GPU.
      if (e.err == 5016 || e.err == 5017 || e.err == 5045) {
        msg +=
            "; the GPU's BAR1 or cufile.json's max_device_pinned_mem_size_kb may be too small for "
            "queue_depth x block_size";
      }
      return Status::IoError(msg + ")");
    }
    slot->registered = true;
    return Status::Ok();
  }

  void drop(Slot& slot) {
    if (slot.device == nullptr) return;
    if (slot.registered) api_.buf_deregister(slot.device);
    cufile_cuda::release(slot.device);
    slot = Slot{};
  }

  // The device memory for a host range: its registered buffer's mirror, else
  // the scratch buffer (a short transfer's rest, or an unregistered buffer).
  // nullptr when the scratch buffer cannot be had.
  const Slot* device_for(const IoRequest& req, size_t* offset) {
    const auto p = reinterpret_cast<uintptr_t>(req.buf);
    auto inside = [&](const Slot& s) {
      const auto h = reinterpret_cast<uintptr_t>(s.host);
      return p >= h && p - h <= s.size && req.len <= s.size - (p - h);
    };
    const Slot* slot = nullptr;
    if (req.buf_index >= 0 && static_cast<size_t>(req.buf_index) < slots_.size() &&
        inside(slots_[static_cast<size_t>(req.buf_index)])) {
      slot = &slots_[static_cast<size_t>(req.buf_index)];
    } else {
      for (const Slot& s : slots_) {
        if (inside(s)) slot = &s;
      }
    }
    if (slot != nullptr) {
      *offset = static_cast<size_t>(p - reinterpret_cast<uintptr_t>(slot->host));
      return slot;
    }
    if (scratch_.size < req.len) {
      drop(scratch_);
      if (!fill(&scratch_, req.len).ok()) return nullptr;
    }
    *offset = 0;
    return &scratch_;
  }

  int64_t transfer(const File& f, const IoRequest& req) {
    if (!bind_thread().ok()) return -ENODEV;
    size_t off = 0;
    const Slot* slot = device_for(req, &off);
    if (slot == nullptr) return -ENOMEM;
    char* dev = static_cast<char*>(slot->device);
    if (req.op == IoOp::kWrite) {
      if (!cufile_cuda::to_device(dev + off, req.buf, req.len).ok()) return -EIO;
      errno = 0;
      const ssize_t n = api_.write(f.handle, slot->device, req.len, static_cast<off_t>(req.offset),
                                   static_cast<off_t>(off));
      return cufile_io_result(n, errno);
    }
    errno = 0;
    const ssize_t n =
        api_.read(f.handle, slot->device, req.len, static_cast<off_t>(req.offset), static_cast<off_t>(off));
    if (n > 0 && !cufile_cuda::to_host(req.buf, dev + off, static_cast<size_t>(n)).ok()) return -EIO;
    return cufile_io_result(n, errno);
  }

  const CufileApi& api_;
  int device_;
  std::thread::id bound_;
  std::vector<File> files_;
  std::vector<Slot> slots_;
  Slot scratch_;
};

}  // namespace

// ---- Probe, factory, mode.

bool cufile_usable(std::string* reason, std::string* mode) {
  const Probe& p = probe();
  *reason = p.reason;
  *mode = p.have_facts ? decide_cufile_mode(p.facts).text : std::string();
  return p.usable;
}

Status make_cufile_engine(const EngineOptions& opts, std::unique_ptr<Engine>* out) {
  if (!opts.direct) {
    return Status::Invalid(
        "engine cufile needs direct: true (GPUDirect Storage moves data between the device and O_DIRECT "
        "files; without it cuFile falls back to POSIX I/O through the page cache)");
  }
  const Probe& p = probe();
  if (!p.usable) return Status::Unavailable("engine cufile unavailable: " + p.reason);
  std::string why;
  const CufileApi* api = process_cufile_api(&why);
  if (api == nullptr) return Status::Unavailable("engine cufile unavailable: " + why);
  int n = 0;
  Status s = cufile_cuda::device_count(&n);
  if (!s.ok()) return Status::Unavailable("engine cufile unavailable: " + s.message());
  const int device = pick_cufile_device(n, process_env);
  // The driver needs a current CUDA context on the thread that opens it.
  s = cufile_cuda::use_device(device);
  if (!s.ok()) return Status::Unavailable("engine cufile unavailable: " + s.message());
  s = driver_refs().acquire(*api);
  if (!s.ok()) return Status::Unavailable("engine cufile unavailable: " + s.message());
  // From here the engine owns a driver reference and releases it when destroyed.
  *out = std::make_unique<CufileEngine>(*api, device);
  CufileModeFacts facts = read_cufile_mode_facts(process_env, "/");
  driver_refs().add_facts(&facts);
  const CufileMode m = decide_cufile_mode(facts);
  if (!m.usable) {
    out->reset();
    return Status::Unavailable("engine cufile unavailable: " + m.text);
  }
  return Status::Ok();
}

std::string cufile_mode_text() {
  const Probe& p = probe();
  if (!p.usable) return "";
  CufileModeFacts facts = read_cufile_mode_facts(process_env, "/");
  driver_refs().add_facts(&facts);
  return decide_cufile_mode(facts).text;
}

// ---- Without CUDA in the build, the runtime side answers Unavailable.

#ifndef IOFAB_HAVE_CUDA
namespace cufile_cuda {

Status device_count(int*) { return Status::Unavailable("built without CUDA"); }
Status use_device(int) { return Status::Unavailable("built without CUDA"); }
Status alloc(size_t, void**) { return Status::Unavailable("built without CUDA"); }
void release(void*) {}
Status to_device(void*, const void*, size_t) { return Status::Unavailable("built without CUDA"); }
Status to_host(void*, const void*, size_t) { return Status::Unavailable("built without CUDA"); }

}  // namespace cufile_cuda
#endif

}  // namespace iofab
