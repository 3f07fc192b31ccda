#include "workloads/dataset.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <memory>
#include <mutex>
#include <numbers>
#include <set>
#include <thread>

#include "harness/core/input_file.h"
#include "harness/core/json_input.h"
#include "harness/core/mix.h"
#include "harness/engines/data_fill.h"
#include "harness/fs/page_cache.h"
#include "harness/fs/run_dir.h"

namespace iofab {

using nlohmann::json;

namespace {

constexpr uint64_t kGolden = 0x9e3779b97f4a7c15ULL;
constexpr const char* kManifestTemp = "iofab-dataset.json.tmp";
constexpr const char* kFormat = "iofab-dataset";
// Real manifests are a few hundred bytes; the limit only bounds a hostile one.
constexpr uint64_t kMaxDatasetManifestBytes = 1ULL << 20;
constexpr int kFormatVersion = 1;
// Sample files a generator takes at a time (shards go one at a time).
constexpr uint64_t kFilesPerUnit = 64;
// Shards are written through a buffer of this size.
constexpr uint64_t kWriteChunk = 4ULL << 20;

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

Status write_all(int fd, const unsigned char* buf, uint64_t len, uint64_t offset, const std::string& what) {
  while (len > 0) {
    const ssize_t n = pwrite(fd, buf, len, static_cast<off_t>(offset));
    if (n < 0) {
      if (errno == EINTR) continue;
      return Status::FromErrno("write " + what + " at offset " + std::to_string(offset), errno);
    }
    if (n == 0) return Status::IoError("write " + what + ": no progress (device full?)");
    buf += n;
    len -= static_cast<uint64_t>(n);
    offset += static_cast<uint64_t>(n);
  }
  return Status::Ok();
}

// Opens (creating as needed) the folder path ("d01/d07") below data_fd, one component at a time,
// never following a symlink.
Status open_folder_chain(int data_fd, const std::string& path, int* out) {
  int cur = dup(data_fd);
  if (cur < 0) return Status::FromErrno("dup", errno);
  size_t pos = 0;
  while (pos < path.size()) {
    size_t slash = path.find('/', pos);
    if (slash == std::string::npos) slash = path.size();
    int next = -1;
    Status s = make_dir_at(cur, std::string_view(path).substr(pos, slash - pos), &next);
    close(cur);
    if (!s.ok()) return s;
    cur = next;
    pos = slash + 1;
  }
  *out = cur;
  return Status::Ok();
}

Status write_manifest(int root_fd, const DatasetLayout& layout, bool complete, double generate_seconds) {
  json m = {{"format", kFormat},
            {"version", kFormatVersion},
            {"complete", complete},
            {"spec", layout.spec().to_json()},
            {"files", layout.num_files()},
            {"bytes", layout.total_bytes()},
            {"sample_bytes", layout.sample_bytes()},
            {"generate_seconds", generate_seconds}};
  const std::string text = m.dump(2) + "\n";
  if (unlinkat(root_fd, kManifestTemp, 0) != 0 && errno != ENOENT) {
    return Status::FromErrno(std::string("remove ") + kManifestTemp, errno);
  }
  int fd = -1;
  Status s = open_file_at(root_fd, kManifestTemp, O_WRONLY, &fd);
  if (!s.ok()) return s;
  s = write_all(fd, reinterpret_cast<const unsigned char*>(text.data()), text.size(), 0, kManifestTemp);
  if (s.ok() && fsync(fd) != 0) s = Status::FromErrno(std::string("fsync ") + kManifestTemp, errno);
  close(fd);
  if (!s.ok()) return s;
  if (renameat(root_fd, kManifestTemp, root_fd, kManifestName) != 0) {
    return Status::FromErrno(std::string("rename ") + kManifestTemp, errno);
  }
  return fsync_dir(root_fd, "dataset folder");
}

std::string spec_difference(const json& had, const json& want) {
  std::string out;
  for (const auto& [k, v] : want.items()) {
    if (had.contains(k) && had[k] == v) continue;
    if (!out.empty()) out += ", ";
    out += k + " " + (had.contains(k) ? had[k].dump() : "(absent)") + " vs " + v.dump();
  }
  for (const auto& [k, v] : had.items()) {
    if (!want.contains(k)) out += (out.empty() ? "" : ", ") + k + " " + v.dump() + " vs (absent)";
  }
  return out;
}

// Writes one sample file (files layout).
Status write_sample_file(int dir_fd, const DatasetLayout& layout, uint64_t sample, const BlockFiller& stamper,
                         unsigned char* buf) {
  const uint64_t len = layout.file_bytes(sample);
  stamper.stamp(buf, len, sample);
  unsigned char header[kSampleHeader];
  sample_header(layout.spec(), sample, header);
  std::memcpy(buf, header, std::min<uint64_t>(kSampleHeader, layout.size_of(sample)));
  int fd = -1;
  const std::string name = layout.name_of(sample);
  Status s = open_file_at(dir_fd, name, O_WRONLY, &fd);
  if (!s.ok()) return s;
  s = write_all(fd, buf, len, 0, name);
  close(fd);
  return s;
}

// Writes one shard: the samples back to back, padding at the end.
Status write_shard(int data_fd, const DatasetLayout& layout, uint64_t shard, const BlockFiller& stamper,
                   unsigned char* buf, const std::atomic<bool>* stop, std::atomic<uint64_t>* progress) {
  const uint64_t len = layout.file_bytes(shard);
  const uint64_t first = layout.first_sample(shard);
  const uint64_t end_sample = first + layout.samples_in(shard);
  int fd = -1;
  const std::string name = layout.name_of(shard);
  Status s = open_file_at(data_fd, name, O_WRONLY, &fd);
  if (!s.ok()) return s;
  uint64_t next_header = first;  // the first sample whose header may still start at or after `off`
  for (uint64_t off = 0, chunk = 0; off < len && s.ok(); off += kWriteChunk, ++chunk) {
    if (stop != nullptr && stop->load(std::memory_order_relaxed)) {
      s = Status::Interrupted();
      break;
    }
    const uint64_t n = std::min(kWriteChunk, len - off);
    stamper.stamp(buf, n, (shard << 24) ^ chunk);
    // Headers that overlap [off, off + n); one may straddle the previous chunk's end.
    while (next_header < end_sample) {
      const uint64_t ho = layout.offset_of(next_header);
      const uint64_t hl = std::min<uint64_t>(kSampleHeader, layout.size_of(next_header));
      if (ho >= off + n) break;
      unsigned char header[kSampleHeader];
      sample_header(layout.spec(), next_header, header);
      const uint64_t from = std::max(ho, off);
      const uint64_t to = std::min(ho + hl, off + n);
      if (from < to) std::memcpy(buf + (from - off), header + (from - ho), to - from);
      if (ho + hl > off + n) break;  // the rest of this header goes in the next chunk
      ++next_header;
    }
    s = write_all(fd, buf, n, off, name);
    if (s.ok() && progress != nullptr) progress->fetch_add(n, std::memory_order_relaxed);
  }
  close(fd);
  return s;
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
  }
  return "fixed";
}

void DatasetSpec::resolve_size_bounds() {
  if (sample_size_max != 0) return;
  if (distribution == SizeDistribution::kFixed) {
    sample_size_max = sample_size;
    return;
  }
  const double hi = static_cast<double>(sample_size) + 6.0 * static_cast<double>(sample_size_stdev);
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
  const double z = std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
  const double mean = static_cast<double>(spec.sample_size);
  const double sd = static_cast<double>(spec.sample_size_stdev);
  double x;
  if (spec.distribution == SizeDistribution::kNormal) {
    x = mean + sd * z;
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

DatasetLayout::DatasetLayout(const DatasetSpec& spec) : spec_(spec) {
  spec_.resolve_size_bounds();
  const uint64_t n = spec_.num_samples;
  sizes_.resize(n);
  for (uint64_t i = 0; i < n; ++i) {
    sizes_[i] = draw_sample_size(spec_, i);
    sample_bytes_ += sizes_[i];
    max_size_ = std::max(max_size_, sizes_[i]);
  }
  if (spec_.layout == DatasetLayoutKind::kFiles) {
    num_files_ = n;
    for (uint64_t i = 0; i < n; ++i) {
      total_bytes_ += round_up(std::max<uint32_t>(sizes_[i], 1), kRecordAlignment);
    }
    const uint64_t per = std::max<uint64_t>(spec_.files_per_dir, 2);
    // Enough folder levels that no folder, data/ included, holds more than files_per_dir entries.
    uint64_t cap = per;
    while (cap < n) {
      cap = cap > UINT64_MAX / per ? UINT64_MAX : cap * per;
      ++levels_;
    }
    dir_digits_ = digits(per - 1);
    name_digits_ = digits(n == 0 ? 0 : n - 1);
  } else {
    const uint64_t per = std::max<uint64_t>(spec_.samples_per_shard, 1);
    num_files_ = (n + per - 1) / per;
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
    name_digits_ = std::max(6u, digits(num_files_ == 0 ? 0 : num_files_ - 1));
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

std::string DatasetLayout::folder_of(uint64_t file) const {
  if (spec_.layout == DatasetLayoutKind::kShards || levels_ == 0) return "";
  const uint64_t per = std::max<uint64_t>(spec_.files_per_dir, 2);
  std::string path;
  // Level l's folder index is digit l of the file number in base files_per_dir.
  for (unsigned l = levels_; l >= 1; --l) {
    uint64_t div = 1;
    for (unsigned k = 0; k < l; ++k) div *= per;
    if (!path.empty()) path += '/';
    path += padded("d", (file / div) % per, dir_digits_);
  }
  return path;
}

std::string DatasetLayout::name_of(uint64_t file) const {
  return spec_.layout == DatasetLayoutKind::kFiles ? padded("s", file, name_digits_)
                                                   : padded("shard-", file, name_digits_);
}

std::string DatasetLayout::file_path(uint64_t file) const {
  std::string folder = folder_of(file);
  return folder.empty() ? name_of(file) : folder + "/" + name_of(file);
}

Status inspect_dataset_dir(int root_fd, const DatasetLayout& layout, DatasetDirState* state,
                           std::string* why) {
  why->clear();
  const int dup_fd = dup(root_fd);
  if (dup_fd < 0) return Status::FromErrno("dup", errno);
  DIR* d = fdopendir(dup_fd);
  if (d == nullptr) {
    const int e = errno;
    close(dup_fd);
    return Status::FromErrno("read dataset folder", e);
  }
  rewinddir(d);
  std::set<std::string> entries;
  while (dirent* e = readdir(d)) {
    std::string_view n(e->d_name);
    if (n != "." && n != ".." && n != kDatasetLockName) entries.emplace(n);
  }
  closedir(d);
  for (const auto& e : entries) {
    if (e != kManifestName && e != kManifestTemp && e != kDataFolder) {
      *state = DatasetDirState::kForeign;
      *why = "holds \"" + e + "\", which iofab did not make";
      return Status::Ok();
    }
  }
  if (entries.empty()) {
    *state = DatasetDirState::kEmpty;
    return Status::Ok();
  }
  std::string text;
  const char* manifest = entries.count(kManifestName) ? kManifestName : kManifestTemp;
  if (!entries.count(kManifestName) && !entries.count(kManifestTemp)) {
    *state = DatasetDirState::kForeign;
    *why = std::string("holds data/ but no ") + kManifestName + ", so iofab did not make it";
    return Status::Ok();
  }
  json m;
  // Non-blocking and bounded (a FIFO named iofab-dataset.json must not hang the run); depth and repeated
  // keys checked like every JSON iofab reads.
  Status rs = read_input_file_at(root_fd, manifest, kMaxDatasetManifestBytes, O_NOFOLLOW, &text);
  if (rs.ok()) rs = parse_json_input(text, {}, &m);
  if (!rs.ok() || !m.is_object() || m.find("format") == m.end() || m["format"] != kFormat) {
    *state = DatasetDirState::kForeign;
    *why = std::string(manifest) + " is not an iofab dataset manifest" + (rs.ok() ? "" : " (" + rs.message() + ")");
    return Status::Ok();
  }
  *state = DatasetDirState::kStale;
  if (manifest != std::string(kManifestName) || m.find("complete") == m.end() || m["complete"] != true) {
    *why = "an incomplete iofab dataset (its generation did not finish)";
    return Status::Ok();
  }
  const json want = layout.spec().to_json();
  if (!m.contains("spec") || m["spec"] != want) {
    *why = "an iofab dataset of other parameters (" + spec_difference(m.value("spec", json::object()), want) +
           ")";
    return Status::Ok();
  }
  const int data_fd = openat(root_fd, kDataFolder, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (data_fd < 0) {
    *why = "an iofab dataset whose data/ folder is missing";
    return Status::Ok();
  }
  for (uint64_t f = 0; f < layout.num_files(); ++f) {
    struct stat st {};
    const std::string path = layout.file_path(f);
    if (fstatat(data_fd, path.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode) ||
        static_cast<uint64_t>(st.st_size) != layout.file_bytes(f)) {
      *why = "an iofab dataset missing or with a damaged " + path;
      close(data_fd);
      return Status::Ok();
    }
  }
  close(data_fd);
  *state = DatasetDirState::kMatches;
  return Status::Ok();
}

Status lock_dataset_dir(int root_fd, const std::string& path, int* lock_fd, bool* created) {
  *created = false;
  int fd = openat(root_fd, kDatasetLockName, O_RDWR | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0 && errno == ENOENT) {
    fd = openat(root_fd, kDatasetLockName, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    *created = fd >= 0;
    // Another run made it first: use theirs.
    if (fd < 0 && errno == EEXIST) fd = openat(root_fd, kDatasetLockName, O_RDWR | O_NOFOLLOW | O_CLOEXEC);
  }
  if (fd < 0) return Status::FromErrno("open " + path + "/" + kDatasetLockName, errno);
  if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
    const int e = errno;
    close(fd);
    if (e == ENOSYS || e == EOPNOTSUPP || e == ENOLCK) return Status::Ok();  // no flock there: *lock_fd stays -1
    if (e == EWOULDBLOCK) {
      return Status::Invalid("dataset_dir " + path + " is in use by another iofab run (it holds " + path +
                             "/" + kDatasetLockName +
                             "); runs cannot share a dataset_dir at the same time: wait for "
                             "that run to end, or give this one another dataset_dir; nothing was written");
    }
    return Status::FromErrno("lock " + path + "/" + kDatasetLockName, e);
  }
  *lock_fd = fd;
  return Status::Ok();
}

void remove_dataset_lock(int root_fd, int* lock_fd) {
  unlinkat(root_fd, kDatasetLockName, 0);
  if (*lock_fd >= 0) close(*lock_fd);
  *lock_fd = -1;
}

namespace {

// The spec a manifest records, checked as the suite parser checks it: a
// manifest decides which files get deleted, so a value out of range is refused.
bool spec_from_json(const json& j, DatasetSpec* out) {
  if (!j.is_object()) return false;
  auto num = [&](const char* k, uint64_t lo, uint64_t hi, uint64_t* v) {
    if (!j.contains(k) || !j[k].is_number_unsigned()) return false;
    *v = j[k].get<uint64_t>();
    return *v >= lo && *v <= hi;
  };
  DatasetSpec s;
  const std::string layout = j.value("layout", "");
  const std::string dist = j.value("distribution", "");
  if (layout != "files" && layout != "shards") return false;
  s.layout = layout == "files" ? DatasetLayoutKind::kFiles : DatasetLayoutKind::kShards;
  if (dist == "fixed") {
    s.distribution = SizeDistribution::kFixed;
  } else if (dist == "normal") {
    s.distribution = SizeDistribution::kNormal;
  } else if (dist == "lognormal") {
    s.distribution = SizeDistribution::kLognormal;
  } else {
    return false;
  }
  if (!num("num_samples", 1, 1'000'000'000, &s.num_samples) ||
      !num("sample_size", 1, kMaxSampleSize, &s.sample_size) || !num("seed", 0, UINT64_MAX, &s.seed)) {
    return false;
  }
  if (s.distribution != SizeDistribution::kFixed &&
      (!num("sample_size_stdev", 0, kMaxSampleSize, &s.sample_size_stdev) ||
       !num("sample_size_min", 1, kMaxSampleSize, &s.sample_size_min) ||
       !num("sample_size_max", 1, kMaxSampleSize, &s.sample_size_max) ||
       s.sample_size_min > s.sample_size_max)) {
    return false;
  }
  if (s.layout == DatasetLayoutKind::kFiles
          ? !num("files_per_dir", 2, 10'000'000, &s.files_per_dir)
          : !num("samples_per_shard", 1, 1'000'000'000, &s.samples_per_shard)) {
    return false;
  }
  s.resolve_size_bounds();
  *out = s;
  return true;
}

// Removes the files the old layout made below data_fd (regular files only: a
// link or folder in one's place is not iofab's), then its folders once empty.
Status remove_listed_files(int data_fd, const DatasetLayout& old) {
  std::set<std::string> folders;
  for (uint64_t f = 0; f < old.num_files(); ++f) {
    const std::string path = old.file_path(f);
    struct stat st {};
    if (fstatat(data_fd, path.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode) &&
        unlinkat(data_fd, path.c_str(), 0) != 0 && errno != ENOENT) {
      return Status::FromErrno("remove data/" + path, errno);
    }
    for (std::string dir = old.folder_of(f); !dir.empty();) {
      if (!folders.insert(dir).second) break;
      const auto slash = dir.rfind('/');
      dir = slash == std::string::npos ? "" : dir.substr(0, slash);
    }
  }
  // Deepest first; a folder still holding something that is not iofab's stays.
  std::vector<std::string> order(folders.begin(), folders.end());
  std::sort(order.begin(), order.end(), [](const std::string& a, const std::string& b) {
    return std::count(a.begin(), a.end(), '/') > std::count(b.begin(), b.end(), '/');
  });
  for (const auto& dir : order) {
    if (unlinkat(data_fd, dir.c_str(), AT_REMOVEDIR) != 0 && errno != ENOENT && errno != ENOTEMPTY &&
        errno != ENOTDIR) {
      return Status::FromErrno("remove data/" + dir, errno);
    }
  }
  return Status::Ok();
}

// Entries below data_fd, as paths, up to limit of them (never following a link).
void list_tree(int fd, const std::string& prefix, size_t limit, std::vector<std::string>* out) {
  const int d_fd = dup(fd);
  DIR* d = d_fd < 0 ? nullptr : fdopendir(d_fd);
  if (d == nullptr) {
    if (d_fd >= 0) close(d_fd);
    return;
  }
  rewinddir(d);
  std::vector<std::string> names;
  while (dirent* e = readdir(d)) {
    std::string_view n(e->d_name);
    if (n != "." && n != "..") names.emplace_back(n);
  }
  closedir(d);
  for (const auto& n : names) {
    if (out->size() >= limit) return;
    const int sub = openat(fd, n.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (sub < 0) {
      out->push_back(prefix + n);
      continue;
    }
    const size_t before = out->size();
    list_tree(sub, prefix + n + "/", limit, out);
    close(sub);
    if (out->size() == before) out->push_back(prefix + n + "/");  // an empty folder
  }
}

}  // namespace

Status prepare_dataset_dir(int root_fd, const DatasetLayout& layout, std::vector<std::string>* notes) {
  // The old dataset's files, as its manifests (a complete one, or one left mid-rewrite) list them.
  int data_fd = openat(root_fd, kDataFolder, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (data_fd < 0 && errno != ENOENT) return Status::FromErrno(std::string("open ") + kDataFolder, errno);
  for (const char* name : {kManifestName, kManifestTemp}) {
    if (data_fd < 0) break;
    std::string text;
    // Absent, or not a regular file: it lists nothing. Bounded and non-blocking, like every read.
    if (!read_input_file_at(root_fd, name, kMaxDatasetManifestBytes, O_NOFOLLOW, &text).ok()) continue;
    json m;
    const bool parsed = parse_json_input(text, {}, &m).ok();
    // A temp manifest cut short by a crash lists nothing: it is written before any file of its spec.
    if (!parsed && name == kManifestTemp) continue;
    DatasetSpec old;
    if (!parsed || !m.is_object() || !spec_from_json(m.value("spec", json()), &old)) {
      close(data_fd);
      return Status::Invalid(std::string(name) + "'s spec is unreadable, so which files in " + kDataFolder +
                             "/ iofab made is unknown; nothing was removed: move " + kDataFolder +
                             "/ away or choose another dataset_dir");
    }
    Status r = remove_listed_files(data_fd, DatasetLayout(old));
    if (!r.ok()) {
      close(data_fd);
      return r;
    }
  }
  Status s = write_manifest(root_fd, layout, false, 0);
  if (s.ok() && data_fd < 0) s = make_dir_at(root_fd, kDataFolder, &data_fd);
  if (!s.ok()) {
    if (data_fd >= 0) close(data_fd);
    return s;
  }
  // What is left is not iofab's: it stays, unless it sits where a new file goes.
  std::vector<std::string> left;
  list_tree(data_fd, "", 4, &left);
  if (!left.empty()) {
    for (uint64_t f = 0; f < layout.num_files(); ++f) {
      const std::string path = layout.file_path(f);
      struct stat st {};
      if (fstatat(data_fd, path.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 || errno == ENOTDIR) {
        close(data_fd);
        return Status::Invalid(
            std::string(kDataFolder) + "/" + path +
            " is in the way: iofab did not make it (no manifest lists it) and the new dataset "
            "needs that path; move it away or choose another dataset_dir");
      }
    }
    std::string names;
    for (size_t i = 0; i < left.size() && i < 3; ++i) names += (i ? ", " : "") + left[i];
    notes->push_back(std::string(kDataFolder) + "/ holds files iofab did not make (" + names +
                     (left.size() > 3 ? ", ..." : "") + "); they were left as they are");
  }
  close(data_fd);
  return Status::Ok();
}

Status complete_manifest(int root_fd, const DatasetLayout& layout, double generate_seconds) {
  return write_manifest(root_fd, layout, true, generate_seconds);
}

Status generate_dataset_part(int data_fd, const DatasetLayout& layout, const GenerateOptions& opts,
                             uint64_t* bytes) {
  const bool files = layout.spec().layout == DatasetLayoutKind::kFiles;
  const uint64_t unit_files = files ? kFilesPerUnit : 1;
  const uint64_t units = (layout.num_files() + unit_files - 1) / unit_files;
  const auto rank = static_cast<uint64_t>(opts.rank);
  const auto ranks = static_cast<uint64_t>(std::max(opts.ranks, 1));
  const uint64_t mine = units > rank ? (units - rank + ranks - 1) / ranks : 0;
  const unsigned threads = static_cast<unsigned>(std::clamp<uint64_t>(mine, 1, std::max(opts.threads, 1u)));
  const uint64_t buf_len = files ? layout.max_aligned_span() : std::min(kWriteChunk, layout.total_bytes());
  // Stamps come from one dataset-wide key, so every sector of the dataset differs from every other.
  const BlockFiller stamper(fmix64(layout.spec().seed ^ 0x510e527fade682d1ULL));

  std::atomic<uint64_t> next{0};
  std::atomic<uint64_t> written{0};
  std::mutex mu;
  Status first;
  auto worker = [&](unsigned t) {
    std::unique_ptr<unsigned char[]> buf(new unsigned char[std::max<uint64_t>(buf_len, kRecordAlignment)]);
    BlockFiller filler(fmix64(layout.spec().seed + 1000003 * (rank * 4099 + t + 1)));
    filler.fill(buf.get(), std::max<uint64_t>(buf_len, kRecordAlignment));
    Status s;
    while (s.ok()) {
      const uint64_t k = next.fetch_add(1);
      if (k >= mine) break;
      if (opts.stop != nullptr && opts.stop->load(std::memory_order_relaxed)) {
        s = Status::Interrupted();
        break;
      }
      const uint64_t unit = rank + k * ranks;
      if (!files) {
        s = write_shard(data_fd, layout, unit, stamper, buf.get(), opts.stop, opts.progress);
        if (s.ok()) written.fetch_add(layout.file_bytes(unit));
        continue;
      }
      std::string open_folder;
      int dir_fd = -1;
      for (uint64_t f = unit * unit_files;
           f < std::min(layout.num_files(), (unit + 1) * unit_files) && s.ok(); ++f) {
        const std::string folder = layout.folder_of(f);
        if (dir_fd < 0 || folder != open_folder) {
          if (dir_fd >= 0) close(dir_fd);
          dir_fd = -1;
          s = open_folder_chain(data_fd, folder, &dir_fd);
          if (!s.ok()) break;
          open_folder = folder;
        }
        s = write_sample_file(dir_fd, layout, f, stamper, buf.get());
        if (s.ok()) {
          written.fetch_add(layout.file_bytes(f));
          if (opts.progress != nullptr) {
            opts.progress->fetch_add(layout.file_bytes(f), std::memory_order_relaxed);
          }
        }
      }
      if (dir_fd >= 0) close(dir_fd);
    }
    if (!s.ok()) {
      std::lock_guard<std::mutex> lock(mu);
      // A real error wins over an interruption, so Ctrl-C never hides it.
      if (first.ok() ||
          (first.code() == Status::Code::kInterrupted && s.code() != Status::Code::kInterrupted)) {
        first = s;
      }
      next.store(mine);  // the others stop after their current unit
    }
  };
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < threads; ++t) pool.emplace_back(worker, t);
  for (auto& th : pool) th.join();
  *bytes = written.load();
  if (!first.ok()) return first;
  // One syncfs for the whole part: an fsync per small file would cost a device flush each.
  if (syncfs(data_fd) != 0) return Status::FromErrno("syncfs of the dataset", errno);
  return Status::Ok();
}

Status open_dataset_file(int data_fd, const DatasetLayout& layout, uint64_t file, bool direct, int* fd) {
  Status s = open_file_at(data_fd, layout.file_path(file), O_RDONLY | (direct ? O_DIRECT : 0), fd);
  if (!s.ok() && direct && s.message().find("Invalid argument") != std::string::npos) {
    return Status::IoError(s.message() + " (this filesystem does not support O_DIRECT; set direct: false)");
  }
  return s;
}

Status dataset_cache_pass(int data_fd, const DatasetLayout& layout, uint64_t part, uint64_t parts, bool drop,
                          CacheCounts* out) {
  *out = CacheCounts{};
  if (parts == 0) parts = 1;
  for (uint64_t f = part; f < layout.num_files(); f += parts) {
    int fd = -1;
    Status s = open_dataset_file(data_fd, layout, f, false, &fd);
    if (!s.ok()) return s;
    if (drop) {
      Status d = drop_cached_pages(fd);
      if (!d.ok() && out->drop_error.empty()) out->drop_error = layout.file_path(f) + ": " + d.message();
    }
    uint64_t resident = 0;
    s = resident_bytes(fd, layout.file_bytes(f), &resident);
    close(fd);
    if (!s.ok()) return s;
    out->files++;
    out->bytes += layout.file_bytes(f);
    out->resident_bytes += resident;
  }
  return Status::Ok();
}

Status free_bytes_at(int root_fd, uint64_t* bytes) {
  struct statvfs sv {};
  if (fstatvfs(root_fd, &sv) != 0) return Status::FromErrno("statvfs of the dataset folder", errno);
  *bytes = static_cast<uint64_t>(sv.f_bavail) * sv.f_frsize;
  return Status::Ok();
}

}  // namespace iofab
