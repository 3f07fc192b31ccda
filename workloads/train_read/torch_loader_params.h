// train_read's `loader` param and the PyTorch DataLoader profile's own params (loader: pytorch):
// num_workers, prefetch_factor, persistent_workers, pin_memory as torch.utils.data.DataLoader takes them,
// storage_ceiling (the native pass beside the profile) and calibration (the calibration file's path).
#pragma once

#include <string>

namespace iofab {

class ParamReader;

enum class LoaderKind { kNative, kPytorch };

struct TorchLoaderParams {
  unsigned num_workers = 2;  // 0: the main process reads and collates, as torch does
  unsigned prefetch_factor = 2;
  bool persistent_workers = false;
  bool pin_memory = false;
  bool storage_ceiling = true;  // after the profile's epochs, one native epoch: the storage's ceiling
  std::string calibration;      // a calibration file; empty: $IOFAB_CALIBRATION, the default path, built-in
};

// Reads `loader` and, with pytorch, its params; a profile param given with loader native is refused
// naming it.
void read_loader_params(ParamReader& r, LoaderKind* kind, TorchLoaderParams* out);

}  // namespace iofab
