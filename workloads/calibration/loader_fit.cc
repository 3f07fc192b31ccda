#include "workloads/calibration/loader_fit.h"

#include <algorithm>
#include <string>

#include "workloads/calibration/fit.h"

namespace iofab {

LoaderCosts fit_loader_costs(const std::vector<LoaderPoint>& points, double worker_start_s) {
  std::vector<double> size, sample, bbytes, collate;
  double main = 0;
  for (const LoaderPoint& p : points) {
    size.push_back(p.size);
    sample.push_back(p.sample_s);
    bbytes.push_back(p.batch_bytes);
    collate.push_back(p.collate_s);
    main += p.main_batch_s;
  }
  const LineFit s = fit_line(size, sample);
  const LineFit c = fit_line(bbytes, collate);
  // A negative intercept or slope is noise around zero: no cost is below nothing.
  return {.sample_s = std::max(0.0, s.intercept),
          .byte_s = std::max(0.0, s.slope),
          .collate_batch_s = std::max(0.0, c.intercept),
          .collate_byte_s = std::max(0.0, c.slope),
          .main_batch_s = points.empty() ? 0.0 : main / static_cast<double>(points.size()),
          .worker_start_s = std::max(0.0, worker_start_s)};
}

Status python_loader_points(const nlohmann::json& probe, std::vector<LoaderPoint>* points,
                            double* worker_start_s) {
  const auto bad = [](const std::string& field) {
    return Status::Invalid("the loader probe's output: " + field + ": expected a number >= 0");
  };
  if (!probe.is_object() || !probe.contains("points") || !probe["points"].is_array() ||
      probe["points"].empty()) {
    return Status::Invalid("the loader probe's output: points: expected a non-empty array");
  }
  points->clear();
  for (size_t i = 0; i < probe["points"].size(); ++i) {
    const nlohmann::json& p = probe["points"][i];
    LoaderPoint lp;
    const std::pair<const char*, double*> fields[] = {{"size", &lp.size},
                                                      {"batch_bytes", &lp.batch_bytes},
                                                      {"getitem_s", &lp.sample_s},
                                                      {"collate_s", &lp.collate_s},
                                                      {"main_batch_s", &lp.main_batch_s}};
    for (const auto& [name, dst] : fields) {
      if (!p.is_object() || !p.contains(name) || !p[name].is_number() || p[name].get<double>() < 0) {
        return bad("points[" + std::to_string(i) + "]." + name);
      }
      *dst = p[name].get<double>();
    }
    points->push_back(lp);
  }
  if (!probe.contains("worker_start_s") || !probe["worker_start_s"].is_number()) return bad("worker_start_s");
  *worker_start_s = probe["worker_start_s"].get<double>();
  return Status::Ok();
}

}  // namespace iofab
