#include "reports/svg_plot.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <sstream>

#include "reports/escape.h"

namespace iofab {

namespace {

constexpr double kWidth = 760;
constexpr double kLeft = 78;  // room for y tick labels and the y axis title
constexpr double kRight = 24;
constexpr double kTop = 40;  // the title
constexpr double kPlotHeight = 260;
constexpr double kCharWidth = 6.6;  // 12 px sans-serif, about
constexpr double kLegendRow = 18;

// Okabe-Ito based: distinguishable with the common colour-vision deficiencies.
const char* const kPalette[] = {"#0072B2", "#E69F00", "#009E73", "#D55E00",
                                "#CC79A7", "#56B4E9", "#8C564B", "#555555"};

std::string svg_num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", std::isfinite(v) ? v : 0.0);
  return buf;
}

// A unit for people and the divisor that gets there from base units.
struct Scale {
  double div = 1;
  std::string suffix;
};

Scale pick_scale(const std::string& unit, double max_abs) {
  if (unit == "bytes/s") {
    if (max_abs >= 1e12) return {1e12, "TB/s"};
    if (max_abs >= 1e9) return {1e9, "GB/s"};
    if (max_abs >= 1e6) return {1e6, "MB/s"};
    if (max_abs >= 1e3) return {1e3, "kB/s"};
    return {1, "B/s"};
  }
  if (unit == "bytes") {
    if (max_abs >= 0x1p40) return {0x1p40, "TiB"};
    if (max_abs >= 0x1p30) return {0x1p30, "GiB"};
    if (max_abs >= 0x1p20) return {0x1p20, "MiB"};
    if (max_abs >= 0x1p10) return {0x1p10, "KiB"};
    return {1, "B"};
  }
  if (unit == "s") {
    if (max_abs >= 1 || max_abs == 0) return {1, "s"};
    if (max_abs >= 1e-3) return {1e-3, "ms"};
    if (max_abs >= 1e-6) return {1e-6, "\xC2\xB5s"};
    return {1e-9, "ns"};
  }
  if (unit == "fraction") return {0.01, "%"};
  if (max_abs >= 1e9) return {1e9, "billions"};
  if (max_abs >= 1e6) return {1e6, "millions"};
  if (max_abs >= 1e4) return {1e3, "thousands"};
  return {1, ""};
}

// "74.2 ms", "3.03 GB/s": a bar's value, three significant digits.
std::string short_value(double v, const std::string& unit) {
  const Scale s = pick_scale(unit, std::fabs(v));
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", v / s.div);
  return s.suffix.empty() ? std::string(buf) : std::string(buf) + " " + s.suffix;
}

std::string axis_title(const PlotAxis& a, const Scale& s) {
  if (a.log || s.suffix.empty()) return a.label;
  return a.label + " (" + s.suffix + ")";
}

std::string fmt_g(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

// Log-axis tick labels carry their own unit: "4 KiB", "100 us", "1 GB/s".
std::string log_tick_label(double v, const std::string& unit) {
  if (unit == "bytes" || unit == "bytes/s" || unit == "s") {
    const Scale s = pick_scale(unit, v * 1.0000001);
    return fmt_g(v / s.div) + " " + s.suffix;
  }
  return fmt_g(v);
}

struct Ticks {
  double lo = 0, hi = 1;
  std::vector<double> at;  // base units
  std::vector<std::string> labels;
};

Ticks linear_ticks(double lo, double hi, const Scale& s) {
  // Figures near a double's ends (-1e308 to 1e308) span more than a double holds: the axis keeps to
  // +-1e307, so its step and labels stay finite (a point beyond is drawn at the edge's side).
  lo = std::clamp(lo, -1e307, 1e307);
  hi = std::clamp(hi, -1e307, 1e307);
  if (!(hi > lo)) {
    if (hi == 0 && lo == 0) {
      hi = 1;
    } else {
      const double pad = std::fabs(hi) * 0.1;
      lo -= pad;
      hi += pad;
    }
  }
  const double range = (hi - lo) / s.div;
  const double raw = range / 5;
  const double mag = std::pow(10, std::floor(std::log10(raw)));
  const double norm = raw / mag;
  const double step = (norm < 1.5 ? 1 : norm < 3 ? 2 : norm < 7 ? 5 : 10) * mag;
  Ticks t;
  const double slo = std::floor(lo / s.div / step + 1e-9) * step;
  const double shi = std::ceil(hi / s.div / step - 1e-9) * step;
  t.lo = slo * s.div;
  t.hi = shi * s.div;
  const int decimals = std::max(0, static_cast<int>(-std::floor(std::log10(step) + 1e-9)));
  for (int i = 0; i <= 40; ++i) {
    const double v = slo + step * i;
    if (v > shi + step * 1e-6) break;
    char buf[32];
    if (std::fabs(v) >= 1e15) {
      std::snprintf(buf, sizeof buf, "%.3g", v);  // "1e+307", not 308 digits
    } else {
      std::snprintf(buf, sizeof buf, "%.*f", decimals, std::fabs(v) < step * 1e-9 ? 0.0 : v);
    }
    t.at.push_back(v * s.div);
    t.labels.push_back(buf);
  }
  return t;
}

Ticks log_ticks(double lo, double hi, const std::string& unit) {
  const double base = unit == "bytes" ? 2 : 10;
  const double lb = std::log(base);
  if (!(lo > 0)) lo = hi > 0 ? hi / 10 : 1;
  if (!(hi > lo)) hi = lo * base;
  int e0 = static_cast<int>(std::floor(std::log(lo) / lb + 1e-9));
  int e1 = static_cast<int>(std::ceil(std::log(hi) / lb - 1e-9));
  if (e1 <= e0) e1 = e0 + 1;
  // Steps of 1, 2, 5, 10 or 20 powers keep labels round: 1 KiB, 32 KiB, 1 MiB, ...
  int k = 20;
  for (int step : {1, 2, 5, 10, 20}) {
    if ((e1 - e0) / step <= 8) {
      k = step;
      break;
    }
  }
  e0 = static_cast<int>(std::floor(static_cast<double>(e0) / k)) * k;
  e1 = static_cast<int>(std::ceil(static_cast<double>(e1) / k)) * k;
  Ticks t;
  t.lo = std::pow(base, e0);
  t.hi = std::pow(base, e1);
  for (int e = e0; e <= e1; e += k) {
    const double v = std::pow(base, e);
    t.at.push_back(v);
    t.labels.push_back(log_tick_label(v, unit));
  }
  return t;
}

// Maps base-unit values to pixels along one axis.
struct Mapper {
  double lo = 0, hi = 1, p0 = 0, p1 = 1;
  bool log = false;
  double operator()(double v) const {
    if (log) {
      const double a = std::log(lo), b = std::log(hi);
      return p0 + (std::log(v) - a) / (b - a) * (p1 - p0);
    }
    return p0 + (v - lo) / (hi - lo) * (p1 - p0);
  }
};

std::string text(double x, double y, const std::string& s, const char* anchor, const char* extra = "") {
  return "<text x=\"" + svg_num(x) + "\" y=\"" + svg_num(y) + "\" text-anchor=\"" + anchor + "\"" + extra +
         ">" + xml_escape(s) + "</text>";
}

struct Legend {
  std::vector<std::pair<std::string, int>> items;  // name, colour
  std::vector<bool> dashed;
};

// Rows of swatch + name, wrapped to the width; returns the height used.
double legend_height(const Legend& l) {
  if (l.items.empty()) return 0;
  double x = kLeft;
  int rows = 1;
  for (const auto& [name, c] : l.items) {
    const double w = 26 + kCharWidth * static_cast<double>(name.size()) + 18;
    if (x + w > kWidth - kRight && x > kLeft) {
      ++rows;
      x = kLeft;
    }
    x += w;
  }
  return rows * kLegendRow + 6;
}

void draw_legend(const Legend& l, double y0, std::ostringstream& o) {
  if (l.items.empty()) return;
  o << "<g class=\"legend\">";
  double x = kLeft, y = y0 + 12;
  for (size_t i = 0; i < l.items.size(); ++i) {
    const auto& [name, c] = l.items[i];
    const double w = 26 + kCharWidth * static_cast<double>(name.size()) + 18;
    if (x + w > kWidth - kRight && x > kLeft) {
      x = kLeft;
      y += kLegendRow;
    }
    const bool dashed = i < l.dashed.size() && l.dashed[i];
    o << "<line x1=\"" << svg_num(x) << "\" y1=\"" << svg_num(y - 4) << "\" x2=\"" << svg_num(x + 20)
      << "\" y2=\"" << svg_num(y - 4) << "\" stroke=\"" << plot_color(c) << "\" stroke-width=\""
      << (dashed ? "2" : "8") << "\"" << (dashed ? " stroke-dasharray=\"5 3\"" : "") << "/>";
    o << text(x + 26, y, name, "start");
    x += w;
  }
  o << "</g>";
}

std::string open_svg(double height, const std::string& title) {
  std::ostringstream o;
  o << "<svg viewBox=\"0 0 " << svg_num(kWidth) << " " << svg_num(height) << "\" width=\"" << svg_num(kWidth)
    << "\" height=\"" << svg_num(height) << "\" role=\"img\" font-family=\"sans-serif\" font-size=\"12\">";
  o << "<title>" << xml_escape(title) << "</title>";
  o << "<rect x=\"0\" y=\"0\" width=\"" << svg_num(kWidth) << "\" height=\"" << svg_num(height)
    << "\" fill=\"#ffffff\"/>";
  o << text(kWidth / 2, 22, title, "middle", " font-size=\"14\" font-weight=\"bold\"");
  return o.str();
}

void draw_y_axis(const Ticks& t, const Mapper& my, const std::string& title, double plot_bottom,
                 std::ostringstream& o) {
  for (size_t i = 0; i < t.at.size(); ++i) {
    const double y = my(t.at[i]);
    o << "<line x1=\"" << svg_num(kLeft) << "\" y1=\"" << svg_num(y) << "\" x2=\"" << svg_num(kWidth - kRight)
      << "\" y2=\"" << svg_num(y) << "\" stroke=\"#e4e4e4\"/>";
    o << text(kLeft - 6, y + 4, t.labels[i], "end");
  }
  o << "<line x1=\"" << svg_num(kLeft) << "\" y1=\"" << svg_num(kTop) << "\" x2=\"" << svg_num(kLeft)
    << "\" y2=\"" << svg_num(plot_bottom) << "\" stroke=\"#333\"/>";
  const double cy = (kTop + plot_bottom) / 2;
  o << text(16, cy, title, "middle", (" transform=\"rotate(-90 16 " + svg_num(cy) + ")\"").c_str());
}

void draw_ref_lines(const std::vector<RefLine>& lines, const Mapper& my, const std::string& unit,
                    std::ostringstream& o) {
  for (const auto& r : lines) {
    if (!std::isfinite(r.y)) continue;
    const double y = my(r.y);
    o << "<line x1=\"" << svg_num(kLeft) << "\" y1=\"" << svg_num(y) << "\" x2=\"" << svg_num(kWidth - kRight)
      << "\" y2=\"" << svg_num(y) << "\" stroke=\"" << plot_color(r.color)
      << "\" stroke-width=\"1.5\" stroke-dasharray=\"6 4\"/>";
    const Scale s = pick_scale(unit, std::fabs(r.y));
    o << text(kWidth - kRight - 4, y - 4,
              r.label + ": " + fmt_g(std::round(r.y / s.div * 1000) / 1000) + " " + s.suffix, "end",
              (" fill=\"" + std::string(plot_color(r.color)) + "\"").c_str());
  }
}

// The data's extent along both axes: every finite point (positive on a log axis) and the reference lines.
struct Extent {
  double xlo = std::numeric_limits<double>::infinity(), xhi = -xlo, ylo = xlo, yhi = -xlo;
  size_t most_points = 0;  // the most points of one series
};

bool drawable(const LineChart& c, double x, double y) {
  return std::isfinite(x) && std::isfinite(y) && !(c.x.log && x <= 0) && !(c.y.log && y <= 0);
}

Extent line_extent(const LineChart& c) {
  Extent e;
  for (const auto& s : c.series) {
    size_t n = 0;
    for (const auto& [x, y] : s.points) {
      if (!drawable(c, x, y)) continue;
      e.xlo = std::min(e.xlo, x);
      e.xhi = std::max(e.xhi, x);
      e.ylo = std::min(e.ylo, y);
      e.yhi = std::max(e.yhi, y);
      ++n;
    }
    e.most_points = std::max(e.most_points, n);
  }
  for (const auto& r : c.ref_lines) {
    if (std::isfinite(r.y)) {
      e.ylo = std::min(e.ylo, r.y);
      e.yhi = std::max(e.yhi, r.y);
    }
  }
  if (!std::isfinite(e.xlo)) {
    e.xlo = 0;
    e.xhi = 1;
  }
  if (!std::isfinite(e.ylo)) {
    e.ylo = 0;
    e.yhi = 1;
  }
  if (!c.y.log && e.ylo > 0) e.ylo = 0;  // magnitudes read right only from zero
  if (!c.x.log && e.xlo > 0) e.xlo = 0;
  return e;
}

void draw_x_axis(const Ticks& xt, const Mapper& mx, const std::string& title, double plot_bottom,
                 std::ostringstream& o) {
  for (size_t i = 0; i < xt.at.size(); ++i) {
    const double x = mx(xt.at[i]);
    o << "<line x1=\"" << svg_num(x) << "\" y1=\"" << svg_num(plot_bottom) << "\" x2=\"" << svg_num(x)
      << "\" y2=\"" << svg_num(plot_bottom + 4) << "\" stroke=\"#333\"/>";
    o << text(x, plot_bottom + 17, xt.labels[i], "middle");
  }
  o << "<line x1=\"" << svg_num(kLeft) << "\" y1=\"" << svg_num(plot_bottom) << "\" x2=\""
    << svg_num(kWidth - kRight) << "\" y2=\"" << svg_num(plot_bottom) << "\" stroke=\"#333\"/>";
  o << text((kLeft + kWidth - kRight) / 2, plot_bottom + 36, title, "middle");
}

// One series: its polyline (unless markers only) and its markers, in a group titled with its name.
void draw_series(const LineChart& c, size_t i, const Mapper& mx, const Mapper& my, bool markers,
                 std::ostringstream& o) {
  const LineSeries& s = c.series[i];
  const char* color = plot_color(s.color >= 0 ? s.color : static_cast<int>(i));
  std::string pts;
  std::ostringstream dots;
  for (const auto& [x, y] : s.points) {
    if (!drawable(c, x, y)) continue;
    const double px = mx(x), py = my(y);
    pts += svg_num(px) + "," + svg_num(py) + " ";
    if (s.markers_only) {
      dots << "<circle cx=\"" << svg_num(px) << "\" cy=\"" << svg_num(py)
           << "\" r=\"7\" fill=\"none\" stroke=\"" << color << "\" stroke-width=\"3\"/>";
    } else if (markers) {
      dots << "<circle cx=\"" << svg_num(px) << "\" cy=\"" << svg_num(py) << "\" r=\"2.8\" fill=\"" << color
           << "\"/>";
    }
  }
  o << "<g class=\"series\"><title>" << xml_escape(s.name) << "</title>";
  if (!pts.empty() && !s.markers_only) {
    o << "<polyline fill=\"none\" stroke=\"" << color << "\" stroke-width=\"2\""
      << (s.dashed ? " stroke-dasharray=\"5 3\"" : "") << " points=\"" << pts << "\"/>";
  }
  o << dots.str() << "</g>";
}

// A bar chart's value range: each bar (or stack) and the reference lines, from zero.
void bar_extent(const BarChart& c, double* ylo, double* yhi) {
  for (size_t k = 0; k < c.categories.size(); ++k) {
    double stack = 0;
    for (size_t s = 0; s < c.series.size(); ++s) {
      const double v = s < c.values.size() && k < c.values[s].size() ? c.values[s][k] : std::nan("");
      if (!std::isfinite(v)) continue;
      if (c.stacked) {
        stack += std::max(0.0, v);
      } else {
        *yhi = std::max(*yhi, v);
        *ylo = std::min(*ylo, v);
      }
    }
    if (c.stacked) *yhi = std::max(*yhi, stack);
  }
  for (const auto& r : c.ref_lines) {
    if (std::isfinite(r.y)) *yhi = std::max(*yhi, r.y);
  }
}

// Where a bar chart puts things: the band per category, its labels (two lines at most; slanted when they
// would collide) and the bars' width.
struct BarLayout {
  double band = 0, label_h = 0, bar_width = 0;
  bool slant = false, value_labels = false;
};

BarLayout bar_layout(const BarChart& c) {
  BarLayout l;
  l.band = (kWidth - kLeft - kRight) / static_cast<double>(std::max<size_t>(c.categories.size(), 1));
  size_t longest = 0;
  for (const auto& cat : c.categories) {
    size_t line = 0;
    for (char ch : cat) {
      line = ch == '\n' ? 0 : line + 1;
      longest = std::max(longest, line);
    }
  }
  l.slant = kCharWidth * static_cast<double>(longest) > l.band - 6;
  l.label_h = l.slant ? std::min(150.0, kCharWidth * static_cast<double>(longest) * 0.6 + 24) : 34;
  // Values on the bars where they fit: a small bar next to a tall reference line still reads.
  const size_t nser = c.series.size();
  l.bar_width =
      c.stacked ? l.band * 0.8 * 0.6 : l.band * 0.8 / static_cast<double>(std::max<size_t>(nser, 1));
  l.value_labels = l.bar_width >= 44;
  return l;
}

// The bars of category k (side by side, or stacked); returns the stack's top (0 unstacked).
double draw_bars(const BarChart& c, size_t k, const BarLayout& l, const Mapper& my, double zero,
                 std::ostringstream& o) {
  const double x0 = kLeft + l.band * static_cast<double>(k);
  const double bar_w = l.bar_width;
  double stack_top = 0;
  for (size_t s = 0; s < c.series.size(); ++s) {
    const double v = s < c.values.size() && k < c.values[s].size() ? c.values[s][k] : std::nan("");
    if (!std::isfinite(v)) continue;
    double bx, y_top, y_bottom;
    if (c.stacked) {
      bx = x0 + (l.band - bar_w) / 2;
      y_bottom = my(stack_top);
      stack_top += std::max(0.0, v);
      y_top = my(stack_top);
    } else {
      bx = x0 + l.band * 0.1 + bar_w * static_cast<double>(s);
      y_top = my(std::max(v, 0.0));
      y_bottom = my(std::min(v, 0.0));
      if (v >= 0) y_bottom = zero;
    }
    const Scale vs = pick_scale(c.y.unit, std::fabs(v));
    o << "<rect x=\"" << svg_num(bx) << "\" y=\"" << svg_num(y_top) << "\" width=\""
      << svg_num(std::max(1.0, bar_w - 1)) << "\" height=\"" << svg_num(std::max(0.0, y_bottom - y_top))
      << "\" fill=\"" << plot_color(static_cast<int>(s)) << "\"><title>"
      << xml_escape(c.series[s] + ", " + c.categories[k] + ": " +
                    fmt_g(std::round(v / vs.div * 1000) / 1000) + (vs.suffix.empty() ? "" : " " + vs.suffix))
      << "</title></rect>";
    if (l.value_labels && !c.stacked) {
      o << text(bx + bar_w / 2, y_top - 4, short_value(v, c.y.unit), "middle",
                " font-size=\"10\" fill=\"#333\"");
    }
  }
  return stack_top;
}

// Category k's label under its band: up to two lines, or slanted.
void draw_category_label(const std::string& cat, double cx, bool slant, double plot_bottom,
                         std::ostringstream& o) {
  const auto nl = cat.find('\n');
  if (slant) {
    const double ly = plot_bottom + 14;
    std::string one = cat;
    std::replace(one.begin(), one.end(), '\n', ' ');
    o << text(cx, ly, one, "end",
              (" transform=\"rotate(-35 " + svg_num(cx) + " " + svg_num(ly) + ")\"").c_str());
  } else {
    o << text(cx, plot_bottom + 16, cat.substr(0, nl), "middle");
    if (nl != std::string::npos)
      o << text(cx, plot_bottom + 30, cat.substr(nl + 1), "middle", " fill=\"#555\"");
  }
}

}  // namespace

const char* plot_color(int index) {
  const int n = static_cast<int>(sizeof kPalette / sizeof kPalette[0]);
  return kPalette[((index % n) + n) % n];
}

std::string render_svg(const LineChart& c) {
  const Extent e = line_extent(c);
  const Scale xs = pick_scale(c.x.unit, std::max(std::fabs(e.xlo), std::fabs(e.xhi)));
  const Scale ys = pick_scale(c.y.unit, std::max(std::fabs(e.ylo), std::fabs(e.yhi)));
  const Ticks xt = c.x.log ? log_ticks(e.xlo, e.xhi, c.x.unit) : linear_ticks(e.xlo, e.xhi, xs);
  const Ticks yt = c.y.log ? log_ticks(e.ylo, e.yhi, c.y.unit) : linear_ticks(e.ylo, e.yhi, ys);

  Legend legend;
  for (size_t i = 0; i < c.series.size(); ++i) {
    legend.items.emplace_back(c.series[i].name,
                              c.series[i].color >= 0 ? c.series[i].color : static_cast<int>(i));
    legend.dashed.push_back(c.series[i].dashed);
  }
  const double plot_bottom = kTop + kPlotHeight;
  const double legend_y = plot_bottom + 44;
  const double height = legend_y + legend_height(legend) + 6;
  const Mapper mx{xt.lo, xt.hi, kLeft, kWidth - kRight, c.x.log};
  const Mapper my{yt.lo, yt.hi, plot_bottom, kTop, c.y.log};

  std::ostringstream o;
  o << open_svg(height, c.title);
  draw_y_axis(yt, my, axis_title(c.y, ys), plot_bottom, o);
  draw_x_axis(xt, mx, axis_title(c.x, xs), plot_bottom, o);
  draw_ref_lines(c.ref_lines, my, c.y.unit, o);
  const bool markers = c.markers && e.most_points <= 60;
  for (size_t i = 0; i < c.series.size(); ++i) draw_series(c, i, mx, my, markers, o);
  draw_legend(legend, legend_y, o);
  o << "</svg>";
  return o.str();
}

std::string render_svg(const BarChart& c) {
  double yhi = 0, ylo = 0;
  bar_extent(c, &ylo, &yhi);
  const Scale ys = pick_scale(c.y.unit, std::max(std::fabs(ylo), std::fabs(yhi)));
  const Ticks yt = linear_ticks(ylo, yhi, ys);
  const BarLayout l = bar_layout(c);
  Legend legend;
  for (size_t s = 0; s < c.series.size(); ++s) legend.items.emplace_back(c.series[s], static_cast<int>(s));
  const double plot_bottom = kTop + kPlotHeight;
  const double xtitle_y = plot_bottom + l.label_h + 14;
  const double legend_y = xtitle_y + (c.x_label.empty() ? 0 : 10);
  const double height = legend_y + legend_height(legend) + 6;
  const Mapper my{yt.lo, yt.hi, plot_bottom, kTop, false};

  std::ostringstream o;
  o << open_svg(height, c.title);
  draw_y_axis(yt, my, axis_title(c.y, ys), plot_bottom, o);
  const double zero = my(std::clamp(0.0, yt.lo, yt.hi));
  for (size_t k = 0; k < c.categories.size(); ++k) {
    const double x0 = kLeft + l.band * static_cast<double>(k);
    const double stack_top = draw_bars(c, k, l, my, zero, o);
    if (l.value_labels && c.stacked && stack_top > 0) {
      o << text(x0 + l.band / 2, my(stack_top) - 4, short_value(stack_top, c.y.unit), "middle",
                " font-size=\"10\" fill=\"#333\"");
    }
    draw_category_label(c.categories[k], x0 + l.band / 2, l.slant, plot_bottom, o);
  }
  o << "<line x1=\"" << svg_num(kLeft) << "\" y1=\"" << svg_num(zero) << "\" x2=\""
    << svg_num(kWidth - kRight) << "\" y2=\"" << svg_num(zero) << "\" stroke=\"#333\"/>";
  if (!c.x_label.empty()) o << text((kLeft + kWidth - kRight) / 2, xtitle_y, c.x_label, "middle");
  draw_ref_lines(c.ref_lines, my, c.y.unit, o);
  draw_legend(legend, legend_y, o);
  o << "</svg>";
  return o.str();
}

}  // namespace iofab
