// libFuzzer target: reading a report back (compare and report take files
// from other machines) must answer any input with a Status, and whatever it
// accepts must survive the writers that read it.
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string_view>

#include "harness/core/json_input.h"
#include "reports/console_report.h"
#include "reports/json_report.h"
#include "reports/report_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  // As read_report_file does: depth limit and repeated keys refused before the reader sees the document.
  nlohmann::json doc;
  if (!iofab::parse_json_input(text, {}, &doc).ok()) return 0;
  iofab::LoadedReport loaded;
  if (!iofab::read_report_json(doc, "fuzz", &loaded).ok()) return 0;
  std::ostringstream out;
  iofab::write_console_summary(loaded.report, out);
  for (const auto& p : loaded.report.phases) {
    for (const auto& m : iofab::ordered_metric_names({&p})) {
      iofab::metric_unit(p, m);
      iofab::metric_better(p, m);
    }
  }
  return 0;
}
