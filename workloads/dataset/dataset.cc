#include "workloads/dataset/dataset.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numbers>
#include <optional>

#include "harness/core/mix.h"

namespace iofab {

using nlohmann::json;

namespace {

uint64_t round_up(uint64_t x, uint64_t a) { return (x + a - 1) / a * a; }

// A uniform double in (0, 1] from 53 bits of h.
double unit_interval(uint64_t h) { return static_cast<double>((h >> 11) + 1) * 0x1.0p-53; }

unsigned digits(uint64_t v) {
  unsigned d = 1;
  while (v >= 10) {
    v /= 10;
    ++d;
  }
  return d;
}

std::string padded(const char* prefix, uint64_t v, unsigned width) {
  std::string s = std::to_string(v);
  if (s.size() < width) s.insert(0, width - s.size(), '0');
  return prefix + s;
}

}  // namespace

const char* layout_name(DatasetLayoutKind k) { return k == DatasetLayoutKind::kFiles ? "files" : "shards"; }

const char* distribution_name(SizeDistribution d) {
  switch (d) {
    case SizeDistribution::kFixed:
      return "fixed";
    case SizeDistribution::kNormal:
      return "normal";
    case SizeDistribution::kLognormal:
      return "lognormal";
    case SizeDistribution::kDlioProduct:
      return "dlio_product";
  }
  return "fixed";
}

bool parse_distribution(std::string_view name, SizeDistribution* out) {
  for (SizeDistribution d : {SizeDistribution::kFixed, SizeDistribution::kNormal,
                             SizeDistribution::kLognormal, SizeDistribution::kDlioProduct}) {
    if (name == distribution_name(d)) {
      *out = d;
      return true;
    }
  }
  return false;
}

namespace {

// DLIO's side of a sample (config.py derive_configurations): dimension = int(sqrt(record_length)),
// dimension_stdev = record_length_stdev / 2 / sqrt(record_length).
struct DlioSide {
  double mean = 0;
  double stdev = 0;
};

DlioSide dlio_side(const DatasetSpec& spec) {
  const double root = std::sqrt(static_cast<double>(spec.sample_size));
  return {.mean = std::floor(root), .stdev = static_cast<double>(spec.sample_size_stdev) / 2.0 / root};
}

}  // namespace

void DatasetSpec::resolve_size_bounds() {
  if (sample_size_max != 0) return;
  if (distribution == SizeDistribution::kFixed) {
    sample_size_max = sample_size;
    return;
  }
  double hi = static_cast<double>(sample_size) + 6.0 * static_cast<double>(sample_size_stdev);
  if (distribution == SizeDistribution::kDlioProduct) {
    const DlioSide side = dlio_side(*this);
    hi = std::pow(side.mean + 6.0 * side.stdev, 2);
  }
  sample_size_max = static_cast<uint64_t>(std::min(hi, static_cast<double>(kMaxSampleSize)));
}

json DatasetSpec::to_json() const {
  json j = {{"layout", layout_name(layout)},
            {"num_samples", num_samples},
            {"sample_size", sample_size},
            {"distribution", distribution_name(distribution)},
            {"seed", seed}};
  if (distribution != SizeDistribution::kFixed) {
    j["sample_size_stdev"] = sample_size_stdev;
    j["sample_size_min"] = sample_size_min;
    j["sample_size_max"] = sample_size_max;
  }
  if (reduce.any()) {
    j["compressibility"] = reduce.compressibility;
    j["dedup"] = reduce.dedup;
  }
  if (layout == DatasetLayoutKind::kFiles) {
    j["files_per_dir"] = files_per_dir;
  } else {
    j["samples_per_shard"] = samples_per_shard;
  }
  return j;
}

uint32_t draw_sample_size(const DatasetSpec& spec, uint64_t sample) {
  if (spec.distribution == SizeDistribution::kFixed) return static_cast<uint32_t>(spec.sample_size);
  // Box-Muller on two hashed uniforms: one standard normal draw per sample,
  // independent of every other sample's, so sizes need no sequential state.
  const uint64_t key = fmix64(spec.seed ^ 0x6a09e667f3bcc909ULL);
  const double u1 = unit_interval(fmix64(key ^ (sample * 2 + 1) * kGolden));
  const double u2 = unit_interval(fmix64(key ^ (sample * 2 + 2) * kGolden));
  const double radius = std::sqrt(-2.0 * std::log(u1));
  const double z = radius * std::cos(2.0 * std::numbers::pi * u2);
  const double mean = static_cast<double>(spec.sample_size);
  const double sd = static_cast<double>(spec.sample_size_stdev);
  double x;
  if (spec.distribution == SizeDistribution::kNormal) {
    x = mean + sd * z;
  } else if (spec.distribution == SizeDistribution::kDlioProduct) {
    // Box-Muller's two draws are independent: one per side, each truncated as Python's int() does.
    const DlioSide side = dlio_side(spec);
    const double d1 = std::max(std::trunc(side.mean + side.stdev * z), 1.0);
    const double d2 =
        std::max(std::trunc(side.mean + side.stdev * radius * std::sin(2.0 * std::numbers::pi * u2)), 1.0);
    x = d1 * d2;
  } else {
    // Parameters of the underlying normal so the sizes have this mean and stdev.
    const double s2 = std::log1p((sd * sd) / (mean * mean));
    x = std::exp(std::log(mean) - s2 / 2 + std::sqrt(s2) * z);
  }
  const double lo = static_cast<double>(spec.sample_size_min);
  const double hi = static_cast<double>(spec.sample_size_max);
  x = std::clamp(std::round(x), lo, hi);
  return static_cast<uint32_t>(x);
}

uint64_t dataset_bytes_on_disk(DatasetSpec spec) {
  spec.resolve_size_bounds();
  uint64_t total = 0;
  if (spec.layout == DatasetLayoutKind::kFiles) {
    for (uint64_t i = 0; i < spec.num_samples; ++i) {
      total += round_up(std::max<uint32_t>(draw_sample_size(spec, i), 1), kRecordAlignment);
    }
    return total;
  }
  const uint64_t per = std::max<uint64_t>(spec.samples_per_shard, 1);
  for (uint64_t first = 0; first < spec.num_samples; first += per) {
    uint64_t shard = 0;
    for (uint64_t i = first; i < std::min(spec.num_samples, first + per); ++i) {
      shard += draw_sample_size(spec, i);
    }
    total += round_up(std::max<uint64_t>(shard, 1), kRecordAlignment);
  }
  return total;
}

void sample_header(const DatasetSpec& spec, uint64_t sample, unsigned char out[kSampleHeader]) {
  const uint64_t key = fmix64(spec.seed ^ 0xbb67ae8584caa73bULL);
  const uint64_t words[2] = {sample ^ key, fmix64(sample * kGolden ^ key)};
  std::memcpy(out, words, kSampleHeader);
}

DatasetNames::DatasetNames(const DatasetSpec& spec) : layout_(spec.layout) {
  const uint64_t n = spec.num_samples;
  if (layout_ == DatasetLayoutKind::kFiles) {
    num_files_ = n;
    files_per_dir_ = std::max<uint64_t>(spec.files_per_dir, 2);
    // Enough folder levels that no folder, data/ included, holds more than files_per_dir entries.
    uint64_t cap = files_per_dir_;
    while (cap < n) {
      cap = cap > UINT64_MAX / files_per_dir_ ? UINT64_MAX : cap * files_per_dir_;
      ++levels_;
    }
    dir_digits_ = digits(files_per_dir_ - 1);
    name_digits_ = digits(n == 0 ? 0 : n - 1);
  } else {
    const uint64_t per = std::max<uint64_t>(spec.samples_per_shard, 1);
    num_files_ = n / per + (n % per != 0 ? 1 : 0);
    name_digits_ = std::max(6u, digits(num_files_ == 0 ? 0 : num_files_ - 1));
  }
}

std::string DatasetNames::folder_of(uint64_t file) const {
  if (layout_ == DatasetLayoutKind::kShards || levels_ == 0) return "";
  std::string path;
  // Level l's folder index is digit l of the file number in base files_per_dir.
  for (unsigned l = levels_; l >= 1; --l) {
    uint64_t div = 1;
    for (unsigned k = 0; k < l; ++k) div *= files_per_dir_;
    if (!path.empty()) path += '/';
    path += padded("d", (file / div) % files_per_dir_, dir_digits_);
  }
  return path;
}

std::string DatasetNames::name_of(uint64_t file) const {
  return layout_ == DatasetLayoutKind::kFiles ? padded("s", file, name_digits_)
                                              : padded("shard-", file, name_digits_);
}

std::string DatasetNames::file_path(uint64_t file) const {
  std::string folder = folder_of(file);
  return folder.empty() ? name_of(file) : folder + "/" + name_of(file);
}

namespace {

// The number after prefix in name when name is prefix and exactly width decimal digits.
std::optional<uint64_t> numbered(std::string_view name, std::string_view prefix, unsigned width) {
  if (!name.starts_with(prefix) || name.size() != prefix.size() + width || width > 19) return std::nullopt;
  uint64_t v = 0;
  for (char c : name.substr(prefix.size())) {
    if (c < '0' || c > '9') return std::nullopt;
    v = v * 10 + static_cast<uint64_t>(c - '0');
  }
  return v;
}

}  // namespace

bool DatasetNames::names_file(std::string_view path) const {
  const auto slash = path.rfind('/');
  const std::string_view leaf = slash == std::string_view::npos ? path : path.substr(slash + 1);
  const auto f = numbered(leaf, layout_ == DatasetLayoutKind::kFiles ? "s" : "shard-", name_digits_);
  return f && *f < num_files_ && file_path(*f) == path;
}

bool DatasetNames::names_folder(std::string_view path) const {
  if (layout_ == DatasetLayoutKind::kShards || path.empty()) return false;
  unsigned depth = 0;
  for (size_t start = 0; start <= path.size();) {
    const size_t slash = std::min(path.find('/', start), path.size());
    const auto d = numbered(path.substr(start, slash - start), "d", dir_digits_);
    if (!d || *d >= files_per_dir_ || ++depth > levels_) return false;
    start = slash + 1;
  }
  return true;
}

DatasetLayout::DatasetLayout(const DatasetSpec& spec) : spec_(spec), names_(spec) {
  spec_.resolve_size_bounds();
  const uint64_t n = spec_.num_samples;
  sizes_.resize(n);
  for (uint64_t i = 0; i < n; ++i) {
    sizes_[i] = draw_sample_size(spec_, i);
    sample_bytes_ += sizes_[i];
    max_size_ = std::max(max_size_, sizes_[i]);
  }
  num_files_ = names_.num_files();
  if (spec_.layout == DatasetLayoutKind::kFiles) {
    for (uint64_t i = 0; i < n; ++i) {
      total_bytes_ += round_up(std::max<uint32_t>(sizes_[i], 1), kRecordAlignment);
    }
  } else {
    const uint64_t per = std::max<uint64_t>(spec_.samples_per_shard, 1);
    offsets_.resize(n);
    shard_bytes_.resize(num_files_);
    for (uint64_t f = 0; f < num_files_; ++f) {
      uint64_t off = 0;
      for (uint64_t i = f * per; i < std::min(n, (f + 1) * per); ++i) {
        offsets_[i] = off;
        off += sizes_[i];
      }
      shard_bytes_[f] = round_up(std::max<uint64_t>(off, 1), kRecordAlignment);
      total_bytes_ += shard_bytes_[f];
    }
  }
}

uint64_t DatasetLayout::file_bytes(uint64_t file) const {
  if (spec_.layout == DatasetLayoutKind::kFiles) {
    return round_up(std::max<uint32_t>(sizes_[file], 1), kRecordAlignment);
  }
  return shard_bytes_[file];
}

uint64_t DatasetLayout::first_sample(uint64_t file) const {
  return spec_.layout == DatasetLayoutKind::kFiles ? file : file * spec_.samples_per_shard;
}

uint64_t DatasetLayout::samples_in(uint64_t file) const {
  if (spec_.layout == DatasetLayoutKind::kFiles) return 1;
  const uint64_t first = first_sample(file);
  return std::min(spec_.samples_per_shard, spec_.num_samples - first);
}

uint64_t DatasetLayout::max_aligned_span() const {
  // A sample at an unaligned offset can touch one more block than its rounded-up size.
  const uint64_t span = round_up(max_size_, kRecordAlignment);
  return spec_.layout == DatasetLayoutKind::kFiles ? span : span + kRecordAlignment;
}

}  // namespace iofab
