#include "workloads/calibration/loader_costs.h"

#include <algorithm>
#include <cmath>

namespace iofab {
namespace {

using nlohmann::json;

struct CostField {
  const char* name;
  double LoaderCosts::*member;
};

constexpr CostField kCostFields[] = {
    {.name = "sample_s", .member = &LoaderCosts::sample_s},
    {.name = "byte_s", .member = &LoaderCosts::byte_s},
    {.name = "collate_batch_s", .member = &LoaderCosts::collate_batch_s},
    {.name = "collate_byte_s", .member = &LoaderCosts::collate_byte_s},
    {.name = "main_batch_s", .member = &LoaderCosts::main_batch_s},
    {.name = "worker_start_s", .member = &LoaderCosts::worker_start_s},
};

Status read_costs(const json& j, const std::string& where, const std::string& source, LoaderCosts* out) {
  if (!j.is_object()) {
    return Status::Invalid("calibration file " + source + ": " + where + ": expected an object of costs");
  }
  for (const CostField& f : kCostFields) {
    const auto it = j.find(f.name);
    if (it == j.end() || !it->is_number() || !std::isfinite(it->get<double>()) || it->get<double>() < 0) {
      return Status::Invalid("calibration file " + source + ": " + where + "." + f.name +
                             ": expected a number >= 0 (CPU seconds)" +
                             (it == j.end() ? " (it is missing)" : ", got " + it->dump()));
    }
    out->*f.member = it->get<double>();
  }
  return Status::Ok();
}

// A point list in a section ("points.python"): each point's five numbers, >= 0.
Status read_points(const json& j, const std::string& where, const std::string& source,
                   std::vector<LoaderPoint>* out) {
  if (!j.is_array())
    return Status::Invalid("calibration file " + source + ": " + where + ": expected an array");
  for (size_t i = 0; i < j.size(); ++i) {
    LoaderPoint p;
    const std::pair<const char*, double*> fields[] = {{"size", &p.size},
                                                      {"batch_bytes", &p.batch_bytes},
                                                      {"sample_s", &p.sample_s},
                                                      {"collate_s", &p.collate_s},
                                                      {"main_batch_s", &p.main_batch_s}};
    for (const auto& [name, dst] : fields) {
      const json& v = j[i].is_object() && j[i].contains(name) ? j[i][name] : json();
      if (!v.is_number() || !std::isfinite(v.get<double>()) || v.get<double>() < 0) {
        return Status::Invalid("calibration file " + source + ": " + where + "[" + std::to_string(i) + "]." +
                               name + ": expected a number >= 0");
      }
      *dst = v.get<double>();
    }
    out->push_back(p);
  }
  return Status::Ok();
}

bool same_sizes(const std::vector<LoaderPoint>& a, const std::vector<LoaderPoint>& b) {
  if (a.empty() || a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].size != b[i].size || a[i].batch_bytes != b[i].batch_bytes) return false;
  }
  return true;
}

}  // namespace

json LoaderPoint::to_json() const {
  return {{"size", size},
          {"batch_bytes", batch_bytes},
          {"sample_s", sample_s},
          {"collate_s", collate_s},
          {"main_batch_s", main_batch_s}};
}

double SpinCurve::at(double v) const {
  if (x.empty()) return 0;
  if (x.size() == 1) return std::max(0.0, y[0]);
  size_t i = 1;
  while (i + 1 < x.size() && v > x[i]) ++i;
  const double dx = x[i] - x[i - 1];
  const double t = dx != 0 ? (v - x[i - 1]) / dx : 0.0;
  return std::max(0.0, y[i - 1] + t * (y[i] - y[i - 1]));
}

SpinCurve LoaderCalibration::sample_spin() const {
  SpinCurve c;
  if (same_sizes(python_points, native_points)) {
    for (size_t i = 0; i < python_points.size(); ++i) {
      c.x.push_back(python_points[i].size);
      c.y.push_back(std::max(0.0, python_points[i].sample_s - native_points[i].sample_s));
    }
    return c;
  }
  const LoaderCosts s = spin();
  c.x = {0, 1 << 20};
  c.y = {s.sample_s, s.sample_s + s.byte_s * (1 << 20)};
  return c;
}

