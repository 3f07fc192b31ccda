// The dataset's manifest (iofab-dataset.json): its format, written
// atomically, read back bounded, and the spec it records checked before it
// decides which files get deleted. Used by the dataset's folder code
// (dataset_folder.cc, dataset_regenerate.cc), not by phases.
#pragma once

#include <atomic>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "harness/core/status.h"
#include "harness/store/store.h"
#include "workloads/dataset/dataset.h"

namespace iofab {

// Written first, then committed over kManifestName: a crash leaves the old manifest or the new.
constexpr const char* kManifestTemp = "iofab-dataset.json.tmp";
constexpr const char* kManifestFormat = "iofab-dataset";
// Real manifests are a few hundred bytes; the limit only bounds a hostile one.
constexpr uint64_t kMaxDatasetManifestBytes = 1ULL << 20;

// Writes root's manifest of layout: temp file, sync, commit over kManifestName, sync of root. An object
// store has no rename: there the manifest object is replaced whole (a PUT of its final name).
Status write_manifest(Store& store, std::string_view root, const DatasetLayout& layout, bool complete,
                      double generate_seconds);

// Reads the file path whole, refusing anything but a regular file (never blocking on a FIFO) and
// more than kMaxDatasetManifestBytes.
Status read_manifest(Store& store, std::string_view path, std::string* text);

// The spec a manifest records, checked as the suite parser checks it: false when any value is
// missing or out of range.
bool spec_from_json(const nlohmann::json& j, DatasetSpec* out);

// Files (not folders) below folder of store, counted up to limit (it stops there: a claim is checked
// without walking a folder far larger than it). stop, once set, ends the walk with Interrupted.
Status count_dataset_files(Store& store, const std::string& folder, uint64_t limit,
                           const std::atomic<bool>* stop, uint64_t* count);

// "num_samples 200 vs 201, ...": what differs between a recorded spec and the wanted one.
std::string spec_difference(const nlohmann::json& had, const nlohmann::json& want);

}  // namespace iofab
