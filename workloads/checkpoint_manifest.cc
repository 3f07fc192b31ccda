#include "workloads/checkpoint_manifest.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>
// x86-64 builds of libxxhash export runtime-dispatched entry points that use
// AVX2 or AVX-512 where the CPU has them: about twice the SSE2 baseline's speed.
#if (defined(__x86_64__) || defined(_M_X64)) && __has_include(<xxh_x86dispatch.h>)
#include <xxh_x86dispatch.h>
#define IOFAB_XXH3_UPDATE XXH3_64bits_update_dispatch
#define IOFAB_XXH3_ONESHOT XXH3_64bits_dispatch
#else
#define IOFAB_XXH3_UPDATE XXH3_64bits_update
#define IOFAB_XXH3_ONESHOT XXH3_64bits
#endif

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <nlohmann/json.hpp>
#include <set>

#include "harness/core/input_file.h"
#include "harness/core/json_input.h"
#include "harness/fs/run_dir.h"
#include "harness/phase/params.h"

namespace iofab {

using nlohmann::json;

namespace {

// A manifest lists one line per shard; 64 MiB holds hundreds of thousands.
constexpr uint64_t kMaxManifestBytes = 64ULL << 20;

bool is_uint(const json& j) {
  return j.is_number_unsigned() || (j.is_number_integer() && j.get<int64_t>() >= 0);
}

}  // namespace

uint64_t Manifest::total_bytes() const {
  uint64_t t = 0;
  for (const auto& s : shards) t += s.bytes;
  return t;
}

double Manifest::full_bytes() const {
  return full_checkpoint_bytes > 0 ? full_checkpoint_bytes : static_cast<double>(total_bytes());
}

StreamingXxh3::StreamingXxh3() : state_(XXH3_createState()) { reset(); }

StreamingXxh3::~StreamingXxh3() { XXH3_freeState(static_cast<XXH3_state_t*>(state_)); }

void StreamingXxh3::reset() { XXH3_64bits_reset(static_cast<XXH3_state_t*>(state_)); }

void StreamingXxh3::update(const void* data, size_t len) {
  IOFAB_XXH3_UPDATE(static_cast<XXH3_state_t*>(state_), data, len);
}

uint64_t StreamingXxh3::digest() const {
  return XXH3_64bits_digest(static_cast<const XXH3_state_t*>(state_));
}

uint64_t xxh3_of(const void* data, size_t len) { return IOFAB_XXH3_ONESHOT(data, len); }

std::string xxh3_hex(uint64_t h) {
  static const char kDigits[] = "0123456789abcdef";
  std::string s(16, '0');
  for (int i = 15; i >= 0; --i) {
    s[static_cast<size_t>(i)] = kDigits[h & 0xf];
    h >>= 4;
  }
  return s;
}

std::optional<uint64_t> parse_xxh3_hex(std::string_view text) {
  if (text.size() != 16) return std::nullopt;
  uint64_t h = 0;
  for (char c : text) {
    int d;
    if (c >= '0' && c <= '9')
      d = c - '0';
    else if (c >= 'a' && c <= 'f')
      d = c - 'a' + 10;
    else if (c >= 'A' && c <= 'F')
      d = c - 'A' + 10;
    else
      return std::nullopt;
    h = (h << 4) | static_cast<uint64_t>(d);
  }
  return h;
}

bool is_safe_shard_name(std::string_view name) {
  if (name.empty() || name.size() > 255 || name == "." || name == ".." || name == kManifestName) return false;
  for (char c : name) {
    if (c == '/' || static_cast<unsigned char>(c) < 0x20 || c == 0x7f) return false;
  }
  return true;
}

std::string step_dir_name(uint64_t step) { return "step-" + std::to_string(step); }

std::string step_tmp_name(uint64_t step) { return step_dir_name(step) + ".tmp"; }

std::optional<uint64_t> parse_step_dir_name(std::string_view name) {
  constexpr std::string_view kPrefix = "step-";
  if (!name.starts_with(kPrefix) || name.size() == kPrefix.size() || name.size() > kPrefix.size() + 19) {
    return std::nullopt;
  }
  uint64_t n = 0;
  for (char c : name.substr(kPrefix.size())) {
    if (c < '0' || c > '9') return std::nullopt;
    n = n * 10 + static_cast<uint64_t>(c - '0');
  }
  return n;
}

Status list_steps_at(int dirfd, StepListing* out) {
  out->committed.clear();
  out->tmp.clear();
  const int fd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return Status::FromErrno("open checkpoint folder", errno);
  DIR* d = fdopendir(fd);
  if (d == nullptr) {
    const int e = errno;
    close(fd);
    return Status::FromErrno("opendir checkpoint folder", e);
  }
  while (dirent* e = readdir(d)) {
    std::string_view name(e->d_name);
    struct stat st {};
    if (fstatat(dirfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISDIR(st.st_mode)) continue;
    if (auto n = parse_step_dir_name(name)) {
      out->committed.push_back(*n);
    } else if (name.ends_with(".tmp") && parse_step_dir_name(name.substr(0, name.size() - 4))) {
      out->tmp.emplace_back(name);
    }
  }
  closedir(d);
  std::sort(out->committed.begin(), out->committed.end());
  std::sort(out->tmp.begin(), out->tmp.end());
  return Status::Ok();
}

std::string manifest_to_json_text(const Manifest& m) {
  json shards = json::array();
  for (const auto& s : m.shards) {
    shards.push_back({{"name", s.name},
                      {"bytes", s.bytes},
                      {"xxh3", xxh3_hex(s.xxh3)},
                      {"rank", s.rank},
                      {"worker", s.worker}});
  }
  json j = {{"format", kManifestFormat},
            {"version", kManifestVersion},
            {"hash", "xxh3-64"},
            {"step", m.step},
            {"phase", m.phase},
            {"created", m.created},
            {"committed_unix_ns", m.committed_unix_ns},
            {"total_bytes", m.total_bytes()},
            {"full_checkpoint_bytes", m.full_checkpoint_bytes},
            {"scale", m.scale},
            {"shards", shards}};
  return j.dump(1) + "\n";
}

Status parse_manifest(std::string_view text, Manifest* out) {
  json j;
  if (Status s = parse_json_input(text, {}, &j); !s.ok()) return Status::Invalid("manifest: " + s.message());
  if (!j.is_object()) return Status::Invalid("manifest: not a JSON object");
  if (j.value("format", json()) != kManifestFormat) {
    return Status::Invalid("manifest.format: expected \"" + std::string(kManifestFormat) + "\", got " +
                           describe_json_value(j.value("format", json())));
  }
  if (!j.contains("version") || !j["version"].is_number_integer() ||
      j["version"].get<int64_t>() != kManifestVersion) {
    return Status::Invalid("manifest.version: expected " + std::to_string(kManifestVersion) +
                           " (this iofab reads only that), got " +
                           describe_json_value(j.value("version", json())));
  }
  if (j.contains("hash") && j["hash"] != "xxh3-64") {
    return Status::Invalid("manifest.hash: expected \"xxh3-64\", got " + describe_json_value(j["hash"]));
  }
  Manifest m;
  if (!j.contains("step") || !is_uint(j["step"])) {
    return Status::Invalid("manifest.step: expected a step number, got " +
                           describe_json_value(j.value("step", json())));
  }
  m.step = j["step"].get<uint64_t>();
  if (j.contains("phase")) {
    if (!j["phase"].is_string()) return Status::Invalid("manifest.phase: expected a string");
    m.phase = j["phase"].get<std::string>();
  }
  if (j.contains("created")) {
    if (!j["created"].is_string())
      return Status::Invalid("manifest.created: expected an RFC 3339 time string");
    m.created = j["created"].get<std::string>();
  }
  if (j.contains("committed_unix_ns")) {
    if (!is_uint(j["committed_unix_ns"]))
      return Status::Invalid("manifest.committed_unix_ns: expected an integer");
    m.committed_unix_ns = j["committed_unix_ns"].get<uint64_t>();
  }
  for (const char* k : {"full_checkpoint_bytes", "scale"}) {
    if (!j.contains(k)) continue;
    if (!j[k].is_number() || !std::isfinite(j[k].get<double>()) || j[k].get<double>() < 0) {
      return Status::Invalid(std::string("manifest.") + k + ": expected a non-negative number, got " +
                             describe_json_value(j[k]));
    }
  }
  m.full_checkpoint_bytes = j.value("full_checkpoint_bytes", 0.0);
  m.scale = j.value("scale", 1.0);
  if (m.scale < 1)
    return Status::Invalid("manifest.scale: expected a number >= 1, got " + describe_json_value(j["scale"]));
  if (!j.contains("shards") || !j["shards"].is_array() || j["shards"].empty()) {
    return Status::Invalid("manifest.shards: expected a non-empty array of {name, bytes, xxh3}");
  }
  std::set<std::string, std::less<>> names;
  const json& arr = j["shards"];
  for (size_t i = 0; i < arr.size(); ++i) {
    const std::string p = "manifest.shards[" + std::to_string(i) + "]";
    const json& s = arr[i];
    if (!s.is_object()) return Status::Invalid(p + ": expected an object {name, bytes, xxh3}");
    ShardEntry e;
    if (!s.contains("name") || !s["name"].is_string() || !is_safe_shard_name(s["name"].get<std::string>())) {
      return Status::Invalid(p + ".name: expected a plain file name in the step folder, got " +
                             describe_json_value(s.value("name", json())));
    }
    e.name = s["name"].get<std::string>();
    if (!names.insert(e.name).second) return Status::Invalid(p + ".name: \"" + e.name + "\" is listed twice");
    if (!s.contains("bytes") || !is_uint(s["bytes"])) {
      return Status::Invalid(p + ".bytes: expected a size in bytes, got " +
                             describe_json_value(s.value("bytes", json())));
    }
    e.bytes = s["bytes"].get<uint64_t>();
    std::optional<uint64_t> h;
    if (s.contains("xxh3") && s["xxh3"].is_string()) h = parse_xxh3_hex(s["xxh3"].get<std::string>());
    if (!h) {
      return Status::Invalid(p + ".xxh3: expected 16 hex digits, got " +
                             describe_json_value(s.value("xxh3", json())));
    }
    e.xxh3 = *h;
    if (s.contains("rank") && s["rank"].is_number_integer()) e.rank = s["rank"].get<int>();
    if (s.contains("worker") && s["worker"].is_number_integer()) e.worker = s["worker"].get<int>();
    m.shards.push_back(std::move(e));
  }
  if (j.contains("total_bytes")) {
    if (!is_uint(j["total_bytes"]) || j["total_bytes"].get<uint64_t>() != m.total_bytes()) {
      return Status::Invalid("manifest.total_bytes: " + describe_json_value(j["total_bytes"]) +
                             " is not the sum of the shards' bytes (" + std::to_string(m.total_bytes()) +
                             ")");
    }
  }
  *out = std::move(m);
  return Status::Ok();
}

Status write_manifest_at(int dirfd, const Manifest& m) {
  const std::string text = manifest_to_json_text(m);
  int fd = -1;
  Status s = open_file_at(dirfd, kManifestName, O_WRONLY, &fd);
  if (!s.ok()) return s;
  size_t done = 0;
  while (done < text.size()) {
    ssize_t n = write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int e = n < 0 ? errno : ENOSPC;
      close(fd);
      return Status::FromErrno("write " + std::string(kManifestName), e);
    }
    done += static_cast<size_t>(n);
  }
  if (fsync(fd) != 0) {
    const int e = errno;
    close(fd);
    return Status::FromErrno("fsync " + std::string(kManifestName), e);
  }
  if (close(fd) != 0) return Status::FromErrno("close " + std::string(kManifestName), errno);
  return Status::Ok();
}

Status read_manifest_at(int dirfd, std::string_view where, Manifest* m) {
  // Non-blocking and bounded: a FIFO or a huge file named manifest.json must not hang a restore.
  std::string text;
  Status s = read_input_file_at(dirfd, kManifestName, kMaxManifestBytes, O_NOFOLLOW, &text);
  if (!s.ok()) {
    return Status::IoError(std::string(where) + ": no readable " + std::string(kManifestName) + " (" +
                           s.message() + "): not a committed checkpoint");
  }
  s = parse_manifest(text, m);
  if (!s.ok()) return Status::IoError(std::string(where) + "/" + s.message());
  return Status::Ok();
}

}  // namespace iofab
