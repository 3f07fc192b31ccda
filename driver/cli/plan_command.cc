// `iofab plan`: what a model's checkpoints need from storage (DESIGN.md, the 5% rule), from a
// parameter count (--params) or from a model (--model, --preset): then every rank's bytes too.
#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <optional>

#include "driver/cli/commands.h"
#include "harness/core/json_input.h"
#include "harness/core/number_text.h"
#include "harness/core/units.h"
#include "workloads/checkpoint/budget.h"
#include "workloads/checkpoint/model_spec.h"
#include "workloads/checkpoint/presets.h"
#include "workloads/checkpoint/tensor_plan.h"

namespace iofab {

using nlohmann::json;

namespace {

// "2.45e12": three significant digits, as DESIGN.md writes its numbers.
std::string sci(double v) {
  std::string s = number_text("%.2e", v);
  const auto e = s.find('e');
  if (e == std::string::npos) return s;
  std::string mant = s.substr(0, e);
  std::string exp = s.substr(e + 1);
  bool neg = !exp.empty() && exp[0] == '-';
  if (!exp.empty() && (exp[0] == '+' || exp[0] == '-')) exp.erase(0, 1);
  while (exp.size() > 1 && exp[0] == '0') exp.erase(0, 1);
  return mant + "e" + (neg ? "-" : "") + exp;
}

// A bound as a person writes it: 1, 0.001, 1e+15.
std::string g(double v) { return number_text("%g", v); }

std::string plain(double v) { return number_text("%.15g", v); }

// GiB with two decimals: MLPerf Storage's tables count in GiB (and write "GB").
std::string gib(double bytes) { return number_text("%.2f GiB", bytes / (1024.0 * 1024 * 1024)); }

class Rows {
 public:
  explicit Rows(std::ostream& out) : out_(out) {}
  void operator()(const std::string& label, const std::string& value) const {
    out_ << "  " << label << std::string(label.size() < 30 ? 30 - label.size() : 1, ' ') << value << "\n";
  }

 private:
  std::ostream& out_;
};

// The model the options name: a preset, then --model's fields over it (or over the defaults).
// Errors name the option and the field; false after printing them.
bool read_model(const PlanArgs& a, TransformerSpec* spec, const ModelPreset** preset, std::ostream& err) {
  *preset = nullptr;
  if (!a.preset.empty()) {
    *preset = find_model_preset(a.preset);
    if (*preset == nullptr) {
      err << "iofab plan: --preset: expected one of " << model_preset_names() << ", got \"" << a.preset
          << "\"\n";
      return false;
    }
    *spec = (*preset)->spec;
  }
  if (a.model.empty()) return true;
  // As a suite's model is read: a key given twice is refused, not settled by whichever comes last.
  json j;
  JsonInputError kind = JsonInputError::kNone;
  const Status parsed = parse_json_input(a.model, {}, &j, &kind);
  if (kind == JsonInputError::kDuplicate || kind == JsonInputError::kDepth) {
    err << "iofab plan: --model: " << parsed.message() << "; expected each field once\n";
    return false;
  }
  if (!parsed.ok() || !j.is_object()) {
    err << "iofab plan: --model: expected a JSON object like {\"layers\": 80, \"hidden\": 8192, \"ffn\": "
           "28672, "
           "\"vocab\": 128256, \"heads\": 64, \"kv_heads\": 8}, got \""
        << a.model << "\"\n";
    return false;
  }
  if (Status st = parse_model_spec(j, "--model", spec); !st.ok()) {
    err << "iofab plan: " << st.message() << "\n";
    return false;
  }
  return true;
}

// Consecutive ranks with the same bytes, as one line each: 512 ranks read in a few lines.
void write_rank_groups(const ModelPlan& p, const Rows& row) {
  uint64_t start = 0;
  for (uint64_t r = 1; r <= p.ranks; ++r) {
    if (r < p.ranks && p.rank_bytes[r] == p.rank_bytes[start]) continue;
    const std::string who = r - start == 1 ? "rank " + std::to_string(start)
                                           : "ranks " + std::to_string(start) + "-" + std::to_string(r - 1);
    const double b = static_cast<double>(p.rank_bytes[start]);
    row(who, plain(b) + " bytes (" + gib(b) + ")" + (r - start > 1 ? " each" : ""));
    start = r;
  }
}

// What `iofab plan` was asked, read and checked: a model (by_model) or a parameter count, the budget's
// inputs, and the replica writer and the rank whose tensors to list.
struct PlanRequest {
  bool by_model = false;
  TransformerSpec spec;
  const ModelPreset* preset = nullptr;
  CheckpointPlanInput in;
  ReplicaWriter writer = ReplicaWriter::kFirst;
  std::optional<uint64_t> tensors_of;
};

class PlanReader {
 public:
  PlanReader(const PlanArgs& a, std::ostream& err) : a_(a), err_(err) {}

