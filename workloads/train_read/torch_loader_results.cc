#include "workloads/train_read/torch_loader_results.h"

#include <algorithm>

namespace iofab {
namespace {

using nlohmann::json;

double ratio(double a, double b) { return b > 0 ? a / b : 0.0; }

// The native epochs of every rank, merged as the phase's own epochs are: samples over the slowest end.
void add_ceiling(const TrainReadParams& p, const std::vector<RankReport>& ranks, const std::string& engine,
                 PhaseResult* result) {
  EpochStats sum;
  bool complete = !ranks.empty();
  for (const RankReport& r : ranks) {
    complete = complete && !r.ceiling_epochs.empty() && r.ceiling_epochs.front().ok;
    for (const EpochRecord& e : r.ceiling_epochs) sum.merge(e.stats);
  }
  const double seconds = static_cast<double>(sum.end_ns) * 1e-9;
  const double samples_per_s = ratio(static_cast<double>(sum.reads.ios), seconds);
  auto& m = result->metrics;
  m["storage_ceiling_samples_per_s"] = samples_per_s;
  m["storage_ceiling_read_bytes_per_s"] = ratio(static_cast<double>(sum.reads.bytes), seconds);
  const double got = m.count("samples_per_s") > 0 ? m["samples_per_s"] : 0.0;
  m["framework_fraction"] = ratio(got, samples_per_s);
  result->details["storage_ceiling"] = {{"loader", "native"},
                                        {"engine", engine},
                                        {"read_threads", p.read_threads},
                                        {"queue_depth", p.queue_depth},
                                        {"prefetch", p.prefetch},
                                        {"epochs", 1},
                                        {"complete", complete},
                                        {"seconds", seconds},
                                        {"samples", sum.reads.ios},
                                        {"read_bytes", sum.reads.bytes},
                                        {"samples_per_s", samples_per_s},
                                        {"cache_dropped", p.drop_cache != DropCache::kNever}};
}

json loader_json(const TorchLoaderParams& t) {
  return {{"kind", "pytorch"},
          {"num_workers", t.num_workers},
          {"prefetch_factor", t.prefetch_factor},
          {"persistent_workers", t.persistent_workers},
          {"pin_memory", t.pin_memory},
          {"storage_ceiling", t.storage_ceiling},
          {"models",
           "torch.utils.data.DataLoader (torch 1.13), map-style Dataset reading one file per sample "
           "with open(path, 'rb').read() into a bytearray, default_collate, shuffle"}};
}

}  // namespace

void summarize_loader_profile(const TrainReadParams& p, const std::vector<RankReport>& ranks,
                              const LoaderProfileSummary& s, PhaseResult* result) {
  auto& d = result->details;
  d["loader"] = loader_json(p.torch);
  if (!ranks.empty()) d["loader_profile"] = ranks.front().loader_profile;
  if (ranks.size() > 1) {
    json all = json::array();
    for (const RankReport& r : ranks) all.push_back(r.loader_profile);
    d["loader_profile_ranks"] = all;
  }
  json cal = s.calibration->provenance();
  cal["loader_section"] = s.costs_from_file ? "file" : "built-in";
  cal["loader"] = s.costs->to_json();
  d["calibration"] = cal;
  if (p.torch.storage_ceiling) add_ceiling(p, ranks, s.ceiling_engine, result);
  if (!s.costs_from_file) {
    result->warnings.push_back(
        std::string(s.calibration->built_in()
                        ? "no calibration file was found"
                        : "the calibration file " + s.calibration->source + " has no loader section") +
        ": the DataLoader profile spent the built-in costs measured on iofab's 2-core development VM "
        "(docs/calibration.md); run `iofab calibrate` where python3 has torch for this machine's");
  }
  if (p.torch.pin_memory) {
    result->warnings.push_back(
        "pin_memory: the profile copies each batch once in the main loop, as torch with CUDA pins it; "
        "CPU-only torch ignores pin_memory (no copy), so compare such a run with pin_memory false");
  }
}

}  // namespace iofab
