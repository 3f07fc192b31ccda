// The subcommands that read reports back: compare (a CI regression gate)
// and report (a page comparing systems). Each returns the exit code:
// 0 no regression / page written, 1 a regression or a missing metric,
// 2 bad input (a file that is not a valid report, a bad option, reports
// that cannot be compared without --force), 3 an output file could not be written.
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace iofab {

struct CompareArgs {
  std::string baseline;
  std::string current;
  std::string tolerance = "5%";
  std::vector<std::string> metrics;  // globs
  std::string out;                   // the format its extension names (reporter.h), else text
  std::string junit;
  bool force = false;
};
int cmd_compare(const CompareArgs& args, std::ostream& out, std::ostream& err);

struct ReportArgs {
  std::vector<std::string> inputs;
  std::vector<std::string> labels;  // one per input when given; default: the file names
  std::string out;                  // "-": stdout
  std::string format;               // a page format of reports/reporter.h; empty: from out's extension
  // --history: the inputs are one suite's reports over time; out gets the history page (reports/history.h).
  bool history = false;
  std::string tolerance;  // with history: as compare's --tolerance ("": 5%)
  size_t last = 10;       // with history: rows in the page's table
};
int cmd_report(const ReportArgs& args, std::ostream& out, std::ostream& err);
// What `iofab report --format` takes (the page formats of the reporter table), and its help text.
std::vector<std::string> report_format_choices();
std::string report_format_help();

}  // namespace iofab
