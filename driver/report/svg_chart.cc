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

std::string Chart::render() const {
  // Gather every value each axis must show, validating as we go.
  std::vector<double> xs, ys;
  bool has_bars = false;
  for (const Series& s : series) {
    has_bars = has_bars || s.bars;
    for (const Point& p : s.points) {
      check_value(x, p.x, s.name, "x");
      xs.push_back(p.x);
      if (std::isnan(p.y)) continue;
      check_value(y, p.y, s.name, "y");
      ys.push_back(p.y);
      if (p.y_low && p.y_high) {
        check_value(y, *p.y_low, s.name, "error bar");
        check_value(y, *p.y_high, s.name, "error bar");
        ys.push_back(*p.y_low);
        ys.push_back(*p.y_high);
      }
    }
  }
  for (const ReferenceLine& r : references) {
    check_value(r.vertical ? x : y, r.value, r.label, "reference");
    (r.vertical ? xs : ys).push_back(r.value);
  }
  Axis y_axis = y;
  y_axis.include_zero = y.include_zero || has_bars;
  Ticks x_ticks = axis_ticks(x, xs);
  Ticks y_ticks = axis_ticks(y_axis, ys);

  // Legend entries, laid out in rows under the title.
  struct LegendItem {
    std::string name, color;
    Marker marker;
    bool line, dashed, bars;
  };
  std::vector<LegendItem> items;
  std::vector<std::string> colors;
  for (std::size_t i = 0; i < series.size(); ++i) {
    const Series& s = series[i];
    colors.push_back(s.color.empty() ? kPalette[i % std::size(kPalette)] : s.color);
    if (legend && !s.name.empty())
      items.push_back({s.name, colors.back(), s.marker, s.line, s.dashed, s.bars});
  }
  const double item_gap = 18, swatch = 22;
  std::vector<std::vector<std::size_t>> rows;
  double row_width = 0;
  for (std::size_t i = 0; i < items.size(); ++i) {
    double w = swatch + 4 + text_width(items[i].name) + item_gap;
    if (rows.empty() || row_width + w > width - 20) {
      rows.emplace_back();
      row_width = 0;
    }
    rows.back().push_back(i);
    row_width += w;
  }

  double y_label_width = 0;
  for (double v : y_ticks.values)
    y_label_width = std::max(y_label_width, text_width(tick_text(y, v)));
  double top = (title.empty() ? 10 : 30) + 18 * static_cast<double>(rows.size()) + 6;
  double left = 12 + y_label_width + (y.label.empty() ? 0 : 20);
  double right = width - 16;
  double bottom = height - 24 - (x.label.empty() ? 0 : 18);
  if (right - left < 40 || bottom - top < 40)
    throw std::invalid_argument(fmt::format("chart '{}' is too small to draw", title));
  Scale sx{x.log, x_ticks.lo, x_ticks.hi, left, right};
  Scale sy{y.log, y_ticks.lo, y_ticks.hi, bottom, top};

  std::string out = fmt::format(
      R"(<svg xmlns="http://www.w3.org/2000/svg" width="{0}" height="{1}" viewBox="0 0 {0} {1}" )"
      R"(font-family="sans-serif" font-size="{2}" role="img">)",
      width, height, kFontSize);
  out += "\n";
  if (!title.empty())
    out +=
        fmt::format(
            R"(<title>{0}</title><text x="{1}" y="20" font-weight="bold" font-size="14">{0}</text>)",
            escape_xml(title), fmt_px(left)) +
        "\n";

  // Legend.
  for (std::size_t r = 0; r < rows.size(); ++r) {
    double ly = (title.empty() ? 10 : 30) + 18 * static_cast<double>(r) + 8;
    double lx = left;
    for (std::size_t i : rows[r]) {
      const LegendItem& it = items[i];
      if (it.bars) {
        out +=
            fmt::format(R"(<rect x="{}" y="{}" width="{}" height="10" fill="{}" opacity="0.8"/>)",
                        fmt_px(lx + 4), fmt_px(ly - 5), swatch - 8, it.color);
      } else if (it.line) {
        out +=
            fmt::format(R"(<line x1="{}" y1="{}" x2="{}" y2="{}" stroke="{}" stroke-width="2"{}/>)",
                        fmt_px(lx), fmt_px(ly), fmt_px(lx + swatch), fmt_px(ly), it.color,
                        it.dashed ? R"( stroke-dasharray="5,3")" : "");
      }
      out += marker_svg(it.marker, lx + swatch / 2, ly, it.color);
      out += fmt::format(R"(<text x="{}" y="{}" dominant-baseline="middle">{}</text>)",
                         fmt_px(lx + swatch + 4), fmt_px(ly), escape_xml(it.name));
      lx += swatch + 4 + text_width(it.name) + item_gap;
    }
    out += "\n";
  }

  // Grid, ticks and axes.
  out +=
      fmt::format(R"(<rect x="{}" y="{}" width="{}" height="{}" fill="#ffffff" stroke="#999999"/>)",
                  fmt_px(left), fmt_px(top), fmt_px(right - left), fmt_px(bottom - top)) +
      "\n";
  for (double v : x_ticks.values) {
    double px = sx(v);
    out += fmt::format(R"(<line x1="{0}" y1="{1}" x2="{0}" y2="{2}" stroke="#e5e5e5"/>)"
                       R"(<text x="{0}" y="{3}" text-anchor="middle">{4}</text>)",
                       fmt_px(px), fmt_px(top), fmt_px(bottom), fmt_px(bottom + 16),
                       escape_xml(tick_text(x, v))) +
           "\n";
  }
  for (double v : y_ticks.values) {
    double py = sy(v);
    out += fmt::format(
               R"(<line x1="{0}" y1="{1}" x2="{2}" y2="{1}" stroke="#e5e5e5"/>)"
               R"(<text x="{3}" y="{1}" text-anchor="end" dominant-baseline="middle">{4}</text>)",
               fmt_px(left), fmt_px(py), fmt_px(right), fmt_px(left - 6),
               escape_xml(tick_text(y, v))) +
           "\n";
  }
  if (!x.label.empty())
    out += fmt::format(R"(<text x="{}" y="{}" text-anchor="middle">{}</text>)",
                       fmt_px((left + right) / 2), fmt_px(height - 8), escape_xml(x.label)) +
           "\n";
  if (!y.label.empty())
    out +=
        fmt::format(
            R"svg(<text transform="translate(14,{}) rotate(-90)" text-anchor="middle">{}</text>)svg",
            fmt_px((top + bottom) / 2), escape_xml(y.label)) +
        "\n";

  // Bars are as wide as 70% of the closest x spacing among all bar series, shared by them.
  std::vector<double> bar_xs;
  std::size_t bar_series = 0;
  for (const Series& s : series)
    if (s.bars) {
      ++bar_series;
      for (const Point& p : s.points) bar_xs.push_back(sx(p.x));
    }
  std::sort(bar_xs.begin(), bar_xs.end());
  double slot = (right - left) / 4;
  for (std::size_t i = 1; i < bar_xs.size(); ++i)
    if (bar_xs[i] - bar_xs[i - 1] > 0.5) slot = std::min(slot, bar_xs[i] - bar_xs[i - 1]);
  double bar_width = 0.7 * slot / static_cast<double>(std::max<std::size_t>(1, bar_series));
  double base = sy(y.log ? y_ticks.lo : std::clamp(0.0, y_ticks.lo, y_ticks.hi));

  // Everything drawn with data is clipped to the plot area (fixed domains may cut data), with
  // room for whole markers on points that lie on the domain's ends. The
  // clip id must be unique within a page holding several charts: a hash of the chart so far
  // is, and charts that hash alike are identical, so sharing the id would be harmless.
  std::string clip = fmt::format("clip{:016x}", std::hash<std::string>{}(out));
  out +=
      fmt::format(R"(<clipPath id="{}"><rect x="{}" y="{}" width="{}" height="{}"/></clipPath>)",
                  clip, fmt_px(left - kMarkerRoom), fmt_px(top - kMarkerRoom),
                  fmt_px(right - left + 2 * kMarkerRoom), fmt_px(bottom - top + 2 * kMarkerRoom));
  out += fmt::format(R"svg(<g clip-path="url(#{})">)svg", clip) + "\n";
  std::size_t bar_index = 0;
  for (std::size_t i = 0; i < series.size(); ++i) {
    const Series& s = series[i];
    const std::string& color = colors[i];
    if (s.bars) {
      double offset =
          (static_cast<double>(bar_index++) - (static_cast<double>(bar_series) - 1) / 2) *
          bar_width;
      for (const Point& p : s.points) {
        if (std::isnan(p.y)) continue;
        double px = sx(p.x) + offset - bar_width / 2, py = sy(p.y);
        out += fmt::format(
            R"(<rect x="{}" y="{}" width="{}" height="{}" fill="{}" opacity="0.8"/>)", fmt_px(px),
            fmt_px(std::min(py, base)), fmt_px(bar_width), fmt_px(std::abs(base - py)), color);
      }
      out += "\n";
    }
    if (s.line) {
      std::string path;
      bool pen_down = false;
      for (const Point& p : s.points) {
        if (std::isnan(p.y)) {
          pen_down = false;
          continue;
        }
        path += fmt::format("{}{} {}", pen_down ? "L" : "M", fmt_px(sx(p.x)), fmt_px(sy(p.y)));
        pen_down = true;
      }
      if (!path.empty())
        out += fmt::format(R"(<path d="{}" fill="none" stroke="{}" stroke-width="2"{}/>)", path,
                           color, s.dashed ? R"( stroke-dasharray="5,3")" : "") +
               "\n";
    }
    for (const Point& p : s.points) {
      if (std::isnan(p.y)) continue;
      double px = sx(p.x), py = sy(p.y);
      if (p.y_low && p.y_high)
        out += fmt::format(
            R"(<path d="M{0} {1}L{0} {2}M{3} {1}L{4} {1}M{3} {2}L{4} {2}" stroke="{5}" stroke-width="1.5" fill="none"/>)",
            fmt_px(px), fmt_px(sy(*p.y_low)), fmt_px(sy(*p.y_high)), fmt_px(px - 4), fmt_px(px + 4),
            color);
      if (!s.bars) out += marker_svg(s.marker, px, py, color);
      if (!p.label.empty())
        out += fmt::format(R"(<text x="{}" y="{}" font-size="10" fill="#333333">{}</text>)",
                           fmt_px(px + 6), fmt_px(py - 6), escape_xml(p.label));
    }
    out += "\n";
  }
  for (const ReferenceLine& r : references) {
    if (r.vertical) {
      double px = sx(r.value);
      out +=
          fmt::format(
              R"(<line x1="{0}" y1="{1}" x2="{0}" y2="{2}" stroke="{3}" stroke-dasharray="4,3"/>)"
              R"(<text x="{4}" y="{5}" font-size="10" fill="{3}">{6}</text>)",
              fmt_px(px), fmt_px(top), fmt_px(bottom), r.color, fmt_px(px + 4), fmt_px(top + 12),
              escape_xml(r.label)) +
          "\n";
    } else {
      double py = sy(r.value);
      out +=
          fmt::format(
              R"(<line x1="{0}" y1="{1}" x2="{2}" y2="{1}" stroke="{3}" stroke-dasharray="4,3"/>)"
              R"(<text x="{4}" y="{5}" font-size="10" text-anchor="end" fill="{3}">{6}</text>)",
              fmt_px(left), fmt_px(py), fmt_px(right), r.color, fmt_px(right - 4), fmt_px(py - 4),
              escape_xml(r.label)) +
          "\n";
    }
  }
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
