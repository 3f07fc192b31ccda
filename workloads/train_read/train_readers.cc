#include "workloads/train_read/train_readers.h"

#include <cmath>
#include <string>

#include "harness/comm/agree.h"
#include "harness/store/store.h"

namespace iofab {

void TrainReaders::make_copier(const DatasetLayout& layout, int local_rank) {
  gpu_ = {{"requested", p_.to_gpu}, {"used", false}};
  if (!p_.to_gpu) return;
  Status cs =
      BatchCopier::create(p_.prefetch + 1, p_.batch_size * layout.max_sample_size(), local_rank, &copier_);
  if (cs.ok()) {
    gpu_["used"] = true;
    gpu_["device"] = copier_->device();
  } else {
    gpu_["reason"] = cs.message();
  }
}

Status TrainReaders::make_loader(const TrainDataset& dataset, bool drop_after_use) {
  // The engine: the one injected (tests), else the store's own (s3 on an object store) or the one asked
  // for.
  EngineFactory make = make_;
  Status engine = Status::Ok();
  if (!make) {
    std::string name;
    engine = engine_for_store(*dataset.store(), p_.engine, &name);
    make = [this, name](const EngineOptions& eo, std::unique_ptr<Engine>* out) {
      return make_phase_engine(ctx_, name, eo, out);
    };
  }
  LoaderConfig lc;
  lc.read_threads = p_.read_threads;
  lc.queue_depth = p_.queue_depth;
  lc.prefetch = p_.prefetch;
  lc.compute_ns = static_cast<uint64_t>(std::llround(p_.compute_per_batch * 1e9));
  lc.direct = p_.direct;
  lc.max_request = p_.read_size;
  lc.drop_after_use = drop_after_use;
  lc.map_advice = p_.madvise;
  lc.series_interval_ns = p_.series_interval_ns;
  lc.cache_tier = !p_.cache_dir.empty();
  Status st =
      agree(ctx_.comm, engine.ok() ? TrainLoader::create(lc, dataset.layout(), *dataset.store(),
                                                         dataset.data(), make, copier_.get(), &loader_)
                                   : engine);
  if (st.ok() && p_.loader == LoaderKind::kPytorch)
    st = agree(ctx_.comm, make_profile(dataset, drop_after_use));
  return st;
}

Status TrainReaders::make_profile(const TrainDataset& dataset, bool drop_after_use) {
  if (!dataset_has_page_cache(*dataset.store())) {
    return Status::Invalid("loader: pytorch reads files through a filesystem; the target is an object store");
  }
  Status s = find_calibration(p_.torch.calibration, &calibration_);
  if (s.ok()) s = loader_calibration(calibration_, &costs_, &costs_from_file_);
  if (!s.ok()) return s;
  TorchProfileConfig tc;
  tc.params = p_.torch;
  tc.spin = costs_.spin();
  tc.sample_spin = costs_.sample_spin();
  tc.collate_spin = costs_.collate_spin();
  tc.compute_ns = static_cast<uint64_t>(std::llround(p_.compute_per_batch * 1e9));
  tc.drop_after_use = drop_after_use;
  tc.series_interval_ns = p_.series_interval_ns;
  return TorchLoaderProfile::create(tc, dataset.layout(), dataset.path() + "/" + kDataFolder, &profile_);
}

void TrainReaders::close_loaders() {
  profile_.reset();
  loader_.reset();
}

}  // namespace iofab
