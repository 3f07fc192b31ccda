#include "workloads/prepare/prepare_bound.h"

#include <array>

#include "harness/core/number_text.h"

namespace iofab {
namespace {

std::string pct(double f) { return number_text("%.0f%%", f * 100); }

}  // namespace

void StageFigures::merge(const StageFigures& o) {
  threads += o.threads;
  thread_seconds += o.thread_seconds;
  busy_seconds += o.busy_seconds;
  wait_input_seconds += o.wait_input_seconds;
  wait_room_seconds += o.wait_room_seconds;
  cpu_seconds += o.cpu_seconds;
  items += o.items;
}

nlohmann::json StageFigures::to_json() const {
  return {{"threads", threads},
          {"thread_seconds", thread_seconds},
          {"busy_seconds", busy_seconds},
          {"wait_input_seconds", wait_input_seconds},
          {"wait_room_seconds", wait_room_seconds},
          {"cpu_seconds", cpu_seconds},
          {"items", items},
          {"busy_fraction", busy_fraction()},
          {"wait_input_fraction", wait_input_fraction()},
          {"wait_room_fraction", wait_room_fraction()}};
}

const char* stage_name(PrepareStage s) {
  switch (s) {
    case PrepareStage::kRead:
      return "read";
    case PrepareStage::kTransform:
      return "transform";
    case PrepareStage::kWrite:
      return "write";
  }
  return "?";
}

const char* stage_label(PrepareStage s) {
  switch (s) {
    case PrepareStage::kRead:
      return "storage read";
    case PrepareStage::kTransform:
      return "CPU (transform)";
    case PrepareStage::kWrite:
      return "storage write";
  }
  return "?";
}

BoundBy decide_bound_by(const StageFigures& read, const StageFigures& transform, const StageFigures& write) {
  const std::array<const StageFigures*, 3> f = {&read, &transform, &write};
  const std::array<PrepareStage, 3> stages = {PrepareStage::kRead, PrepareStage::kTransform,
                                              PrepareStage::kWrite};
  // How long the neighbours waited on stage i: the one before for room, the one after for input.
  auto waited_on = [&](size_t i) {
    double w = 0;
    if (i > 0) w += f[i - 1]->wait_room_fraction();
    if (i + 1 < f.size()) w += f[i + 1]->wait_input_fraction();
    return w;
  };
  size_t best = 0;
  for (size_t i = 1; i < f.size(); ++i) {
    const double d = f[i]->busy_fraction() - f[best]->busy_fraction();
    if (d > kBoundTie || (d >= -kBoundTie && waited_on(i) > waited_on(best))) best = i;
  }
  const std::string figures = "busy: read " + pct(read.busy_fraction()) + ", transform " +
                              pct(transform.busy_fraction()) + ", write " + pct(write.busy_fraction()) +
                              "; readers waited for room " + pct(read.wait_room_fraction()) +
                              ", transformers for input " + pct(transform.wait_input_fraction()) +
                              " and for room " + pct(transform.wait_room_fraction()) +
                              ", writers for input " + pct(write.wait_input_fraction());
  if (f[best]->busy_fraction() < kBoundMinBusy) {
    return {"none", "none", "no stage was busy " + pct(kBoundMinBusy) + " of its time (" + figures + ")"};
  }
  return {stage_name(stages[best]), stage_label(stages[best]), figures};
}

}  // namespace iofab
