// cufile engine: cuFile loaded with dlopen, the compat-mode facts, and the
// engine itself. The CUDA runtime calls live in cufile_engine_cuda.cc.
#include "harness/engines/cufile_engine.h"

#include <dlfcn.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "harness/core/input_file.h"
#include "harness/core/json_input.h"
#include "harness/engines/cufile_abi.h"
#include "harness/engines/cufile_handles.h"

namespace iofab {

namespace {

namespace abi = cufile_abi;

constexpr const char* kLibraryNames[] = {"libcufile.so.0", "libcufile.so"};

struct CufileApi {
  void* lib = nullptr;
  std::string name;
  abi::DriverOpenFn driver_open = nullptr;
  abi::DriverCloseFn driver_close = nullptr;
  abi::DriverGetPropertiesFn driver_get_properties = nullptr;
  abi::HandleRegisterFn handle_register = nullptr;
  abi::HandleDeregisterFn handle_deregister = nullptr;
  abi::BufRegisterFn buf_register = nullptr;
  abi::BufDeregisterFn buf_deregister = nullptr;
  abi::ReadFn read = nullptr;
  abi::WriteFn write = nullptr;
};

template <class Fn>
bool resolve(void* lib, const char* symbol, Fn* fn, std::string* missing) {
  *fn = reinterpret_cast<Fn>(dlsym(lib, symbol));
  if (*fn == nullptr && missing->empty()) *missing = symbol;
  return *fn != nullptr;
}

// Opens the first of names that has every symbol. On failure, why names the
// first library's problem (the versioned name is the one a GDS install has).
bool load_api(std::span<const char* const> names, CufileApi* api, std::string* why) {
  std::string first;
  std::string tried;
  for (const char* name : names) {
    void* lib = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    std::string problem;
    if (lib == nullptr) {
      const char* e = dlerror();
      problem = e != nullptr ? e : std::string(name) + ": cannot be loaded";
    } else {
      CufileApi a;
      a.lib = lib;
      a.name = name;
      std::string missing;
      resolve(lib, "cuFileDriverOpen", &a.driver_open, &missing);
      // cufile.h maps cuFileDriverClose to the reference-counted _v2 where the library has it.
      a.driver_close = reinterpret_cast<abi::DriverCloseFn>(dlsym(lib, "cuFileDriverClose_v2"));
      if (a.driver_close == nullptr) resolve(lib, "cuFileDriverClose", &a.driver_close, &missing);
      resolve(lib, "cuFileDriverGetProperties", &a.driver_get_properties, &missing);
      resolve(lib, "cuFileHandleRegister", &a.handle_register, &missing);
      resolve(lib, "cuFileHandleDeregister", &a.handle_deregister, &missing);
      resolve(lib, "cuFileBufRegister", &a.buf_register, &missing);
      resolve(lib, "cuFileBufDeregister", &a.buf_deregister, &missing);
      resolve(lib, "cuFileRead", &a.read, &missing);
      resolve(lib, "cuFileWrite", &a.write, &missing);
      if (missing.empty()) {
        *api = a;
        return true;
      }
      problem = std::string(name) + ": undefined symbol " + missing;
      dlclose(lib);
    }
    if (first.empty()) {
      first = problem;
    } else {
      tried += tried.empty() ? " (also tried " : ", ";
      tried += name;
    }
  }
  *why = "cuFile not found: " + first + (tried.empty() ? "" : tried + ")");
  return false;
}

// The process's cuFile, loaded once and never unloaded: the library starts
// threads and registers with the CUDA driver, so dlclose is not safe.
const CufileApi* process_api(std::string* why) {
  static std::string load_error;
  static const CufileApi* api = [] {
    auto* a = new CufileApi;
    if (load_api(kLibraryNames, a, &load_error)) return static_cast<const CufileApi*>(a);
    delete a;
    return static_cast<const CufileApi*>(nullptr);
  }();
  if (api == nullptr) *why = load_error;
  return api;
}

std::string cufile_status_text(const char* call, abi::Error e) {
  std::string s = std::string(call) + ": " + cufile_error_text(e.err);
  if (e.err == 5011) s += ", CUDA driver error " + std::to_string(e.cu_err);
  return s;
}

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

std::optional<bool> parse_flag(std::string_view v) {
  std::string s(v);
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (s == "true" || s == "1" || s == "yes" || s == "on") return true;
  if (s == "false" || s == "0" || s == "no" || s == "off") return false;
  return std::nullopt;
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
    if (process_api(&why) == nullptr) {
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
  const CufileApi* api = process_api(&why);
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

// ---- Pure pieces.

Status probe_cufile_library(std::span<const char* const> names) {
  CufileApi api;
  std::string why;
  if (!load_api(names, &api, &why)) return Status::Unavailable(why);
  // Left loaded: like process_api's, a loaded cuFile is never unloaded.
  return Status::Ok();
}

std::string cufile_error_text(int code) {
  const char* text = nullptr;
  switch (code) {
    case 0:
      text = "success";
      break;
    case 5001:
      text = "nvidia-fs driver is not loaded";
      break;
    case 5002:
      text = "invalid property";
      break;
    case 5003:
      text = "property out of range";
      break;
    case 5004:
      text = "nvidia-fs driver version mismatch";
      break;
    case 5005:
      text = "nvidia-fs driver version could not be read";
      break;
    case 5006:
      text = "driver is shutting down";
      break;
    case 5007:
      text = "GPUDirect Storage is not supported on this platform";
      break;
    case 5008:
      text = "GPUDirect Storage is not supported on this file";
      break;
    case 5009:
      text = "GPUDirect Storage is not supported on this GPU";
      break;
    case 5010:
      text = "nvidia-fs driver ioctl failed";
      break;
    case 5011:
      text = "CUDA driver API error";
      break;
    case 5012:
      text = "invalid device pointer";
      break;
    case 5013:
      text = "invalid pointer memory type";
      break;
    case 5014:
      text = "pointer range exceeds the allocation";
      break;
    case 5015:
      text = "CUDA context mismatch";
      break;
    case 5016:
      text = "beyond the maximum pinned memory size";
      break;
    case 5017:
      text = "beyond the mapped size";
      break;
    case 5018:
      text = "unsupported file type";
      break;
    case 5019:
      text = "unsupported file open flags";
      break;
    case 5020:
      text = "file was not opened with O_DIRECT";
      break;
    case 5022:
      text = "invalid arguments";
      break;
    case 5023:
      text = "device pointer already registered";
      break;
    case 5024:
      text = "device pointer lookup failed";
      break;
    case 5025:
      text = "driver or file access error";
      break;
    case 5026:
      text = "driver is already open";
      break;
    case 5027:
      text = "file descriptor is not registered";
      break;
    case 5028:
      text = "file descriptor is already registered";
      break;
    case 5029:
      text = "GPU device not found";
      break;
    case 5030:
      text = "internal error (see cufile.log)";
      break;
    case 5031:
      text = "could not obtain a new file descriptor";
      break;
    case 5033:
      text = "nvidia-fs driver initialization failed";
      break;
    case 5034:
      text = "GPUDirect Storage is disabled by the configuration for this file";
      break;
    case 5035:
      text = "batch submit failed";
      break;
    case 5036:
      text = "could not allocate pinned GPU memory";
      break;
    case 5037:
      text = "batch queue full";
      break;
    case 5038:
      text = "asynchronous I/O is not supported";
      break;
    case 5043:
      text = "out of memory";
      break;
    case 5044:
      text = "I/O error";
      break;
    case 5045:
      text = "buffer registration failed";
      break;
    case 5047:
      text = "invalid CUDA context";
      break;
    case 5048:
      text = "nvidia-fs internal driver error";
      break;
    case 5049:  // CU_FILE_BATCH_NOCOMPAT_ERROR
      text = "batch I/O cannot run in compat mode";
      break;
    default:
      break;
  }
  if (text == nullptr) return "cuFile error " + std::to_string(code);
  return std::string(text) + " (" + std::to_string(code) + ")";
}

int64_t cufile_io_result(ssize_t ret, int saved_errno) {
  if (ret >= 0) return static_cast<int64_t>(ret);
  if (ret == -1) return -static_cast<int64_t>(saved_errno > 0 ? saved_errno : EIO);
  const int64_t code = -static_cast<int64_t>(ret);
  if (code < 5000) return -code;  // some releases return -errno directly
  switch (code) {
    case 5019:
    case 5020:
    case 5022:
      return -EINVAL;
    case 5007:
    case 5008:
    case 5009:
    case 5018:
    case 5034:
    case 5049:
      return -EOPNOTSUPP;
    case 5016:
    case 5036:
    case 5043:
      return -ENOMEM;
    default:
      return -EIO;
  }
}

Status parse_cufile_config(std::string_view text, CufileModeFacts* facts) {
  nlohmann::json j;
  JsonInputOptions options;
  options.allow_comments = true;
  if (Status s = parse_json_input(text, options, &j); !s.ok()) return s;
  if (!j.is_object()) return Status::Invalid("expected an object at the top level");
  const auto props = j.find("properties");
  if (props == j.end()) return Status::Ok();
  if (!props->is_object()) return Status::Invalid("properties: expected an object");
  auto flag = [&](const char* key, std::optional<bool>* out) -> Status {
    const auto v = props->find(key);
    if (v == props->end()) return Status::Ok();
    if (!v->is_boolean())
      return Status::Invalid(std::string("properties.") + key + ": expected true or false");
    *out = v->get<bool>();
    return Status::Ok();
  };
  Status s = flag("allow_compat_mode", &facts->json_allow_compat);
  if (s.ok()) s = flag("force_compat_mode", &facts->json_force_compat);
  if (s.ok()) s = flag("use_pci_p2pdma", &facts->json_pci_p2pdma);
  return s;
}

CufileModeFacts read_cufile_mode_facts(const EnvLookup& env, const std::string& root) {
  namespace fs = std::filesystem;
  CufileModeFacts f;
  if (auto v = env("CUFILE_FORCE_COMPAT_MODE")) f.env_force_compat = parse_flag(*v);
  if (auto v = env("CUFILE_ALLOW_COMPAT_MODE")) f.env_allow_compat = parse_flag(*v);
  const std::optional<std::string> custom = env("CUFILE_ENV_PATH_JSON");
  f.config_path = custom && !custom->empty() ? *custom : "/etc/cufile.json";
  const fs::path base(root.empty() ? "/" : root);
  const fs::path config = base / fs::path(f.config_path).relative_path();
  std::error_code ec;
  if (fs::exists(config, ec)) {
    // Non-blocking and bounded: CUFILE_ENV_PATH_JSON may name a FIFO or a device.
    std::string text;
    Status s = read_input_file(config.string(), kMaxConfigFileBytes, &text);
    if (!s.ok()) {
      f.config_error = "cannot be read (" + s.message() + ")";
    } else {
      s = parse_cufile_config(text, &f);
      if (!s.ok()) f.config_error = s.message();
    }
  }
  f.nvfs_loaded = fs::exists(base / "proc/driver/nvidia-fs", ec);
  return f;
}

CufileMode decide_cufile_mode(const CufileModeFacts& f) {
  CufileMode m;
  const std::string cfg = f.config_path.empty() ? "cufile.json" : f.config_path;
  std::string note;
  if (!f.config_error.empty()) note = "; " + cfg + " ignored: " + f.config_error;
  // The environment overrides the file (cuFile's own precedence).
  const bool force = f.env_force_compat.value_or(f.json_force_compat.value_or(false));
  if (force) {
    m.compat = true;
    m.text = std::string("compat mode, forced by ") +
             (f.env_force_compat ? "CUFILE_FORCE_COMPAT_MODE" : "properties.force_compat_mode in " + cfg) +
             ": cuFile does POSIX I/O through host memory, not GPUDirect" + note;
    return m;
  }
  bool allow = true;
  std::string allow_source = "cuFile's default";
  if (f.props_allow_compat) {
    allow = *f.props_allow_compat;
    allow_source = "the driver's properties";
  } else if (f.env_allow_compat) {
    allow = *f.env_allow_compat;
    allow_source = "CUFILE_ALLOW_COMPAT_MODE";
  } else if (f.json_allow_compat) {
    allow = *f.json_allow_compat;
    allow_source = cfg;
  }
  const std::string allow_text =
      std::string("allow_compat_mode ") + (allow ? "true" : "false") + " (" + allow_source + ")";
  const bool p2pdma = f.json_pci_p2pdma.value_or(false);
  // An open driver that reports an nvidia-fs version has the module, whatever /proc showed.
  const bool nvfs = f.nvfs_loaded || f.nvfs_major.has_value();
  if (!nvfs && !p2pdma) {
    if (allow) {
      m.compat = true;
      m.text =
          "compat mode: nvidia-fs is not loaded (no /proc/driver/nvidia-fs) and PCI P2PDMA is off, so "
          "cuFile does POSIX I/O through host memory; " +
          allow_text + note;
    } else {
      m.usable = false;
      m.text =
          "no GPUDirect path: nvidia-fs is not loaded (no /proc/driver/nvidia-fs), PCI P2PDMA is off, "
          "and " +
          allow_text + note;
    }
    return m;
  }
  std::string path;
  if (nvfs) {
    path = "nvidia-fs";
    if (f.nvfs_major)
      path += " " + std::to_string(*f.nvfs_major) + "." + std::to_string(f.nvfs_minor.value_or(0));
  } else {
    path = "PCI P2PDMA";
  }
  m.text = "GPUDirect Storage (" + path + "); on a file or filesystem without GPUDirect support cuFile " +
           (allow ? "falls back to compat mode (POSIX I/O through host memory)" : "fails the I/O") + ": " +
           allow_text + note;
  return m;
}

int pick_cufile_device(int count, const EnvLookup& env) {
  if (count <= 0) return 0;
  for (const char* name : {"LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID", "SLURM_LOCALID"}) {
    const std::optional<std::string> v = env(name);
    if (!v || v->empty()) continue;
    char* end = nullptr;
    errno = 0;
    const long r = std::strtol(v->c_str(), &end, 10);
    if (errno != 0 || *end != '\0' || r < 0) continue;
    return static_cast<int>(r % count);
  }
  return 0;
}

std::optional<std::string> process_env(std::string_view name) {
  const char* v = std::getenv(std::string(name).c_str());
  if (v == nullptr) return std::nullopt;
  return std::string(v);
}

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
