// A small SVG plotting module for the comparison page: grouped or stacked
// bar charts and line charts (log x optional; a CDF is a line chart with a
// fraction on y). Each chart is one self-contained <svg> element: labelled
// axes with units scaled for people (GB/s, MiB, ms, %), a legend, no
// script, nothing fetched. Every text is escaped: names come from reports.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace iofab {

struct PlotAxis {
  std::string label;  // what the axis shows, e.g. "write bandwidth"
  std::string unit;   // a report unit: "bytes", "bytes/s", "s", "fraction", "count", "ratio"
  bool log = false;   // log scale (line charts' x axis); non-positive values are left out
};

// A horizontal dashed line, e.g. an allowed stall.
struct RefLine {
  std::string label;
  double y = 0;
  int color = 0;  // palette index
};

struct LineSeries {
  std::string name;
  std::vector<std::pair<double, double>> points;  // (x, y) in base units; non-finite points are left out
  int color = -1;                                 // palette index; -1: the series' position
  bool dashed = false;
  // Large ringed dots on the points and no line between them: points to mark on another series
  // (the history page's regressions).
  bool markers_only = false;
};

struct LineChart {
  std::string title;
  PlotAxis x;
  PlotAxis y;
  std::vector<LineSeries> series;
  std::vector<RefLine> ref_lines;
  bool markers = true;  // dots on points (left out where a series has many)
};

struct BarChart {
  std::string title;
  std::string x_label;
  PlotAxis y;
  std::vector<std::string> categories;      // x positions; "\n" splits a label over two lines
  std::vector<std::string> series;          // legend entries (colours in order)
  std::vector<std::vector<double>> values;  // [series][category]; NaN: no bar
  bool stacked = false;                     // segments on one bar per category instead of side by side
  std::vector<RefLine> ref_lines;
};

std::string render_svg(const LineChart& chart);
std::string render_svg(const BarChart& chart);
// The palette colour for an index (cycles), "#rrggbb".
const char* plot_color(int index);

}  // namespace iofab