SpinCurve LoaderCalibration::collate_spin() const {
  SpinCurve c;
  if (same_sizes(python_points, native_points)) {
    for (size_t i = 0; i < python_points.size(); ++i) {
      c.x.push_back(python_points[i].batch_bytes);
      c.y.push_back(std::max(0.0, python_points[i].collate_s - native_points[i].collate_s));
    }
    return c;
  }
  const LoaderCosts s = spin();
  c.x = {0, 1 << 20};
  c.y = {s.collate_batch_s, s.collate_batch_s + s.collate_byte_s * (1 << 20)};
  return c;
}

json LoaderCosts::to_json() const {
  json j = json::object();
  for (const CostField& f : kCostFields) j[f.name] = this->*f.member;
  return j;
}

LoaderCosts LoaderCalibration::spin() const {
  LoaderCosts s;
  for (const CostField& f : kCostFields) s.*f.member = std::max(0.0, python.*f.member - native.*f.member);
  return s;
}

json LoaderCalibration::to_json() const {
  json py = json::array(), nat = json::array();
  for (const auto& p : python_points) py.push_back(p.to_json());
  for (const auto& p : native_points) nat.push_back(p.to_json());
  return {{"python", python.to_json()},
          {"native", native.to_json()},
          {"spin", spin().to_json()},
          {"points", {{"python", py}, {"native", nat}}}};
}

LoaderCalibration builtin_loader_calibration() {
  // Measured with `iofab calibrate` on iofab's 2-core development VM (Debian 12, python3-torch 1.13,
  // 2026-12-07, the machine busy with builds): docs/calibration.md has the run and its figures.
  LoaderCalibration c;
  c.python = {.sample_s = 1.00326e-05,
              .byte_s = 3.6202e-09,
              .collate_batch_s = 0.000166835,
              .collate_byte_s = 3.47263e-09,
              .main_batch_s = 0.0013799,
              .worker_start_s = 0.110824};
  c.native = {.sample_s = 0,
              .byte_s = 3.69068e-09,
              .collate_batch_s = 0.000404217,
              .collate_byte_s = 3.62432e-09,
              .main_batch_s = 0.000258502,
              .worker_start_s = 2.9166e-05};
  c.python_points = {{.size = 16384,
                      .batch_bytes = 131072,
                      .sample_s = 2.60444e-05,
                      .collate_s = 0.000763932,
                      .main_batch_s = 0.000944891},
                     {.size = 262144,
                      .batch_bytes = 2097152,
                      .sample_s = 0.00101588,
                      .collate_s = 0.00726319,
                      .main_batch_s = 0.00130359},
                     {.size = 1048576,
                      .batch_bytes = 8388608,
                      .sample_s = 0.00379256,
                      .collate_s = 0.0293417,
                      .main_batch_s = 0.00189122}};
  c.native_points = {{.size = 16384,
                      .batch_bytes = 131072,
                      .sample_s = 2.01836e-05,
                      .collate_s = 0.0010638,
                      .main_batch_s = 6.19334e-05},
                     {.size = 262144,
                      .batch_bytes = 2097152,
                      .sample_s = 0.000989046,
                      .collate_s = 0.00776278,
                      .main_batch_s = 0.000184185},
                     {.size = 1048576,
                      .batch_bytes = 8388608,
                      .sample_s = 0.00384806,
                      .collate_s = 0.0308649,
                      .main_batch_s = 0.000529387}};
  return c;
}

Status loader_calibration(const Calibration& c, LoaderCalibration* out, bool* from_file) {
  const json* s = c.section(kLoaderSection);
  *from_file = s != nullptr;
  if (s == nullptr) {
    *out = builtin_loader_calibration();
    return Status::Ok();
  }
  LoaderCalibration lc;
  const std::string where = "sections." + std::string(kLoaderSection);
  Status st =
      read_costs(s->contains("python") ? (*s)["python"] : json(), where + ".python", c.source, &lc.python);
  if (st.ok()) {
    st = read_costs(s->contains("native") ? (*s)["native"] : json(), where + ".native", c.source, &lc.native);
  }
  // The points are optional (a hand-written file may give the lines alone).
  const json* points = s->contains("points") ? &(*s)["points"] : nullptr;
  if (st.ok() && points != nullptr && points->contains("python")) {
    st = read_points((*points)["python"], where + ".points.python", c.source, &lc.python_points);
  }
  if (st.ok() && points != nullptr && points->contains("native")) {
    st = read_points((*points)["native"], where + ".points.native", c.source, &lc.native_points);
  }
  if (st.ok()) *out = lc;
  return st;
}

}  // namespace iofab
