// What a train_read phase's epochs read through, on one rank: the GPU copier (to_gpu), the native loader
// with its engine, and with loader pytorch the DataLoader profile and the calibration whose costs it
// spins. TrainReadRun (train_read_run.cc) makes them after the dataset and closes them before its files.
#pragma once

#include <memory>
#include <nlohmann/json.hpp>

#include "harness/core/status.h"
#include "harness/gpu/batch_copy.h"
#include "harness/phase/phase.h"
#include "workloads/calibration/calibration.h"
#include "workloads/calibration/loader_costs.h"
#include "workloads/train_read/torch_loader_profile.h"
#include "workloads/train_read/train_dataset.h"
#include "workloads/train_read/train_loader.h"
#include "workloads/train_read/train_read_phase.h"

namespace iofab {

class TrainReaders {
 public:
  // make: the engine factory injected (tests); empty: the store's own or the one the params name.
  TrainReaders(const TrainReadParams& p, const EngineFactory& make, PhaseContext& ctx)
      : p_(p), make_(make), ctx_(ctx) {}

  // The GPU copier when asked for and possible, on the device of this rank's place on its host;
  // gpu_details() says which, and why not.
  void make_copier(const DatasetLayout& layout, int local_rank);
  // The loader (and with loader pytorch the profile), on every rank; drop_after_use: each sample's pages
  // dropped once used.
  Status make_loader(const TrainDataset& dataset, bool drop_after_use);
  // The loader and the profile closed (their engines with them), then the copier.
  void close_loaders();
  void close_copier() { copier_.reset(); }

  TrainLoader* loader() const { return loader_.get(); }
  TorchLoaderProfile* profile() const { return profile_.get(); }
  const nlohmann::json& gpu_details() const { return gpu_; }
  const Calibration& calibration() const { return calibration_; }
  const LoaderCalibration& costs() const { return costs_; }
  bool costs_from_file() const { return costs_from_file_; }

 private:
  // The DataLoader profile, with the costs of the calibration it finds (torch_loader_profile.h).
  Status make_profile(const TrainDataset& dataset, bool drop_after_use);

  const TrainReadParams& p_;
  const EngineFactory& make_;
  PhaseContext& ctx_;
  std::unique_ptr<BatchCopier> copier_;
  nlohmann::json gpu_;
  std::unique_ptr<TrainLoader> loader_;
  std::unique_ptr<TorchLoaderProfile> profile_;  // loader pytorch
  Calibration calibration_;
  LoaderCalibration costs_;
  bool costs_from_file_ = false;
};

}  // namespace iofab