  // False after every error is printed.
  bool read(PlanRequest* r) {
    r->by_model = !a_.model.empty() || !a_.preset.empty();
    if (!check_mode(r->by_model)) return false;
    if (r->by_model) {
      if (!read_model(a_, &r->spec, &r->preset, err_)) return false;
      if (!a_.gpus.empty())
        return refuse("--gpus: a model's ranks are tensor x pipeline x data; set them in --model");
    } else {
      read_params(&r->in);
    }
    if (!read_replica_writer(*r, &r->writer)) return false;
    if (!a_.tensors.empty()) {
      if (!r->by_model)
        return refuse("--tensors: lists a rank's tensors of a model; give --preset or --model");
      const double limit = static_cast<double>(r->spec.ranks()) - 1;
      if (auto v = take("--tensors", a_.tensors, units::parse_count(a_.tensors), 0, limit, true, "a rank"))
        r->tensors_of = static_cast<uint64_t>(*v);
    }
    read_budget(r->by_model, &r->in);
    return ok_;
  }

 private:
  bool refuse(const std::string& what) {
    err_ << "iofab plan: " << what << "\n";
    return false;
  }

  // Either --params or a model, and the options that go with one only.
  bool check_mode(bool by_model) {
    if (by_model == !a_.params.empty()) {
      return refuse(
          "give either --params (a parameter count like 175e9) or a model (--preset NAME, --model JSON, or "
          "both: --model's fields over the preset's)");
    }
    if (by_model && a_.bytes_per_param_given) {
      return refuse("--bytes-per-param: applies only with --params; a model's bytes follow from its dtypes");
    }
    if (by_model && a_.writer_fraction_given) {
      return refuse("--writer-fraction: applies only with --params; a model's plan says which ranks write");
    }
    return true;
  }

  // Each value is read with the same range a suite's checkpoint or restore phase takes, so no figure comes
  // out as inf, NaN or a JSON null.
  std::optional<double> take(const char* option, const std::string& text, std::optional<double> v, double min,
                             double max, bool whole, const std::string& what, const std::string& range = "") {
    if (v && std::isfinite(*v) && *v >= min && *v <= max && (!whole || *v == std::floor(*v))) return v;
    err_ << "iofab plan: " << option << ": expected " << what << " from "
         << (range.empty() ? g(min) + " to " + g(max) : range) << ", got \"" << text << "\"\n";
    ok_ = false;
    return std::nullopt;
  }

  void read_params(CheckpointPlanInput* in) {
    if (auto v = take("--params", a_.params, units::parse_count(a_.params), kMinParams, kMaxParams, false,
                      "a parameter count like 175e9"))
      in->params = *v;
    if (auto v = take("--bytes-per-param", a_.bytes_per_param, units::parse_count(a_.bytes_per_param),
                      kMinBytesPerParam, kMaxBytesPerParam, false, "a number of bytes like 14"))
      in->bytes_per_param = *v;
  }

  bool read_replica_writer(const PlanRequest& r, ReplicaWriter* writer) {
    if (a_.replica_writer.empty()) return true;
    if (!r.by_model) return refuse("--replica-writer: applies only with a model (--preset or --model)");
    // The names the checkpoint phase's replica_writer takes, read from the enum's own names.
    bool known = false;
    for (ReplicaWriter w :
         {ReplicaWriter::kFirst, ReplicaWriter::kBalanced, ReplicaWriter::kSpread, ReplicaWriter::kAll}) {
      if (a_.replica_writer == replica_writer_name(w)) {
        *writer = w;
        known = true;
      }
    }
    if (!known) {
      return refuse("--replica-writer: expected first, balanced, spread or all, got \"" + a_.replica_writer +
                    "\"");
    }
    if (*writer != ReplicaWriter::kFirst && r.spec.formula == ModelFormula::kDlio) {
      return refuse(
          "--replica-writer: DLIO's rules (formula dlio) write replicated state from the first replica "
          "only");
    }
    return true;
  }

