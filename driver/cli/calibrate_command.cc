#include "driver/cli/calibrate_command.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <vector>

#include "driver/cli/child_process.h"
#include "harness/core/json_input.h"
#include "harness/core/wall_clock.h"
#include "workloads/calibration/calibration.h"
#include "workloads/calibration/loader_costs.h"
#include "workloads/calibration/loader_fit.h"
#include "workloads/calibration/probes.h"
#include "workloads/calibration/torch_costs.h"
#include "workloads/train_read/torch_native_costs.h"

namespace iofab {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr uint64_t kBatch = 8;  // the probe's batch: small, so the 1 MiB set has several batches

struct Python {
  std::string path;
  std::string version;
  std::string torch;
};

// python's versions, or why it will not do ("No module named 'torch'").
Status check_python(const std::string& path, Python* out) {
  ChildResult r;
  Status s =
      run_child({path, "-c", "import sys, torch; print(sys.version.split()[0], torch.__version__)"}, &r);
  if (!s.ok()) return s;
  if (r.exit_code != 0) {
    std::string why = r.err.empty() ? "exit " + std::to_string(r.exit_code) : r.err;
    while (!why.empty() && why.back() == '\n') why.pop_back();
    const size_t nl = why.rfind('\n');
    return Status::Invalid(path + ": " + (nl == std::string::npos ? why : why.substr(nl + 1)));
  }
  std::istringstream in(r.out);
  out->path = path;
  in >> out->version >> out->torch;
  return Status::Ok();
}

std::string python3_on_path() {
  const char* path = std::getenv("PATH");
  std::istringstream dirs(path != nullptr ? path : "");
  for (std::string d; std::getline(dirs, d, ':');) {
    const std::string p = (d.empty() ? "." : d) + "/python3";
    if (::access(p.c_str(), X_OK) == 0) return p;
  }
  return "";
}

// --python, else /usr/bin/python3, else python3 on PATH: the first that imports torch.
Status find_python(const std::string& given, Python* out) {
  std::vector<std::string> tries;
  if (!given.empty()) {
    tries.push_back(given);
  } else {
    if (::access("/usr/bin/python3", X_OK) == 0) tries.push_back("/usr/bin/python3");
    const std::string on_path = python3_on_path();
    if (!on_path.empty() && on_path != "/usr/bin/python3") tries.push_back(on_path);
  }
  std::string why;
  for (const std::string& p : tries) {
    Status s = check_python(p, out);
    if (s.ok()) return s;
    why += (why.empty() ? "" : "; ") + s.message();
  }
  return Status::Invalid(
      "calibrate needs a python3 with torch and found none (" +
      (tries.empty() ? std::string("no python3 at /usr/bin/python3 or on PATH") : why) +
      "); install torch (Debian: apt-get install python3-torch) or name one with --python PATH");
}

// The scratch folder, removed with its files whatever happens.
class Scratch {
 public:
  Status make(const std::string& parent) {
    std::string base = parent;
    if (base.empty()) {
      const char* tmp = std::getenv("TMPDIR");
      base = tmp != nullptr && *tmp != '\0' ? tmp : "/tmp";
    }
    std::string templ = base + "/iofab-calibrate-XXXXXX";
    if (::mkdtemp(templ.data()) == nullptr) return Status::FromErrno("--dir " + base, errno);
    path_ = templ;
    return Status::Ok();
  }
  ~Scratch() {
    std::error_code ec;
    if (!path_.empty()) fs::remove_all(path_, ec);
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

struct FileSet {
  uint64_t size = 0;
  std::string dir;
  std::vector<std::string> paths;
};

Status write_set(const std::string& root, uint64_t size, int files, FileSet* out) {
  out->size = size;
  out->dir = root + "/s" + std::to_string(size);
  std::error_code ec;
  fs::create_directory(out->dir, ec);
  if (ec) return Status::IoError("mkdir " + out->dir + ": " + ec.message());
  std::vector<char> bytes(size);
  uint64_t x = 0x9e3779b97f4a7c15ULL ^ size;
  for (int f = 0; f < files; ++f) {
    for (auto& b : bytes) {
      x ^= x << 13, x ^= x >> 7, x ^= x << 17;
      b = static_cast<char>(x);
    }
    const std::string p = out->dir + "/" + std::to_string(f) + ".bin";
    std::ofstream o(p, std::ios::binary);
    o.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    if (!o) return Status::IoError("write " + p);
    out->paths.push_back(p);
  }
  return Status::Ok();
}

// The probe's script written beside the files, run, its last line of stdout read as JSON.
Status run_probe(const Python& py, const std::string& scratch, const CalibrationProbe& probe,
                 const json& input, json* output) {
  const std::string script = scratch + "/" + std::string(probe.script);
  {
    std::ofstream o(script);
    o << embedded_probe_script(probe.script);
    if (!o) return Status::IoError("write " + script);
  }
  ChildResult r;
  if (Status s = run_child({py.path, script, input.dump()}, &r); !s.ok()) return s;
  if (r.exit_code != 0) {
    return Status::IoError("the " + std::string(probe.name) + " probe failed (exit " +
                           std::to_string(r.exit_code) + "): " + r.err);
  }
  std::string last = r.out;
  while (!last.empty() && last.back() == '\n') last.pop_back();
  const size_t nl = last.rfind('\n');
  if (nl != std::string::npos) last = last.substr(nl + 1);
  Status s = parse_json_input(last, {}, output);
  return s.ok() ? s : Status::IoError("the " + std::string(probe.name) + " probe's output: " + s.message());
}

// The loader section: the real DataLoader's costs and the profile's own, each fitted over the sizes.
Status calibrate_loader(const Python& py, const CalibrateArgs& args, const std::string& scratch,
                        const CalibrationProbe& probe, json* section, LoaderCalibration* costs) {
  const std::pair<uint64_t, int> sizes[] = {
      {16384, args.files}, {262144, std::max(2, args.files / 2)}, {1048576, std::max(2, args.files / 4)}};
  std::vector<FileSet> sets;
  json input = {{"batch", kBatch}, {"workers", 2}, {"rounds", args.rounds}, {"sets", json::array()}};
  for (const auto& [size, files] : sizes) {
    FileSet& set = sets.emplace_back();
    if (Status s = write_set(scratch, size, files, &set); !s.ok()) return s;
    input["sets"].push_back({{"size", size}, {"dir", set.dir}});
  }
  json output;
  if (Status s = run_probe(py, scratch, probe, input, &output); !s.ok()) return s;
  std::vector<LoaderPoint> real;
  double real_start = 0;
  if (Status s = python_loader_points(output, &real, &real_start); !s.ok()) return s;
  std::vector<LoaderPoint> own;
  for (const FileSet& set : sets) {
    LoaderPoint p;
    // Twice: the first pass brings the files into the page cache, as the probe's own warm-up does.
    Status s = measure_native_loader_point(set.paths, set.size, kBatch, &p);
    if (s.ok()) s = measure_native_loader_point(set.paths, set.size, kBatch, &p);
    if (!s.ok()) return s;
    own.push_back(p);
  }
  costs->python = fit_loader_costs(real, real_start);
  costs->native = fit_loader_costs(own, measure_native_worker_start());
  costs->python_points = real;
  costs->native_points = own;
  *section = costs->to_json();
  (*section)["points"]["probe"] = output.value("points", json::array());
  (*section)["batch"] = kBatch;
  return Status::Ok();
}

// A probe that fits its own sections (torch_save_probe.py: torch_save and safetensors): each taken as it
// printed it, once it reads back as the phases read it (torch_costs), so a bad probe writes nothing.
Status calibrate_torch(const Python& py, const CalibrateArgs& args, const std::string& scratch,
                       const CalibrationProbe& probe, Calibration* c, std::ostream& out) {
  json output;
  if (Status s = run_probe(py, scratch, probe, {{"rounds", args.rounds}}, &output); !s.ok()) return s;
  if (!output.contains("sections") || !output["sections"].is_object()) {
    return Status::IoError("the " + std::string(probe.name) + " probe printed no sections");
  }
  Calibration fitted = *c;
  for (const auto& [name, body] : output["sections"].items()) fitted.sections[name] = body;
  for (const std::string_view section : {kTorchSaveSection, kSafetensorsSection}) {
    TorchCosts costs;
    bool from_file = false;
    if (Status s = torch_costs(fitted, section, &costs, &from_file); !s.ok() || !from_file) {
      return Status::IoError("the " + std::string(probe.name) + " probe's section " + std::string(section) + ": " +
                             (s.ok() ? "missing" : s.message()));
    }
    const ItemCosts spin = costs.spin();
    char line[200];
    std::snprintf(line, sizeof line, "  %-12s spun per %s %.2f us, per byte %.3f ns\n", std::string(section).c_str(),
                  section == kTorchSaveSection ? "record" : "tensor", spin.per_item_s * 1e6, spin.per_byte_s * 1e9);
    out << line;
  }
  *c = std::move(fitted);
  return Status::Ok();
}

// Sections other probes wrote into the file before are kept.
void keep_other_sections(const std::string& path, Calibration* c) {
  Calibration old;
  std::error_code ec;
  if (!fs::is_regular_file(path, ec) || !load_calibration_file(path, &old).ok()) return;
  for (const auto& [name, body] : old.sections.items()) {
    if (!c->sections.contains(name)) c->sections[name] = body;
  }
}

Status write_calibration(const std::string& path, const Calibration& c) {
  std::error_code ec;
  const fs::path parent = fs::path(path).parent_path();
  if (!parent.empty()) fs::create_directories(parent, ec);
  if (ec) return Status::IoError("mkdir " + parent.string() + ": " + ec.message());
  const std::string tmp = path + ".tmp";
  {
    std::ofstream o(tmp);
    o << c.to_json().dump(2) << "\n";
    if (!o) return Status::IoError("write " + tmp);
  }
  fs::rename(tmp, path, ec);
  if (ec) {
    fs::remove(tmp, ec);
    return Status::IoError("rename to " + path + ": " + ec.message());
  }
  return Status::Ok();
}

std::string hostname() {
  char h[256] = {};
  return ::gethostname(h, sizeof h - 1) == 0 ? h : "";
}

void print_costs(const LoaderCalibration& c, std::ostream& out) {
  const LoaderCosts spin = c.spin();
  char line[200];
  out << "  loader (CPU per unit)     python (real)   native (profile's own)   spun\n";
  const std::tuple<const char*, double, double, double, double> rows[] = {
      {"per sample", c.python.sample_s, c.native.sample_s, spin.sample_s, 1e6},
      {"per byte", c.python.byte_s, c.native.byte_s, spin.byte_s, 1e9},
      {"collate per batch", c.python.collate_batch_s, c.native.collate_batch_s, spin.collate_batch_s, 1e6},
      {"collate per byte", c.python.collate_byte_s, c.native.collate_byte_s, spin.collate_byte_s, 1e9},
      {"main loop per batch", c.python.main_batch_s, c.native.main_batch_s, spin.main_batch_s, 1e6},
      {"worker start", c.python.worker_start_s, c.native.worker_start_s, spin.worker_start_s, 1e6}};
  for (const auto& [name, a, b, s, scale] : rows) {
    const char* unit = scale == 1e9 ? "ns" : "us";
    std::snprintf(line, sizeof line, "  %-22s %12.3f %s %16.3f %s %12.3f %s\n", name, a * scale, unit,
                  b * scale, unit, s * scale, unit);
    out << line;
  }
}

}  // namespace

int cmd_calibrate(const CalibrateArgs& args, std::ostream& out, std::ostream& err) {
  const std::string path = args.out.empty() ? default_calibration_path() : args.out;
  if (path.empty()) {
    err << "iofab calibrate: no --out and no default path (neither $XDG_CONFIG_HOME nor $HOME is set)\n";
    return 2;
  }
  Python py;
  if (Status s = find_python(args.python, &py); !s.ok()) {
    err << "iofab calibrate: " << s.message() << "\n";
    return 2;
  }
  out << "calibrating with " << py.path << " (Python " << py.version << ", torch " << py.torch << ")\n";
  Calibration c;
  c.source = path;
  c.created = rfc3339_utc_now();
  c.host = hostname();
  c.python = py.path + " " + py.version;
  c.torch = py.torch;
  Status st;
  {
    Scratch scratch;
    st = scratch.make(args.dir);
    for (const CalibrationProbe& probe : calibration_probes()) {
      if (!st.ok()) break;
      out << "  probe " << probe.name << ": " << probe.what << "\n";
      if (probe.section == kLoaderSection) {
        LoaderCalibration costs;
        json section;
        st = calibrate_loader(py, args, scratch.path(), probe, &section, &costs);
        if (st.ok()) c.sections[std::string(probe.section)] = section;
        if (st.ok()) print_costs(costs, out);
      } else if (probe.section == kTorchSaveSection) {
        st = calibrate_torch(py, args, scratch.path(), probe, &c, out);
      }
    }
  }
  if (st.ok()) keep_other_sections(path, &c);
  if (st.ok()) st = write_calibration(path, c);
  if (!st.ok()) {
    err << "iofab calibrate: " << st.message() << "\n";
    return st.code() == Status::Code::kInvalidArgument ? 2 : 3;
  }
  out << "wrote " << path << "\n";
  return 0;
}

}  // namespace iofab
