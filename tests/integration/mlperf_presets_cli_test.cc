// The shipped MLPerf Storage training presets: each validates as a built-in suite, and a bad
// override of the new loader params stops the run with exit 2 naming the field.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "test_util.h"

namespace iofab::testing {
namespace {

TEST(MlperfPresetsCli, EveryTrainingPresetValidates) {
  for (const char* name : {"mlperf-unet3d", "mlperf-resnet50", "mlperf-cosmoflow", "mlperf-retinanet",
                           "mlperf-flux", "mlperf-dlrm", "mlperf-unet3d-b200", "mlperf-retinanet-b200",
                           "mlperf-retinanet-mi355"}) {
    const CommandResult r = run_iofab({"validate", name});
    EXPECT_EQ(r.exit_code, 0) << name << ": " << r.err;
    EXPECT_NE(r.out.find("\"mlperf\": true"), std::string::npos) << name;
  }
}

nlohmann::json resolved_params(const char* suite) {
  const CommandResult r = run_iofab({"validate", suite});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return nlohmann::json::parse(r.out)["phases"][0]["params"];
}

// The training presets read as DLIO (argonne-lcf/dlio_benchmark, branch mlperf_storage_v2.0) reads by
// default: through the page cache (no O_DIRECT: DLIO's odirect defaults to False, utils/config.py line
// 147), in 256 KiB requests (np.load of an npz: numpy/lib/format.py BUFFER_SIZE = 2**18; TFRecordDataset:
// reader/tf_reader.py line 91 leaves buffer_size at tf.data's 256 KiB), pages dropped after use at the
// scaled size.
TEST(MlperfPresetsCli, TrainingPresetsReadBufferedInDliosRequestSizes) {
  for (const char* name : {"mlperf-unet3d", "mlperf-resnet50", "mlperf-cosmoflow"}) {
    const nlohmann::json p = resolved_params(name);
    EXPECT_EQ(p["direct"], false) << name;
    EXPECT_EQ(p["read_size"], 256 * 1024) << name;
    EXPECT_EQ(p["drop_after_use"], "auto") << name;
    EXPECT_EQ(p["queue_depth"], 1) << name;
  }
}

// unet3d as DLIO's PyTorch path reads it: sizes from its generator (data_generator/data_generator.py line
// 56: int(d1) x int(d2)), each rank's fixed block in index order (torch_data_loader.py dlio_sampler, lines
// 88-107), and prefetch_factor = ceil(prefetch_size 2 / read_threads 4) = 1 per worker (line 120), so
// 4 workers x 1 = 4 batches in flight; tf.data's presets prefetch prefetch_size = 2 batches
// (reader/tf_reader.py line 112).
TEST(MlperfPresetsCli, Unet3dUsesDliosSizesOrderAndPrefetch) {
  const nlohmann::json u = resolved_params("mlperf-unet3d");
  EXPECT_EQ(u["sample_size_distribution"], "dlio_product");
  EXPECT_EQ(u["order"], "dlio_torch");
  const int threads = u["read_threads"];
  EXPECT_EQ(threads, 4);
  EXPECT_EQ(u["prefetch"], threads * ((2 + threads - 1) / threads));
  EXPECT_EQ(resolved_params("mlperf-resnet50")["prefetch"], 2);
  // DLIO's step cap, floor(samples / batch / ranks) (main.py _train max_steps): the tf.data presets drop
  // a rank's short last batch (the PyTorch ones get it from order dlio_torch).
  EXPECT_EQ(resolved_params("mlperf-resnet50")["drop_last"], true);
  EXPECT_EQ(resolved_params("mlperf-cosmoflow")["drop_last"], true);
  EXPECT_EQ(resolved_params("mlperf-cosmoflow")["prefetch"], 2);
}

// retinanet, flux and dlrm are PyTorch workloads in their yamls: DLIO reads each rank's block of files in
// index order (torch_data_loader.py dlio_sampler), through the page cache (odirect False), with
// prefetch_factor ceil(prefetch_size 2 / 8 workers) = 1 per worker, 8 batches in flight; the jpeg files
// are as DLIO's generator writes them, 0.56 bytes a pixel (docs/mlperf.md, "JPEG sizes").
TEST(MlperfPresetsCli, PyTorchPresetsReadAsDlioDoes) {
  for (const char* name : {"mlperf-retinanet", "mlperf-flux", "mlperf-dlrm", "mlperf-retinanet-b200",
                           "mlperf-retinanet-mi355", "mlperf-unet3d-b200"}) {
    const nlohmann::json p = resolved_params(name);
    EXPECT_EQ(p["direct"], false) << name;
    EXPECT_EQ(p["order"], "dlio_torch") << name;
    EXPECT_EQ(p["drop_after_use"], "auto") << name;
    EXPECT_EQ(p["queue_depth"], 1) << name;
    const int threads = p["read_threads"];
    EXPECT_EQ(p["prefetch"], threads * ((2 + threads - 1) / threads)) << name;
  }
  const nlohmann::json retinanet = resolved_params("mlperf-retinanet");
  EXPECT_EQ(retinanet["sample_size"], 86016);  // 0.56 x 153,600
  EXPECT_EQ(retinanet["sample_size_stdev"], 28672);
  EXPECT_EQ(retinanet["sample_size_distribution"], "dlio_product");
  EXPECT_EQ(resolved_params("mlperf-flux")["sample_size"], 172032);  // 0.56 x 307,200
  // The b200 and mi355 configs: 568 x 568 pixels, 179,336 bytes as JPEG; batch 24 and 32.
  const nlohmann::json b200 = resolved_params("mlperf-retinanet-b200");
  const nlohmann::json mi355 = resolved_params("mlperf-retinanet-mi355");
  EXPECT_EQ(b200["sample_size"], 179336);
  EXPECT_EQ(b200["batch_size"], 24);
  EXPECT_EQ(mi355["batch_size"], 32);
  EXPECT_EQ(mi355["sample_size"], 179336);
  // computation_time: retinanet_b200 0.04755 s, retinanet_mi355 0.0634 s, unet3d_b200 0.162 s (h100 / 2).
  EXPECT_DOUBLE_EQ(b200["compute_per_batch"].get<double>(), 0.04755);
  EXPECT_DOUBLE_EQ(mi355["compute_per_batch"].get<double>(), 0.0634);
  EXPECT_DOUBLE_EQ(resolved_params("mlperf-unet3d-b200")["compute_per_batch"].get<double>(), 0.162);
}

// The minimum dataset size lives in mlcommons/storage Submission_guidelines.md and mlpstorage/rules.py
// (calculate_training_data_size); "Rules.md 3.1.2" is gone upstream. resnet50_a100.yaml's
// computation_time is 0.435.
TEST(MlperfPresetsCli, PresetsCiteTheRulesWhereTheyLiveNow) {
  for (const char* name : {"mlperf-unet3d", "mlperf-resnet50", "mlperf-cosmoflow", "mlperf-retinanet",
                           "mlperf-flux", "mlperf-dlrm"}) {
    const CommandResult r = run_iofab({"validate", name});
    EXPECT_EQ(r.out.find("3.1.2"), std::string::npos) << name;
    EXPECT_NE(r.out.find("Submission_guidelines.md"), std::string::npos) << name;
  }
  const std::string resnet =
      read_file(std::string(IOFAB_SOURCE_DIR) + "/workloads/suites/mlperf-resnet50.json");
  EXPECT_NE(resnet.find("0.435"), std::string::npos);
  EXPECT_EQ(resnet.find("0.191"), std::string::npos);
}

TEST(MlperfPresetsCli, ABadOverrideNamesTheFieldAndExits2) {
  CommandResult r =
      run_iofab({"validate", "mlperf-cosmoflow", "--set", "phases.cosmoflow.file_shuffle=sometimes"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("phases[0].file_shuffle"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("random"), std::string::npos) << r.err;  // the allowed forms are listed
  r = run_iofab({"validate", "mlperf-resnet50", "--set", "phases.resnet50.reader=tfrecord"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("phases[0].reader"), std::string::npos) << r.err;
  // DLIO's PyTorch order is a map-style sampler; O_DIRECT reads have no pages to drop; requests are whole
  // 4 KiB pages.
  r = run_iofab({"validate", "mlperf-resnet50", "--set", "phases.resnet50.order=dlio_torch"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("phases[0].order"), std::string::npos) << r.err;
  r = run_iofab({"validate", "mlperf-unet3d", "--set", "phases.unet3d.drop_after_use=on", "--set",
                 "defaults.direct=true"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("phases[0].drop_after_use"), std::string::npos) << r.err;
  r = run_iofab({"validate", "mlperf-unet3d", "--set", "phases.unet3d.read_size=100000"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("phases[0].read_size"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("4 KiB"), std::string::npos) << r.err;
}

// DLIO's published checkpoint figures beside iofab's durable ones, from one run's report: DLIO times rank 0
// alone (checkpoint.rank_sync false) without fsync (its writers read checkpoint_fsync, default false) and
// averages each checkpoint's rate; iofab's durable figure is the slowest rank's writes and fsyncs, the
// checkpoint's GiB over the mean duration. What holds whatever the timings: an unsynced save is no longer
// than the synced one of the same rank, rank 0 is no slower than the slowest rank, and a mean of rates is
// never below the rate of the mean durations (mlperf_figures_test.cc has the formulas on hand numbers).
void expect_dlio_beside_durable(const nlohmann::json& w, const nlohmann::json& rd, double checkpoint_bytes) {
  EXPECT_GT(w["dlio_save_gib_per_s"].get<double>(), 0);
  EXPECT_GT(w["dlio_save_seconds"].get<double>(), 0);
  EXPECT_LE(w["dlio_save_seconds"].get<double>(), w["mlperf_save_seconds_rank0"].get<double>());
  EXPECT_LE(w["mlperf_save_seconds_rank0"].get<double>(), w["mlperf_save_seconds"].get<double>());
  EXPECT_GE(w["mlperf_save_rate_mean_gib_per_s"].get<double>(), w["mlperf_save_gib_per_s"].get<double>());
  const double gib = checkpoint_bytes / (1 << 30);
  EXPECT_DOUBLE_EQ(w["mlperf_save_gib_per_s"].get<double>(), gib / w["mlperf_save_seconds"].get<double>());
  // The load's figure counts the checkpoint's size (fanout 1 here: what was read is the checkpoint).
  EXPECT_DOUBLE_EQ(rd["mlperf_load_gib_per_s"].get<double>(), gib / rd["mlperf_load_seconds"].get<double>());
  EXPECT_GE(rd["mlperf_load_rate_mean_gib_per_s"].get<double>(), rd["mlperf_load_gib_per_s"].get<double>());
  EXPECT_GT(rd["dlio_load_gib_per_s"].get<double>(), 0);
  EXPECT_LE(rd["dlio_load_seconds"].get<double>(), rd["mlperf_load_seconds"].get<double>());
}

TEST(MlperfPresetsCli, EveryCheckpointingPresetValidatesAndScaleSetsEveryCheckpointPhase) {
  for (const char* name : {"mlperf-llama3-8b", "mlperf-llama3-70b", "mlperf-llama3-405b", "mlperf-llama3-1t"}) {
    const CommandResult r = run_iofab({"validate", name});
    EXPECT_EQ(r.exit_code, 0) << name << ": " << r.err;
    EXPECT_NE(r.out.find("\"steps\": 10"), std::string::npos) << name;
  }
  // The 8B cycle, 10 writes and 10 reads, at 1/20000 of its size (5.4 MB a checkpoint).
  TempDir dir("/dev/shm");
  const std::string report = dir.path() + "/r.json";
  CommandResult r = run_iofab({"run", "mlperf-llama3-8b", "--scale", "20000", "--target", dir.path(), "--out", report,
                               "-q", "--set", "defaults.engine=psync"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(read_file(report));
  EXPECT_EQ(j["phases"][0]["params"]["scale"], 20000);
  const nlohmann::json& w = j["phases"][0]["result"];
  const nlohmann::json& rd = j["phases"][1]["result"];
  EXPECT_EQ(w["metrics"]["checkpoints"], 10);
  EXPECT_EQ(rd["metrics"]["checkpoints_read"], 10);
  EXPECT_EQ(rd["metrics"]["read_bytes"], 10 * w["metrics"]["checkpoint_bytes"].get<double>());
  EXPECT_GT(w["metrics"]["mlperf_save_gib_per_s"].get<double>(), 0);
  EXPECT_GT(rd["metrics"]["mlperf_load_gib_per_s"].get<double>(), 0);
  expect_dlio_beside_durable(w["metrics"], rd["metrics"], w["metrics"]["checkpoint_bytes"].get<double>());
  // Rules.md 4.3.4: the full checkpoint over 8 accelerators (13.1 GiB each) fits a b200's 180 GB.
  EXPECT_DOUBLE_EQ(w["metrics"]["mlperf_checkpoint_gib_per_accelerator"].get<double>(),
                   w["metrics"]["full_checkpoint_bytes"].get<double>() / (1 << 30) / 8);
  EXPECT_EQ(j["phases"][0]["checks"][0]["passed"], true);
  EXPECT_EQ(w["details"]["dlio_save"]["fsync"], false);
  EXPECT_EQ(w["details"]["dlio_save"]["timed_rank"], 0);
  EXPECT_TRUE(w["details"]["checkpoints"][0]["dlio_seconds"].is_number());
  EXPECT_TRUE(w["details"]["checkpoints"][0]["rank0_seconds"].is_number());
  // The console's figures are the ones the suite names: the figure DLIO publishes, then iofab's durable one.
  EXPECT_EQ(w["details"]["headline"][0], "dlio_save_gib_per_s");
  EXPECT_EQ(w["details"]["headline"][1], "mlperf_save_gib_per_s");
  EXPECT_EQ(rd["details"]["headline"][0], "dlio_load_gib_per_s");
  // A suite without a checkpoint phase has nothing to scale.
  r = run_iofab({"run", "mlperf-resnet50", "--scale", "10", "--target", dir.path()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--scale"), std::string::npos) << r.err;
}

TEST(MlperfPresetsCli, AHeadlineNamesMetricsOfItsKind) {
  TempDir dir("/dev/shm");
  write_file(dir.path() + "/s.json", R"({"phases": [{"kind": "checkpoint", "headline": ["read_bytes_per_s"]}]})");
  const CommandResult r = run_iofab({"validate", dir.path() + "/s.json"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("phases[0].headline[0]"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("checkpoint"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace iofab::testing