  // The 5% rule's inputs: interval, budget fraction, fanout, GPUs, writers, restore budget.
  void read_budget(bool by_model, CheckpointPlanInput* in) {
    if (auto v = take("--interval", a_.interval, units::parse_duration(a_.interval), kMinIntervalSeconds,
                      kMaxIntervalSeconds, false, "a duration like \"1h\" or \"30min\"", "1ms to 365 days"))
      in->interval_s = *v;
    if (auto v = take("--budget-fraction", a_.budget_fraction, units::parse_fraction(a_.budget_fraction),
                      kMinBudgetFraction, 1, false, "a fraction like 0.05 or \"5%\""))
      in->budget_fraction = *v;
    if (auto v = take("--fanout", a_.fanout, units::parse_count(a_.fanout), 1, kMaxFanout, true,
                      "a whole number like 8"))
      in->fanout = static_cast<unsigned>(*v);
    if (!a_.gpus.empty()) {
      if (auto v =
              take("--gpus", a_.gpus, units::parse_count(a_.gpus), 1, 1e9, true, "a whole number like 2000"))
        in->gpus = *v;
    }
    if (!by_model) {
      if (auto v = take("--writer-fraction", a_.writer_fraction, units::parse_fraction(a_.writer_fraction),
                        kMinWriterFraction, 1, false, "a fraction like 0.125"))
        in->writer_fraction = *v;
    }
    if (!a_.restore_budget.empty()) {
      if (auto v = take("--restore-budget", a_.restore_budget, units::parse_duration(a_.restore_budget),
                        kMinIntervalSeconds, kMaxIntervalSeconds, false, "a duration like \"10min\"",
                        "1ms to 365 days"))
        in->restore_budget_s = *v;
    }
  }

