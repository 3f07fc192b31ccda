#include "workloads/train_read/torch_loader_params.h"

#include <string_view>

#include "harness/phase/params.h"
#include "workloads/calibration/calibration.h"
#include "workloads/calibration/loader_costs.h"

namespace iofab {
namespace {

constexpr std::string_view kProfileKeys[] = {"num_workers", "prefetch_factor", "persistent_workers",
                                             "pin_memory",  "storage_ceiling", "calibration"};

}  // namespace

void read_loader_params(ParamReader& r, LoaderKind* kind, TorchLoaderParams* out) {
  *kind = r.choice("loader", "native", {"native", "pytorch"}) == "pytorch" ? LoaderKind::kPytorch
                                                                           : LoaderKind::kNative;
  if (*kind == LoaderKind::kNative) {
    for (std::string_view key : kProfileKeys) {
      if (r.raw(key) != nullptr) r.fail(key, "applies only to loader: pytorch (the DataLoader profile)");
    }
    return;
  }
  TorchLoaderParams p;
  p.num_workers = static_cast<unsigned>(r.integer("num_workers", 2, 0, 1024));
  const bool prefetch_given = r.raw("prefetch_factor") != nullptr;
  p.prefetch_factor = static_cast<unsigned>(r.integer("prefetch_factor", 2, 1, 65536));
  p.persistent_workers = r.boolean("persistent_workers", false);
  p.pin_memory = r.boolean("pin_memory", false);
  p.storage_ceiling = r.boolean("storage_ceiling", true);
  p.calibration = r.string("calibration", "");
  // torch.utils.data.DataLoader refuses these two with num_workers 0 (ValueError): so does the profile.
  if (p.num_workers == 0 && prefetch_given) {
    r.fail("prefetch_factor",
           "needs num_workers >= 1 (with 0 the main process loads, nothing is prefetched)");
  }
  if (p.num_workers == 0 && p.persistent_workers) {
    r.fail("persistent_workers", "needs num_workers >= 1 (there are no workers to keep)");
  }
  // A calibration file named here is read now, so a bad one stops the suite before anything is written.
  if (!p.calibration.empty()) {
    Calibration c;
    LoaderCalibration costs;
    bool from_file = false;
    Status s = load_calibration_file(p.calibration, &c);
    if (s.ok()) s = loader_calibration(c, &costs, &from_file);
    if (!s.ok()) r.fail("calibration", s.message());
  }
  *out = p;
}

}  // namespace iofab
