// cuFile without iofab: built on the GPU node against NVIDIA's own cufile.h (ci/device/cufile_io.sh),
// it writes 4 MiB from device memory to an O_DIRECT file, reads it back into another device buffer
// and compares, printing each call's status as one JSON line. Where it passes and iofab's cufile
// engine fails, the engine is at fault; where both fail alike, it is the node's cuFile setup.
//   cufile_probe FILE
#include <cuda_runtime.h>
#include <cufile.h>
#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

namespace {

std::string steps;

bool step(const char* name, int err, int cu_err = 0) {
  if (!steps.empty()) steps += ", ";
  steps += "{\"call\": \"" + std::string(name) + "\", \"err\": " + std::to_string(err) +
           ", \"cu_err\": " + std::to_string(cu_err) + "}";
  return err == 0;
}

int finish(bool ok, const std::string& note) {
  std::printf("{\"ok\": %s, \"note\": \"%s\", \"steps\": [%s]}\n", ok ? "true" : "false", note.c_str(),
              steps.c_str());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  constexpr size_t kBytes = 4u << 20;
  if (!step("cudaSetDevice", cudaSetDevice(0))) return finish(false, "no CUDA device");
  CUfileError_t e = cuFileDriverOpen();
  if (!step("cuFileDriverOpen", e.err, e.cu_err)) return finish(false, "driver open failed");
  const int fd = open(argv[1], O_CREAT | O_RDWR | O_DIRECT | O_TRUNC, 0600);
  if (!step("open O_DIRECT", fd < 0 ? errno : 0)) return finish(false, "open failed");
  CUfileDescr_t d;
  std::memset(&d, 0, sizeof d);
  d.type = CU_FILE_HANDLE_TYPE_OPAQUE_FD;
  d.handle.fd = fd;
  CUfileHandle_t h = nullptr;
  e = cuFileHandleRegister(&h, &d);
  if (!step("cuFileHandleRegister", e.err, e.cu_err)) return finish(false, "register failed");
  void* src = nullptr;
  void* dst = nullptr;
  step("cudaMalloc", cudaMalloc(&src, kBytes) | cudaMalloc(&dst, kBytes));
  std::vector<unsigned char> host(kBytes);
  for (size_t i = 0; i < kBytes; ++i) host[i] = static_cast<unsigned char>(i * 131 + 7);
  step("cudaMemcpy", cudaMemcpy(src, host.data(), kBytes, cudaMemcpyHostToDevice));
  e = cuFileBufRegister(src, kBytes, 0);
  step("cuFileBufRegister", e.err, e.cu_err);
  const ssize_t w = cuFileWrite(h, src, kBytes, 0, 0);
  if (!step("cuFileWrite", w == static_cast<ssize_t>(kBytes) ? 0 : static_cast<int>(w < 0 ? w : -1)))
    return finish(false, "write returned " + std::to_string(w));
  const ssize_t r = cuFileRead(h, dst, kBytes, 0, 0);
  if (!step("cuFileRead", r == static_cast<ssize_t>(kBytes) ? 0 : static_cast<int>(r < 0 ? r : -1)))
    return finish(false, "read returned " + std::to_string(r));
  std::vector<unsigned char> back(kBytes);
  step("cudaMemcpy back", cudaMemcpy(back.data(), dst, kBytes, cudaMemcpyDeviceToHost));
  const bool same = back == host;
  cuFileBufDeregister(src);
  cuFileHandleDeregister(h);
  close(fd);
  cuFileDriverClose();
  return finish(same, same ? "4 MiB written and read back, every byte the same" : "read back differs");
}
