// Several reports side by side (`iofab report`): the tables both the HTML
// page and the Markdown version show, as plain data (text cells with a
// state), so the two writers only format. Phases are matched by name.
#pragma once

#include <string>
#include <vector>

#include "harness/results/find_phase.h"  // find_phase, which the pages use
#include "reports/report_reader.h"

namespace iofab {

// One report on the page.
struct SystemReport {
  std::string label;  // column head and legend entry
  LoadedReport loaded;
};

struct Cell {
  enum class Kind { kPlain, kPass, kFail, kAbsent, kDiffers };
  std::string text;
  Kind kind = Kind::kPlain;
};

struct Table {
  std::string id;  // an anchor: letters, digits and '-' only
  std::string title;
  std::string note;
  std::vector<std::string> head;
  std::vector<std::vector<Cell>> rows;
};

// A label per report: the file's name without folders and ".json", made unique.
std::string default_label(const std::string& path);

// Phase names across the reports, in first-seen order.
std::vector<std::string> phase_names(const std::vector<SystemReport>& systems);

// Who ran what where: hosts, CPUs, memory, GPUs, target filesystem, suite,
// tool version; rows whose values differ between systems are marked.
Table systems_table(const std::vector<SystemReport>& systems);
// Every check, pass/fail per system with the measured value; the checkpoint
// budget (budget_margin) first, from the metric when no check asks for it;
// the verdict last.
Table checks_table(const std::vector<SystemReport>& systems);
// One table per phase: every metric per system (mean +/- stdev when repeated).
std::vector<Table> metric_tables(const std::vector<SystemReport>& systems);
// One table per phase: every parameter per system; differing rows marked.
std::vector<Table> param_tables(const std::vector<SystemReport>& systems);
// One line per phase the systems ran with data of different reducibility (compressibility, dedup):
// their figures do not compare, and the page says so above everything else.
std::vector<std::string> reducibility_warnings(const std::vector<SystemReport>& systems);

}  // namespace iofab
