#include "workloads/model_load/safetensors_ready.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <memory>

#include "harness/engines/io_driver.h"
#include "workloads/model_load/model_files.h"

namespace iofab {
namespace {

struct Mapping {
  void* at = MAP_FAILED;
  size_t bytes = 0;
  ~Mapping() {
    if (at != MAP_FAILED) munmap(at, bytes);
  }
};

// One file: mapped privately, its header parsed, each tensor copied once in sorted-name order.
Status load_file(const std::string& path, int fd, uint64_t file_bytes, const ItemCosts& spin,
                 SafetensorsLoad* out) {
  if (file_bytes < 8) return Status::Invalid(path + ": shorter than a safetensors header");
  Mapping m;
  m.bytes = file_bytes;
  m.at = mmap(nullptr, file_bytes, PROT_READ, MAP_PRIVATE, fd, 0);
  if (m.at == MAP_FAILED) return Status::FromErrno("mmap " + path, errno);
  const auto* base = static_cast<const unsigned char*>(m.at);
  uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | base[i];
  if (n > kMaxSafetensorsHeader || 8 + n > file_bytes)
    return Status::Invalid(path + ": header length out of range");
  ParsedHeader header;
  Status s = parse_safetensors_header(std::string_view(reinterpret_cast<const char*>(base) + 8, n),
                                      file_bytes - 8 - n, &header);
  if (!s.ok()) return Status::Invalid(path + ": " + s.message());
  std::sort(header.tensors.begin(), header.tensors.end(),
            [](const SafetensorsTensor& a, const SafetensorsTensor& b) { return a.name < b.name; });
  const unsigned char* data = base + 8 + n;
  for (const SafetensorsTensor& t : header.tensors) {
    // Fresh memory each time, as each tensor's clone allocates its own (and faults its pages in).
    std::unique_ptr<unsigned char, decltype(&std::free)> copy(
        static_cast<unsigned char*>(std::malloc(std::max<uint64_t>(t.bytes(), 1))), &std::free);
    if (!copy) return Status::IoError(path + ": no memory for tensor " + t.name);
    std::memcpy(copy.get(), data + t.begin, t.bytes());
    spin_cpu(spin.seconds(1, static_cast<double>(t.bytes())));
    ++out->tensors;
    out->bytes += t.bytes();
  }
  return Status::Ok();
}

}  // namespace

Status safetensors_load(const PhaseContext& ctx, const std::string& folder,
                        const std::vector<WeightFile>& files, const ItemCosts& spin, uint64_t t0,
                        SafetensorsLoad* out) {
  for (const WeightFile& f : files) {
    if (ctx.stop.load()) return Status::Interrupted("stopped");
    StoreFile file;
    const std::string path = join_store_path(folder, f.name);
    Status s = ctx.store->open(path, {}, &file);
    if (s.ok() && file.fd() < 0) {
      out->error = "the store gives no file descriptor to map (an object store): not measured";
      return Status::Ok();
    }
    if (s.ok()) s = load_file(f.name, file.fd(), f.bytes, spin, out);
    if (!s.ok()) {
      out->error = s.message();
      return Status::Ok();
    }
  }
  out->ready_ns = now_ns() - t0;
  return Status::Ok();
}

}  // namespace iofab
