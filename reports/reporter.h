// Reporter: an output format, as one row of the reporter table
// (reporter_table.cc), the one place that lists formats. Every format
// renders one run's Report (`iofab run --output FORMAT=PATH`, with --junit
// and --openmetrics its aliases); a format may also render several reports side
// by side (`iofab report --format`) or a comparison (`iofab compare --out`, or
// an option of compare's own: `--junit`), and the CLI offers it there only
// where its row says how. The CLI's
// choices, its help text and the format list in docs/reports.md come from
// the table (tests/reports/reporter_table_test.cc holds them to it).
//
// Adding a format: its writer in reports/<name>_report.{h,cc}, and its row.
// Rows are plain data; every render function is pure (no I/O).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "harness/results/report.h"
#include "reports/compare.h"
#include "reports/side_by_side.h"

namespace iofab {

struct Reporter {
  std::string_view name;         // "html": what `--format` takes
  std::string_view description;  // one line, for the docs
  std::string_view extension;    // ".html": an output path ending so selects this format
  // One run's report as this format's text.
  std::string (*render)(const Report& report);
  // Several reports side by side, one column per system (`iofab report`); null: not a page format.
  std::string (*render_page)(const std::vector<SystemReport>& systems) = nullptr;
  // What `iofab report` calls the file it wrote: "page: bakeoff.html (2 reports)".
  std::string_view page_noun = "";
  // A comparison of two reports (`iofab compare --out`); null: compare does not write this format.
  std::string (*render_comparison)(const Comparison& cmp) = nullptr;
  // Another name find_reporter knows it by ("markdown" for md, as the issue and users spell it); "" none.
  std::string_view alias = "";
  // A comparison `iofab compare` writes where an option of its own asks ("--junit": a CI gate's test
  // results), never picked by --out's extension; "" none.
  std::string_view compare_option = "";
  std::string (*render_for_compare_option)(const Comparison& cmp) = nullptr;
};

// html, md, json, console, junit, openmetrics.
const std::vector<Reporter>& reporter_table();
const Reporter* find_reporter(std::string_view name);

// The page formats, in table order; the first is the default.
std::vector<const Reporter*> page_reporters();
// The page format an output path asks for by its extension; the first page format otherwise.
const Reporter& page_reporter_for(std::string_view path);
// The comparison format an output path asks for by its extension; the console's text table otherwise.
const Reporter& comparison_reporter_for(std::string_view path);

// "html or md", "a, b or c": the names as a sentence lists them.
std::string names_as_choices(const std::vector<const Reporter*>& reporters);

}  // namespace iofab
