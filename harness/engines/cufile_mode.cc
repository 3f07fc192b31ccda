// What decides cuFile's data path (GPUDirect or compat mode): the environment, cufile.json, nvidia-fs and
// the driver's properties read into CufileModeFacts, and the one line that says which path a run gets;
// also which CUDA device a rank uses. Pure but for reading the files and the environment.
#include "harness/engines/cufile_mode.h"

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "harness/core/input_file.h"
#include "harness/core/json_input.h"

namespace iofab {

namespace {

std::optional<bool> parse_flag(std::string_view v) {
  std::string s(v);
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (s == "true" || s == "1" || s == "yes" || s == "on") return true;
  if (s == "false" || s == "0" || s == "no" || s == "off") return false;
  return std::nullopt;
}

}  // namespace

Status parse_cufile_config(std::string_view text, CufileModeFacts* facts) {
  nlohmann::json j;
  JsonInputOptions options;
  options.allow_comments = true;
  if (Status s = parse_json_input(text, options, &j); !s.ok()) return s;
  if (!j.is_object()) return Status::Invalid("expected an object at the top level");
  const auto props = j.find("properties");
  if (props == j.end()) return Status::Ok();
  if (!props->is_object()) return Status::Invalid("properties: expected an object");
  auto flag = [&](const char* key, std::optional<bool>* out) -> Status {
    const auto v = props->find(key);
    if (v == props->end()) return Status::Ok();
    if (!v->is_boolean())
      return Status::Invalid(std::string("properties.") + key + ": expected true or false");
    *out = v->get<bool>();
    return Status::Ok();
  };
  Status s = flag("allow_compat_mode", &facts->json_allow_compat);
  if (s.ok()) s = flag("force_compat_mode", &facts->json_force_compat);
  if (s.ok()) s = flag("use_pci_p2pdma", &facts->json_pci_p2pdma);
  return s;
}

CufileModeFacts read_cufile_mode_facts(const CufileEnvLookup& env, const std::string& root) {
  namespace fs = std::filesystem;
  CufileModeFacts f;
  if (auto v = env("CUFILE_FORCE_COMPAT_MODE")) f.env_force_compat = parse_flag(*v);
  if (auto v = env("CUFILE_ALLOW_COMPAT_MODE")) f.env_allow_compat = parse_flag(*v);
  const std::optional<std::string> custom = env("CUFILE_ENV_PATH_JSON");
  f.config_path = custom && !custom->empty() ? *custom : "/etc/cufile.json";
  const fs::path base(root.empty() ? "/" : root);
  const fs::path config = base / fs::path(f.config_path).relative_path();
  std::error_code ec;
  if (fs::exists(config, ec)) {
    // Non-blocking and bounded: CUFILE_ENV_PATH_JSON may name a FIFO or a device.
    std::string text;
    Status s = read_input_file(config.string(), kMaxConfigFileBytes, &text);
    if (!s.ok()) {
      f.config_error = "cannot be read (" + s.message() + ")";
    } else {
      s = parse_cufile_config(text, &f);
      if (!s.ok()) f.config_error = s.message();
    }
  }
  f.nvfs_loaded = fs::exists(base / "proc/driver/nvidia-fs", ec);
  return f;
}

CufileMode decide_cufile_mode(const CufileModeFacts& f) {
  CufileMode m;
  const std::string cfg = f.config_path.empty() ? "cufile.json" : f.config_path;
  std::string note;
  if (!f.config_error.empty()) note = "; " + cfg + " ignored: " + f.config_error;
  // The environment overrides the file (cuFile's own precedence).
  const bool force = f.env_force_compat.value_or(f.json_force_compat.value_or(false));
  if (force) {
    m.compat = true;
    m.text = std::string("compat mode, forced by ") +
             (f.env_force_compat ? "CUFILE_FORCE_COMPAT_MODE" : "properties.force_compat_mode in " + cfg) +
             ": cuFile does POSIX I/O through host memory, not GPUDirect" + note;
    return m;
  }
  bool allow = true;
  std::string allow_source = "cuFile's default";
  if (f.props_allow_compat) {
    allow = *f.props_allow_compat;
    allow_source = "the driver's properties";
  } else if (f.env_allow_compat) {
    allow = *f.env_allow_compat;
    allow_source = "CUFILE_ALLOW_COMPAT_MODE";
  } else if (f.json_allow_compat) {
    allow = *f.json_allow_compat;
    allow_source = cfg;
  }
  const std::string allow_text =
      std::string("allow_compat_mode ") + (allow ? "true" : "false") + " (" + allow_source + ")";
  const bool p2pdma = f.json_pci_p2pdma.value_or(false);
  // An open driver that reports an nvidia-fs version has the module, whatever /proc showed.
  const bool nvfs = f.nvfs_loaded || f.nvfs_major.has_value();
  if (!nvfs && !p2pdma) {
    if (allow) {
      m.compat = true;
      m.text =
          "compat mode: nvidia-fs is not loaded (no /proc/driver/nvidia-fs) and PCI P2PDMA is off, so "
          "cuFile does POSIX I/O through host memory; " +
          allow_text + note;
    } else {
      m.usable = false;
      m.text =
          "no GPUDirect path: nvidia-fs is not loaded (no /proc/driver/nvidia-fs), PCI P2PDMA is off, "
          "and " +
          allow_text + note;
    }
    return m;
  }
  std::string path;
  if (nvfs) {
    path = "nvidia-fs";
    if (f.nvfs_major)
      path += " " + std::to_string(*f.nvfs_major) + "." + std::to_string(f.nvfs_minor.value_or(0));
  } else {
    path = "PCI P2PDMA";
  }
  m.text = "GPUDirect Storage (" + path + "); on a file or filesystem without GPUDirect support cuFile " +
           (allow ? "falls back to compat mode (POSIX I/O through host memory)" : "fails the I/O") + ": " +
           allow_text + note;
  return m;
}

int pick_cufile_device(int count, const CufileEnvLookup& env) {
  if (count <= 0) return 0;
  for (const char* name : {"LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID", "SLURM_LOCALID"}) {
    const std::optional<std::string> v = env(name);
    if (!v || v->empty()) continue;
    char* end = nullptr;
    errno = 0;
    const long r = std::strtol(v->c_str(), &end, 10);
    if (errno != 0 || *end != '\0' || r < 0) continue;
    return static_cast<int>(r % count);
  }
  return 0;
}

std::optional<std::string> process_env(std::string_view name) {
  const char* v = std::getenv(std::string(name).c_str());
  if (v == nullptr) return std::nullopt;
  return std::string(v);
}

}  // namespace iofab
