#include "report/svg_chart.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <stdexcept>

#include <fmt/format.h>

namespace looprace::report::svg {
namespace {

// Colorblind-friendly palette (Okabe–Ito), in the order series take them.
constexpr const char* kPalette[] = {"#0072B2", "#D55E00", "#009E73", "#CC79A7",
                                    "#E69F00", "#56B4E9", "#F0E442", "#000000"};
constexpr double kFontSize = 12;
// Average glyph width of the sans-serif font at kFontSize; enough to lay out margins.
constexpr double kCharWidth = 6.8;
// Half the size of the largest marker, plus a pixel.
constexpr double kMarkerRoom = 6;

double text_width(const std::string& text) { return kCharWidth * static_cast<double>(text.size()); }

// Rounds `range` to 1, 2, 5 or 10 times a power of ten (Heckbert's "nice numbers").
double nice_step(double range, int target) {
  double raw = range / std::max(1, target - 1);
  double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
  double fraction = raw / magnitude;
  double nice = fraction < 1.5 ? 1 : fraction < 3 ? 2 : fraction < 7 ? 5 : 10;
  return nice * magnitude;
}

// One axis mapped onto a pixel range.
struct Scale {
  bool log = false;
  double lo = 0, hi = 1;    // domain
  double from = 0, to = 1;  // pixels
  double operator()(double v) const {
    double t = log ? (std::log10(v) - std::log10(lo)) / (std::log10(hi) - std::log10(lo))
                   : (v - lo) / (hi - lo);
    return from + t * (to - from);
  }
};

std::string fmt_px(double v) { return fmt::format("{:.1f}", v); }

void check_value(const Axis& axis, double v, const std::string& series, const char* what) {
  if (!std::isfinite(v))
    throw std::invalid_argument(
        fmt::format("chart series '{}': {} value {} is not finite", series, what, v));
  if (axis.log && v <= 0)
    throw std::invalid_argument(fmt::format(
        "chart series '{}': {} value {} cannot be shown on a log axis", series, what, v));
}

// The domain of an axis: explicit ends, else the data (plus zero when asked), widened to ticks.
Ticks axis_ticks(const Axis& axis, std::vector<double> values) {
  if (axis.include_zero && !axis.log) values.push_back(0);
  double lo = values.empty() ? (axis.log ? 1 : 0) : *std::min_element(values.begin(), values.end());
  double hi =
      values.empty() ? (axis.log ? 10 : 1) : *std::max_element(values.begin(), values.end());
  if (axis.min) lo = *axis.min;
  if (axis.max) hi = *axis.max;
  Ticks ticks = axis.log ? log_ticks(lo, hi) : linear_ticks(lo, hi);
  // Fixed ends are kept exactly; ticks outside them are dropped.
  if (axis.min) ticks.lo = *axis.min;
  if (axis.max) ticks.hi = *axis.max;
  if (!axis.ticks.empty()) {
    ticks.values.clear();
    for (const auto& [value, text] : axis.ticks) ticks.values.push_back(value);
  }
  std::erase_if(ticks.values, [&](double v) {
    double slack = 1e-9 * (ticks.hi - ticks.lo);
    return v < ticks.lo - slack || v > ticks.hi + slack;
  });
  return ticks;
}

std::string tick_text(const Axis& axis, double value) {
  for (const auto& [v, text] : axis.ticks)
    if (v == value) return text;
  return format_tick(value);
}

std::string marker_svg(Marker marker, double x, double y, const std::string& color) {
  const double r = 3.5;
  switch (marker) {
    case Marker::none:
      return "";
    case Marker::circle:
      return fmt::format(R"(<circle cx="{}" cy="{}" r="{}" fill="{}"/>)", fmt_px(x), fmt_px(y), r,
                         color);
    case Marker::square:
      return fmt::format(R"(<rect x="{}" y="{}" width="{}" height="{}" fill="{}"/>)", fmt_px(x - r),
                         fmt_px(y - r), 2 * r, 2 * r, color);
    case Marker::diamond:
      return fmt::format(R"(<polygon points="{},{} {},{} {},{} {},{}" fill="{}"/>)", fmt_px(x),
                         fmt_px(y - r - 1), fmt_px(x + r + 1), fmt_px(y), fmt_px(x),
                         fmt_px(y + r + 1), fmt_px(x - r - 1), fmt_px(y), color);
    case Marker::triangle:
      return fmt::format(R"(<polygon points="{},{} {},{} {},{}" fill="{}"/>)", fmt_px(x),
                         fmt_px(y - r - 1), fmt_px(x + r + 1), fmt_px(y + r), fmt_px(x - r - 1),
                         fmt_px(y + r), color);
    case Marker::cross:
      return fmt::format(
          R"(<path d="M{} {}L{} {}M{} {}L{} {}" stroke="{}" stroke-width="2" fill="none"/>)",
          fmt_px(x - r), fmt_px(y - r), fmt_px(x + r), fmt_px(y + r), fmt_px(x - r), fmt_px(y + r),
          fmt_px(x + r), fmt_px(y - r), color);
  }
  return "";
}

// The ticks of both axes. Every value the chart draws is checked first (finite, positive on a
// log axis), so a bad value is reported by series before any layout; bars widen the y axis to
// their base at zero.
struct ChartTicks {
  Ticks x, y;
};
ChartTicks chart_ticks(const Chart& chart) {
  std::vector<double> xs, ys;
  bool has_bars = false;
  for (const Series& s : chart.series) {
    has_bars = has_bars || s.bars;
    for (const Point& p : s.points) {
      check_value(chart.x, p.x, s.name, "x");
      xs.push_back(p.x);
      if (std::isnan(p.y)) continue;
      check_value(chart.y, p.y, s.name, "y");
      ys.push_back(p.y);
      if (p.y_low && p.y_high) {
        check_value(chart.y, *p.y_low, s.name, "error bar");
        check_value(chart.y, *p.y_high, s.name, "error bar");
        ys.push_back(*p.y_low);
        ys.push_back(*p.y_high);
      }
    }
  }
  for (const ReferenceLine& r : chart.references) {
    check_value(r.vertical ? chart.x : chart.y, r.value, r.label, "reference");
    (r.vertical ? xs : ys).push_back(r.value);
  }
  Axis y_axis = chart.y;
  y_axis.include_zero = chart.y.include_zero || has_bars;
  return {axis_ticks(chart.x, xs), axis_ticks(y_axis, ys)};
}

// Each series' color: its own, else the next palette color by its position.
std::vector<std::string> series_colors(const Chart& chart) {
  std::vector<std::string> colors;
  for (std::size_t i = 0; i < chart.series.size(); ++i) {
    const Series& s = chart.series[i];
    colors.push_back(s.color.empty() ? kPalette[i % std::size(kPalette)] : s.color);
  }
  return colors;
}

// Legend entries, laid out in rows under the title: a row holds the entries that fit the
// chart's width. Named series only, and none when the chart has no legend.
constexpr double kLegendGap = 18, kSwatch = 22;
struct LegendItem {
  std::string name, color;
  Marker marker;
  bool line, dashed, bars;
};
struct Legend {
  std::vector<LegendItem> items;
  std::vector<std::vector<std::size_t>> rows;  // indices into items
};

double legend_item_width(const LegendItem& item) {
  return kSwatch + 4 + text_width(item.name) + kLegendGap;
}

Legend lay_out_legend(const Chart& chart, const std::vector<std::string>& colors) {
  Legend legend;
  for (std::size_t i = 0; i < chart.series.size(); ++i) {
    const Series& s = chart.series[i];
    if (chart.legend && !s.name.empty())
      legend.items.push_back({s.name, colors[i], s.marker, s.line, s.dashed, s.bars});
  }
  double row_width = 0;
  for (std::size_t i = 0; i < legend.items.size(); ++i) {
    double w = legend_item_width(legend.items[i]);
    if (legend.rows.empty() || row_width + w > chart.width - 20) {
      legend.rows.emplace_back();
      row_width = 0;
    }
    legend.rows.back().push_back(i);
    row_width += w;
  }
  return legend;
}

// Where the legend's rows start: under the title, if there is one.
double legend_top(const Chart& chart) { return chart.title.empty() ? 10 : 30; }

// The plot area in pixels and the scales onto it: the margins leave room for the title, the
// legend, the tick labels and the axis labels. Throws when too little is left to plot in.
struct Frame {
  double left, right, top, bottom;
  Scale sx, sy;
};
Frame plot_frame(const Chart& chart, const ChartTicks& ticks, std::size_t legend_rows) {
  double y_label_width = 0;
  for (double v : ticks.y.values)
    y_label_width = std::max(y_label_width, text_width(tick_text(chart.y, v)));
  Frame f{};
  f.top = legend_top(chart) + 18 * static_cast<double>(legend_rows) + 6;
  f.left = 12 + y_label_width + (chart.y.label.empty() ? 0 : 20);
  f.right = chart.width - 16;
  f.bottom = chart.height - 24 - (chart.x.label.empty() ? 0 : 18);
  if (f.right - f.left < 40 || f.bottom - f.top < 40)
    throw std::invalid_argument(fmt::format("chart '{}' is too small to draw", chart.title));
  f.sx = {chart.x.log, ticks.x.lo, ticks.x.hi, f.left, f.right};
  f.sy = {chart.y.log, ticks.y.lo, ticks.y.hi, f.bottom, f.top};
  return f;
}

// The opening <svg> element and the title (as a tooltip and as bold text over the plot).
std::string header_svg(const Chart& chart, const Frame& frame) {
  std::string out = fmt::format(
      R"(<svg xmlns="http://www.w3.org/2000/svg" width="{0}" height="{1}" viewBox="0 0 {0} {1}" )"
      R"(font-family="sans-serif" font-size="{2}" role="img">)",
      chart.width, chart.height, kFontSize);
  out += "\n";
  if (!chart.title.empty())
    out +=
        fmt::format(
            R"(<title>{0}</title><text x="{1}" y="20" font-weight="bold" font-size="14">{0}</text>)",
            escape_xml(chart.title), fmt_px(frame.left)) +
        "\n";
  return out;
}

// One legend entry at (lx, ly): a bar or line swatch, the series' marker, and its name.
std::string legend_item_svg(const LegendItem& it, double lx, double ly) {
  std::string out;
  if (it.bars) {
    out += fmt::format(R"(<rect x="{}" y="{}" width="{}" height="10" fill="{}" opacity="0.8"/>)",
                       fmt_px(lx + 4), fmt_px(ly - 5), kSwatch - 8, it.color);
  } else if (it.line) {
    out += fmt::format(R"(<line x1="{}" y1="{}" x2="{}" y2="{}" stroke="{}" stroke-width="2"{}/>)",
                       fmt_px(lx), fmt_px(ly), fmt_px(lx + kSwatch), fmt_px(ly), it.color,
                       it.dashed ? R"( stroke-dasharray="5,3")" : "");
  }
  out += marker_svg(it.marker, lx + kSwatch / 2, ly, it.color);
  out += fmt::format(R"(<text x="{}" y="{}" dominant-baseline="middle">{}</text>)",
                     fmt_px(lx + kSwatch + 4), fmt_px(ly), escape_xml(it.name));
  return out;
}

// The legend's rows, one line of SVG each, starting at the plot's left edge.
std::string legend_svg(const Chart& chart, const Legend& legend, double left) {
  std::string out;
  for (std::size_t r = 0; r < legend.rows.size(); ++r) {
    double ly = legend_top(chart) + 18 * static_cast<double>(r) + 8;
    double lx = left;
    for (std::size_t i : legend.rows[r]) {
      out += legend_item_svg(legend.items[i], lx, ly);
      lx += legend_item_width(legend.items[i]);
    }
    out += "\n";
  }
  return out;
}

// The plot's frame, its grid lines with their tick labels, and the axis labels.
std::string axes_svg(const Chart& chart, const Frame& f, const ChartTicks& ticks) {
  std::string out =
      fmt::format(R"(<rect x="{}" y="{}" width="{}" height="{}" fill="#ffffff" stroke="#999999"/>)",
                  fmt_px(f.left), fmt_px(f.top), fmt_px(f.right - f.left),
                  fmt_px(f.bottom - f.top)) +
      "\n";
  for (double v : ticks.x.values) {
    double px = f.sx(v);
    out += fmt::format(R"(<line x1="{0}" y1="{1}" x2="{0}" y2="{2}" stroke="#e5e5e5"/>)"
                       R"(<text x="{0}" y="{3}" text-anchor="middle">{4}</text>)",
                       fmt_px(px), fmt_px(f.top), fmt_px(f.bottom), fmt_px(f.bottom + 16),
                       escape_xml(tick_text(chart.x, v))) +
           "\n";
  }
  for (double v : ticks.y.values) {
    double py = f.sy(v);
    out += fmt::format(
               R"(<line x1="{0}" y1="{1}" x2="{2}" y2="{1}" stroke="#e5e5e5"/>)"
               R"(<text x="{3}" y="{1}" text-anchor="end" dominant-baseline="middle">{4}</text>)",
               fmt_px(f.left), fmt_px(py), fmt_px(f.right), fmt_px(f.left - 6),
               escape_xml(tick_text(chart.y, v))) +
           "\n";
  }
  if (!chart.x.label.empty())
    out += fmt::format(R"(<text x="{}" y="{}" text-anchor="middle">{}</text>)",
                       fmt_px((f.left + f.right) / 2), fmt_px(chart.height - 8),
                       escape_xml(chart.x.label)) +
           "\n";
  if (!chart.y.label.empty())
    out +=
        fmt::format(
            R"svg(<text transform="translate(14,{}) rotate(-90)" text-anchor="middle">{}</text>)svg",
            fmt_px((f.top + f.bottom) / 2), escape_xml(chart.y.label)) +
        "\n";
  return out;
}

// Bars are as wide as 70% of the closest x spacing among all bar series, shared by them, and
// rise from the axis base: zero on a linear axis (within the domain), the minimum on a log one.
struct BarLayout {
  std::size_t series = 0;  // how many series draw bars
  double width = 0;        // of one series' bar
  double base = 0;         // pixel y of the bars' foot
};
BarLayout bar_layout(const Chart& chart, const Frame& f, const Ticks& y_ticks) {
  BarLayout bars;
  std::vector<double> bar_xs;
  for (const Series& s : chart.series)
    if (s.bars) {
      ++bars.series;
      for (const Point& p : s.points) bar_xs.push_back(f.sx(p.x));
    }
  std::sort(bar_xs.begin(), bar_xs.end());
  double slot = (f.right - f.left) / 4;
  for (std::size_t i = 1; i < bar_xs.size(); ++i)
    if (bar_xs[i] - bar_xs[i - 1] > 0.5) slot = std::min(slot, bar_xs[i] - bar_xs[i - 1]);
  bars.width = 0.7 * slot / static_cast<double>(std::max<std::size_t>(1, bars.series));
  bars.base = f.sy(chart.y.log ? y_ticks.lo : std::clamp(0.0, y_ticks.lo, y_ticks.hi));
  return bars;
}

// Opens the group that clips everything drawn with data to the plot area (fixed domains may
// cut data), with room for whole markers on points that lie on the domain's ends. The clip id
// must be unique within a page holding several charts: a hash of the chart so far (`drawn`)
// is, and charts that hash alike are identical, so sharing the id would be harmless.
std::string clip_group_svg(const std::string& drawn, const Frame& f) {
  std::string clip = fmt::format("clip{:016x}", std::hash<std::string>{}(drawn));
  return fmt::format(R"(<clipPath id="{}"><rect x="{}" y="{}" width="{}" height="{}"/></clipPath>)",
                     clip, fmt_px(f.left - kMarkerRoom), fmt_px(f.top - kMarkerRoom),
                     fmt_px(f.right - f.left + 2 * kMarkerRoom),
                     fmt_px(f.bottom - f.top + 2 * kMarkerRoom)) +
         fmt::format(R"svg(<g clip-path="url(#{})">)svg", clip) + "\n";
}

// The bars of a bar series; `index` counts the bar series before it, which sets its offset
// beside the others at the same x.
std::string bars_svg(const Series& s, const std::string& color, const Frame& f,
                     const BarLayout& bars, std::size_t index) {
  double offset =
      (static_cast<double>(index) - (static_cast<double>(bars.series) - 1) / 2) * bars.width;
  std::string out;
  for (const Point& p : s.points) {
    if (std::isnan(p.y)) continue;
    double px = f.sx(p.x) + offset - bars.width / 2, py = f.sy(p.y);
    out += fmt::format(R"(<rect x="{}" y="{}" width="{}" height="{}" fill="{}" opacity="0.8"/>)",
                       fmt_px(px), fmt_px(std::min(py, bars.base)), fmt_px(bars.width),
                       fmt_px(std::abs(bars.base - py)), color);
  }
  return out + "\n";
}

// A series' line as one path; a point without a value lifts the pen, so the line breaks there.
std::string line_svg(const Series& s, const std::string& color, const Frame& f) {
  std::string path;
  bool pen_down = false;
  for (const Point& p : s.points) {
    if (std::isnan(p.y)) {
      pen_down = false;
      continue;
    }
    path += fmt::format("{}{} {}", pen_down ? "L" : "M", fmt_px(f.sx(p.x)), fmt_px(f.sy(p.y)));
    pen_down = true;
  }
  if (path.empty()) return "";
  return fmt::format(R"(<path d="{}" fill="none" stroke="{}" stroke-width="2"{}/>)", path, color,
                     s.dashed ? R"( stroke-dasharray="5,3")" : "") +
         "\n";
}

// A series' points: error bars, markers (not on bars, which show the value already) and labels.
std::string points_svg(const Series& s, const std::string& color, const Frame& f) {
  std::string out;
  for (const Point& p : s.points) {
    if (std::isnan(p.y)) continue;
    double px = f.sx(p.x), py = f.sy(p.y);
    if (p.y_low && p.y_high)
      out += fmt::format(
          R"(<path d="M{0} {1}L{0} {2}M{3} {1}L{4} {1}M{3} {2}L{4} {2}" stroke="{5}" stroke-width="1.5" fill="none"/>)",
          fmt_px(px), fmt_px(f.sy(*p.y_low)), fmt_px(f.sy(*p.y_high)), fmt_px(px - 4),
          fmt_px(px + 4), color);
    if (!s.bars) out += marker_svg(s.marker, px, py, color);
    if (!p.label.empty())
      out += fmt::format(R"(<text x="{}" y="{}" font-size="10" fill="#333333">{}</text>)",
                         fmt_px(px + 6), fmt_px(py - 6), escape_xml(p.label));
  }
  return out + "\n";
}

// Every series in order, each as bars, line and points (bars first, so lines stay visible).
std::string series_svg(const Chart& chart, const std::vector<std::string>& colors, const Frame& f,
                       const BarLayout& bars) {
  std::string out;
  std::size_t bar_index = 0;
  for (std::size_t i = 0; i < chart.series.size(); ++i) {
    const Series& s = chart.series[i];
    if (s.bars) out += bars_svg(s, colors[i], f, bars, bar_index++);
    if (s.line) out += line_svg(s, colors[i], f);
    out += points_svg(s, colors[i], f);
  }
  return out;
}

// The reference lines, dashed across the plot, each with its label near one end.
std::string references_svg(const std::vector<ReferenceLine>& references, const Frame& f) {
  std::string out;
  for (const ReferenceLine& r : references) {
    if (r.vertical) {
      double px = f.sx(r.value);
      out +=
          fmt::format(
              R"(<line x1="{0}" y1="{1}" x2="{0}" y2="{2}" stroke="{3}" stroke-dasharray="4,3"/>)"
              R"(<text x="{4}" y="{5}" font-size="10" fill="{3}">{6}</text>)",
              fmt_px(px), fmt_px(f.top), fmt_px(f.bottom), r.color, fmt_px(px + 4),
              fmt_px(f.top + 12), escape_xml(r.label)) +
          "\n";
    } else {
      double py = f.sy(r.value);
      out +=
          fmt::format(
              R"(<line x1="{0}" y1="{1}" x2="{2}" y2="{1}" stroke="{3}" stroke-dasharray="4,3"/>)"
              R"(<text x="{4}" y="{5}" font-size="10" text-anchor="end" fill="{3}">{6}</text>)",
              fmt_px(f.left), fmt_px(py), fmt_px(f.right), r.color, fmt_px(f.right - 4),
              fmt_px(py - 4), escape_xml(r.label)) +
          "\n";
    }
  }
  return out;
}

}  // namespace

Ticks linear_ticks(double lo, double hi, int target) {
  if (lo > hi) std::swap(lo, hi);
  if (hi - lo <= std::abs(hi) * 1e-12) {  // zero range: show the value in the middle
    double pad = lo == 0 ? 1 : std::abs(lo) * 0.1;
    lo -= pad;
    hi += pad;
  }
  double step = nice_step(hi - lo, target);
  Ticks ticks;
  ticks.lo = std::floor(lo / step + 1e-9) * step;
  ticks.hi = std::ceil(hi / step - 1e-9) * step;
  // Integer multiples of the step, so labels carry no accumulated rounding error.
  for (long i = std::lround(ticks.lo / step); i <= std::lround(ticks.hi / step); ++i)
    ticks.values.push_back(static_cast<double>(i) * step);
  return ticks;
}

Ticks log_ticks(double lo, double hi) {
  if (!(lo > 0) || !(hi > 0)) throw std::invalid_argument("log axis needs positive values");
  if (lo > hi) std::swap(lo, hi);
  int first = static_cast<int>(std::floor(std::log10(lo) + 1e-9));
  int last = static_cast<int>(std::ceil(std::log10(hi) - 1e-9));
  if (last == first) ++last;
  Ticks ticks{std::pow(10.0, first), std::pow(10.0, last), {}};
  for (int e = first; e <= last; ++e) {
    double decade = std::pow(10.0, e);
    ticks.values.push_back(decade);
    if (last - first <= 3 && e < last) {
      ticks.values.push_back(2 * decade);
      ticks.values.push_back(5 * decade);
    }
  }
  return ticks;
}

std::string format_tick(double value) {
  if (value == 0) return "0";
  double magnitude = std::abs(value);
  const char* suffix = "";
  if (magnitude >= 1e9) {
    value /= 1e9, suffix = "G";
  } else if (magnitude >= 1e6) {
    value /= 1e6, suffix = "M";
  } else if (magnitude >= 1e4) {
    value /= 1e3, suffix = "k";
  }
  // Six significant digits remove binary noise (0.30000000000000004); %g drops trailing zeros.
  return fmt::format("{:.6g}{}", value, suffix);
}

std::string escape_xml(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

// Lays the chart out (ticks, legend rows, plot area), then draws it back to front: title,
// legend, axes, and, clipped to the plot, the series and the reference lines.
std::string Chart::render() const {
  const ChartTicks ticks = chart_ticks(*this);
  const std::vector<std::string> colors = series_colors(*this);
  const Legend legend_layout = lay_out_legend(*this, colors);
  const Frame frame = plot_frame(*this, ticks, legend_layout.rows.size());
  std::string out = header_svg(*this, frame);
  out += legend_svg(*this, legend_layout, frame.left);
  out += axes_svg(*this, frame, ticks);
  const BarLayout bars = bar_layout(*this, frame, ticks.y);
  out += clip_group_svg(out, frame);
  out += series_svg(*this, colors, frame, bars);
  out += references_svg(references, frame);
  out += "</g>\n</svg>\n";
  return out;
}

std::string side_by_side(const std::vector<Chart>& charts) {
  double width = 0, height = 0;
  std::string body;
  for (const Chart& chart : charts) {
    // A nested <svg> sits at the origin of its parent's coordinates: the group moves it.
    body += fmt::format(R"svg(<g transform="translate({},0)">)svg", fmt_px(width)) + "\n" +
            chart.render() + "</g>\n";
    width += chart.width;
    height = std::max(height, chart.height);
  }
  return fmt::format(
             R"(<svg xmlns="http://www.w3.org/2000/svg" width="{0}" height="{1}" viewBox="0 0 {0} {1}">)",
             width, height) +
         "\n" + body + "</svg>\n";
}

}  // namespace looprace::report::svg
