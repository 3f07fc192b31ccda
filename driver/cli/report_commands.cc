#include "driver/cli/report_commands.h"

#include <map>
#include <set>
#include <string_view>

#include "driver/cli/output_paths.h"
#include "harness/fs/atomic_file.h"
#include "reports/compare.h"
#include "reports/compare_format.h"
#include "reports/history.h"
#include "reports/history_page.h"
#include "reports/report_reader.h"
#include "reports/reporter.h"
#include "reports/side_by_side.h"

namespace iofab {

namespace {

// --tolerance for command: *out, or false after saying what the form is.
bool read_tolerance(const char* command, const std::string& text, double* out, std::ostream& err) {
  const auto tol = parse_tolerance(text);
  if (!tol) {
    err << "iofab " << command
        << ": --tolerance: expected a percentage like \"5%\" or a fraction like 0.05, got \"" << text
        << "\"\n";
    return false;
  }
  *out = *tol;
  return true;
}

}  // namespace

int cmd_compare(const CompareArgs& a, std::ostream& out, std::ostream& err) {
  CompareOptions opts;
  if (!read_tolerance("compare", a.tolerance, &opts.tolerance, err)) return 2;
  if (Status o = check_outputs({{"baseline", a.baseline}, {"current", a.current}},
                               {{"--out", a.out}, {"--junit", a.junit}});
      !o.ok()) {
    err << "iofab compare: " << o.message() << "\n";
    return 2;
  }
  opts.metric_globs = a.metrics;
  opts.force = a.force;
  LoadedReport base, cur;
  for (auto [path, dest] : {std::pair{&a.baseline, &base}, std::pair{&a.current, &cur}}) {
    Status st = read_report_file(*path, dest);
    if (!st.ok()) {
      err << "iofab compare: " << st.message() << "\n";
      return 2;
    }
  }
  Comparison cmp;
  Status st = compare_reports(base, cur, opts, &cmp);
  if (!st.ok()) {
    err << "iofab compare: " << st.message() << "\n";
    return 2;
  }
  write_comparison_text(cmp, out);
  int rc = cmp.failed() ? 1 : 0;
  if (!a.out.empty()) {
    const std::string text = comparison_reporter_for(a.out).render_comparison(cmp);
    if (Status w = write_file_atomic(a.out, text); !w.ok()) {
      err << "iofab compare: cannot write " << a.out << ": " << w.message() << "\n";
      rc = 3;
    }
  }
  // Compare's own output options (--junit), each a row of the reporter table.
  const std::map<std::string_view, const std::string*> option_paths = {{"--junit", &a.junit}};
  for (const Reporter& r : reporter_table()) {
    const auto it = r.compare_option.empty() ? option_paths.end() : option_paths.find(r.compare_option);
    if (it == option_paths.end() || it->second->empty()) continue;
    if (Status w = write_file_atomic(*it->second, r.render_for_compare_option(cmp)); !w.ok()) {
      err << "iofab compare: cannot write " << r.compare_option << " " << *it->second << ": " << w.message()
          << "\n";
      rc = 3;
    }
  }
  return rc;
}

std::vector<std::string> report_format_choices() {
  std::vector<std::string> out;
  for (const Reporter* r : page_reporters()) out.emplace_back(r->name);
  return out;
}

std::string report_format_help() {
  return names_as_choices(page_reporters()) + " (default: from -o's extension, else " +
         std::string(page_reporters().front()->name) + ")";
}

namespace {

// `iofab report --history`: one suite's reports over time as one HTML page.
int report_history(const ReportArgs& a, std::ostream& out, std::ostream& err) {
  HistoryOptions opts;
  opts.last = a.last;
  if (!a.tolerance.empty() && !read_tolerance("report", a.tolerance, &opts.tolerance, err)) return 2;
  if (!a.format.empty() && a.format != "html") {
    err << "iofab report: --history writes an HTML page; --format " << a.format << " is not one\n";
    return 2;
  }
  if (!a.labels.empty()) {
    err << "iofab report: --history labels each report by its run's start time and id; --label is not "
           "taken with it\n";
    return 2;
  }
  std::vector<NamedPath> inputs;
  for (const auto& in : a.inputs) inputs.push_back({"report", in});
  if (Status o = check_outputs(inputs, {{"--out", a.out}}); !o.ok()) {
    err << "iofab report: " << o.message() << "\n";
    return 2;
  }
  std::vector<LoadedReport> reports(a.inputs.size());
  for (size_t i = 0; i < a.inputs.size(); ++i) {
    if (Status st = read_report_file(a.inputs[i], &reports[i]); !st.ok()) {
      err << "iofab report: " << st.message() << "\n";
      return 2;
    }
  }
  History h;
  if (Status st = build_history(std::move(reports), opts, &h); !st.ok()) {
    err << "iofab report: " << st.message() << "\n";
    return 2;
  }
  const std::string text = render_history_page(h);
  if (a.out == "-") {
    out << text;
    return 0;
  }
  if (Status w = write_file_atomic(a.out, text); !w.ok()) {
    err << "iofab report: cannot write " << a.out << ": " << w.message() << "\n";
    return 3;
  }
  out << "history: " << a.out << " (" << h.runs.size() << " report" << (h.runs.size() == 1 ? "" : "s") << ", "
      << h.regressions() << " regression" << (h.regressions() == 1 ? "" : "s") << ")\n";
  return 0;
}

}  // namespace

int cmd_report(const ReportArgs& a, std::ostream& out, std::ostream& err) {
  if (a.history) return report_history(a, out, err);
  if (!a.tolerance.empty()) {
    err << "iofab report: --tolerance is for --history\n";
    return 2;
  }
  const Reporter* format = a.format.empty() ? &page_reporter_for(a.out) : find_reporter(a.format);
  if (format == nullptr || format->render_page == nullptr) {
    err << "iofab report: --format: expected " << names_as_choices(page_reporters()) << ", got \"" << a.format
        << "\"\n";
    return 2;
  }
  if (!a.labels.empty() && a.labels.size() != a.inputs.size()) {
    err << "iofab report: --label: expected one label per report (" << a.inputs.size() << "), got "
        << a.labels.size() << "\n";
    return 2;
  }
  std::vector<NamedPath> inputs;
  for (const auto& in : a.inputs) inputs.push_back({"report", in});
  if (Status o = check_outputs(inputs, {{"--out", a.out}}); !o.ok()) {
    err << "iofab report: " << o.message() << "\n";
    return 2;
  }
  std::vector<SystemReport> systems;
  std::set<std::string> used;
  for (size_t i = 0; i < a.inputs.size(); ++i) {
    SystemReport s;
    Status st = read_report_file(a.inputs[i], &s.loaded);
    if (!st.ok()) {
      err << "iofab report: " << st.message() << "\n";
      return 2;
    }
    s.label = a.labels.empty() ? default_label(a.inputs[i]) : a.labels[i];
    // Legends need distinct names: a second "report" becomes "report (2)".
    std::string label = s.label;
    for (int n = 2; !used.insert(label).second; ++n) label = s.label + " (" + std::to_string(n) + ")";
    s.label = label;
    systems.push_back(std::move(s));
  }
  const std::string text = format->render_page(systems);
  if (a.out == "-") {
    out << text;
    return 0;
  }
  if (Status w = write_file_atomic(a.out, text); !w.ok()) {
    err << "iofab report: cannot write " << a.out << ": " << w.message() << "\n";
    return 3;
  }
  out << format->page_noun << ": " << a.out << " (" << systems.size() << " report"
      << (systems.size() == 1 ? "" : "s") << ")\n";
  return 0;
}

}  // namespace iofab