  const PlanArgs& a_;
  std::ostream& err_;
  bool ok_ = true;
};

void write_plan_json(const PlanRequest& r, const CheckpointPlan& plan, const ModelPlan& mp,
                     const std::vector<RankTensor>& tensors, std::ostream& out) {
  json j = to_json(plan);
  if (r.by_model) {
    j["model"] = to_json(r.spec);
    j["model_plan"] = to_json(mp);
    if (r.preset != nullptr && r.preset->published_gib > 0) j["published_gib"] = r.preset->published_gib;
    if (r.tensors_of) {
      json list = json::array();
      for (const RankTensor& t : tensors) {
        list.push_back({{"name", tensor_name(t)},
                        {"elements", t.elements},
                        {"dtype_bytes", t.dtype_bytes},
                        {"bytes", t.bytes()}});
      }
      j["tensors"] = {{"rank", *r.tensors_of}, {"list", list}};
    }
  }
  out << j.dump(2) << "\n";
}

// The model's shape, dtypes, parallelism, sizes, every rank's bytes and the tensors asked for.
void write_model_text(const PlanRequest& r, const ModelPlan& mp, const std::vector<RankTensor>& tensors,
                      const Rows& row, std::ostream& out) {
  const TransformerSpec& spec = r.spec;
  out << "model plan: " << (spec.name.empty() ? "model" : spec.name) << " (formula "
      << formula_name(spec.formula) << ")\n";
  if (r.preset != nullptr) row("preset", std::string(r.preset->about));
  row("shape", std::to_string(spec.layers) + " layers, hidden " + std::to_string(spec.hidden) + ", ffn " +
                   std::to_string(spec.ffn) + ", vocab " + std::to_string(spec.vocab) + ", " +
                   std::to_string(spec.heads) + " heads, " + std::to_string(spec.kv_heads) + " kv heads, " +
                   (spec.tied_embeddings ? "tied" : "untied") + " embeddings");
  row("dtypes", "weights " + std::string(dtype_name(spec.weights)) + ", master " +
                    std::string(dtype_name(spec.master)) + ", Adam moments " +
                    std::string(dtype_name(spec.moments)));
  row("parallelism", "tensor " + std::to_string(spec.tensor) + " x pipeline " +
                         std::to_string(spec.pipeline) + " x data " + std::to_string(spec.data) + " = " +
                         std::to_string(spec.ranks()) + (spec.ranks() == 1 ? " rank" : " ranks") + ", ZeRO " +
                         std::to_string(spec.zero));
  const auto p = static_cast<double>(mp.parameters);
  row("parameters", plain(p) + " (" + sci(p) + ")");
  const auto total = static_cast<double>(mp.total_bytes);
  row("checkpoint size", plain(total) + " bytes (" + sci(total) + ", " + gib(total) + ")");
  row("  weights", plain(static_cast<double>(mp.weight_bytes)) + " bytes");
  row("  optimizer state", plain(static_cast<double>(mp.optimizer_bytes)) + " bytes");
  if (r.preset != nullptr && r.preset->published_gib > 0) {
    row("MLPerf Storage's table", g(r.preset->published_gib) + " GiB (docs/models.md explains the gap)");
  }
  out << "per rank (" << mp.ranks << (mp.ranks == 1 ? " rank, " : " ranks, ") << mp.writing_ranks
      << (mp.writing_ranks == 1 ? " writes" : " write") << "; replica writer "
      << replica_writer_name(mp.replica_writer) << ", skew " << g(mp.skew()) << " = largest / mean):\n";
  write_rank_groups(mp, row);
  if (!r.tensors_of) return;
  out << "tensors of rank " << *r.tensors_of << " (" << tensors.size() << "):\n";
  for (const RankTensor& t : tensors) {
    row(tensor_name(t), std::to_string(t.elements) + " x " + std::to_string(t.dtype_bytes) + " = " +
                            std::to_string(t.bytes()) + " bytes");
  }
}

// The 5% rule's figures: the allowed stall and the bandwidths it takes, per GPU and for the largest rank.
void write_budget_text(const PlanRequest& r, const CheckpointPlan& plan, const ModelPlan& mp, const Rows& row,
                       std::ostream& out) {
  const CheckpointPlanInput& in = r.in;
  row("allowed stall", plain(plan.allowed_stall_seconds) + " s (" + plain(in.budget_fraction * 100) +
                           "% of " + units::format_duration(in.interval_s) + ")");
  row("required write bandwidth", units::format_rate(plan.required_write_bytes_per_s) + " (" +
                                      sci(plan.required_write_bytes_per_s) + " bytes/s)");
  row("restore reads (fanout " + std::to_string(in.fanout) + ")",
      plain(plan.restore_read_bytes) + " bytes (" + sci(plan.restore_read_bytes) + ")");
  row("required restore bandwidth",
      units::format_rate(plan.required_restore_bytes_per_s) + " (" + sci(plan.required_restore_bytes_per_s) +
          " bytes/s, restoring in " + plain(plan.restore_seconds) + " s" +
          (in.restore_budget_s > 0 ? ", the restore budget)" : ", the allowed stall)"));
  if (in.gpus > 0) {
    out << "per-GPU shares (" << plain(in.gpus) << " GPUs, " << plain(plan.writers) << " of them write):\n";
    row("checkpoint bytes per writer", units::format_bytes(plan.per_writer_checkpoint_bytes));
    row("write bandwidth per writer", units::format_rate(plan.per_writer_write_bytes_per_s));
    row("read bandwidth per GPU", units::format_rate(plan.per_gpu_read_bytes_per_s));
  }
  if (r.by_model && mp.ranks > 1) {
    // Ranks write in parallel, so the stall ends when the largest share is down: under ZeRO 1 that is a
    // rank of the first data-parallel replica, above the average.
    const auto largest = static_cast<double>(*std::max_element(mp.rank_bytes.begin(), mp.rank_bytes.end()));
    row("largest rank's bytes", units::format_bytes(largest));
    row("write bandwidth, largest rank", units::format_rate(largest / plan.allowed_stall_seconds));
  }
}

}  // namespace

int cmd_plan(const PlanArgs& a, std::ostream& out, std::ostream& err) {
  PlanRequest r;
  if (!PlanReader(a, err).read(&r)) return 2;
  ModelPlan mp;
  if (r.by_model) {
    // The budget reads the model's plan: its bytes over its parameters, every rank a GPU, the ranks with
    // bytes to write the writers.
    mp = plan_model(r.spec, r.writer);
    r.in.params = static_cast<double>(mp.parameters);
    r.in.bytes_per_param = static_cast<double>(mp.total_bytes) / static_cast<double>(mp.parameters);
    r.in.gpus = static_cast<double>(mp.ranks);
    r.in.writer_fraction = static_cast<double>(mp.writing_ranks) / static_cast<double>(mp.ranks);
  }
  const CheckpointPlan plan = make_checkpoint_plan(r.in);
  std::vector<RankTensor> tensors;
  if (r.tensors_of) tensors = rank_tensors(r.spec, *r.tensors_of, r.writer);
  if (a.json) {
    write_plan_json(r, plan, mp, tensors, out);
    return 0;
  }
  const Rows row(out);
  if (r.by_model) {
    write_model_text(r, mp, tensors, row, out);
    out << "checkpoint plan: every " << units::format_duration(r.in.interval_s) << "\n";
  } else {
    out << "checkpoint plan: " << a.params << " parameters x " << plain(r.in.bytes_per_param)
        << " bytes/parameter, every " << units::format_duration(r.in.interval_s) << "\n";
    row("checkpoint size", plain(plan.checkpoint_bytes) + " bytes (" + sci(plan.checkpoint_bytes) + ", " +
                               units::format_bytes(plan.checkpoint_bytes) + ")");
  }
  write_budget_text(r, plan, mp, row, out);
  return 0;
}

}  // namespace iofab
