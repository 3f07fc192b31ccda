#include "harness/cli/report_commands.h"

#include <set>
#include <sstream>

#include "harness/cli/output_paths.h"
#include "harness/core/json_text.h"
#include "harness/fs/atomic_file.h"
#include "reports/compare.h"
#include "reports/compare_format.h"
#include "reports/html_report.h"
#include "reports/json_report.h"
#include "reports/junit_report.h"
#include "reports/markdown_report.h"
#include "reports/report_reader.h"
#include "reports/side_by_side.h"

namespace iofab {

namespace {

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

}  // namespace

int cmd_compare(const CompareArgs& a, std::ostream& out, std::ostream& err) {
  CompareOptions opts;
  auto tol = parse_tolerance(a.tolerance);
  if (!tol) {
    err << "iofab compare: --tolerance: expected a percentage like \"5%\" or a fraction like 0.05, got \""
        << a.tolerance << "\"\n";
    return 2;
  }
  opts.tolerance = *tol;
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
    std::string text;
    if (ends_with(a.out, ".json")) {
      text = json_text(comparison_to_json(cmp), 2) + "\n";
    } else if (ends_with(a.out, ".md")) {
      text = comparison_to_markdown(cmp);
    } else {
      std::ostringstream s;
      write_comparison_text(cmp, s);
      text = s.str();
    }
    if (Status w = write_file_atomic(a.out, text); !w.ok()) {
      err << "iofab compare: cannot write " << a.out << ": " << w.message() << "\n";
      rc = 3;
    }
  }
  if (!a.junit.empty()) {
    if (Status w = write_file_atomic(a.junit, junit_for_compare(cmp, cur.report)); !w.ok()) {
      err << "iofab compare: cannot write the JUnit file: " << w.message() << "\n";
      rc = 3;
    }
  }
  return rc;
}

int cmd_report(const ReportArgs& a, std::ostream& out, std::ostream& err) {
  std::string format = a.format;
  if (format.empty()) format = ends_with(a.out, ".md") ? "md" : "html";
  if (format != "html" && format != "md") {
    err << "iofab report: --format: expected html or md, got \"" << format << "\"\n";
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
  const std::string text = format == "md" ? render_markdown_report(systems) : render_html_report(systems);
  if (a.out == "-") {
    out << text;
    return 0;
  }
  if (Status w = write_file_atomic(a.out, text); !w.ok()) {
    err << "iofab report: cannot write " << a.out << ": " << w.message() << "\n";
    return 3;
  }
  out << (format == "md" ? "markdown: " : "page: ") << a.out << " (" << systems.size() << " report"
      << (systems.size() == 1 ? "" : "s") << ")\n";
  return 0;
}

}  // namespace iofab
