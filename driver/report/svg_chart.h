// A small dependency-free SVG chart builder: linear or logarithmic axes with readable ticks,
// several series drawn as lines, markers and/or bars, error bars, point labels, reference lines
// and a legend. The output is one <svg> element with inline styles, so it works both inline in
// an HTML page and as a stand-alone .svg file. Used by the HTML report and the replay figures.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace looprace::report::svg {

// Tick positions of one axis and the domain they span (the domain is widened to whole ticks).
struct Ticks {
  double lo = 0;
  double hi = 1;
  std::vector<double> values;
};

// "Nice" linear ticks (steps of 1, 2 or 5 times a power of ten), about `target` of them,
// covering [lo, hi]. A zero or inverted range is widened around its value so it still shows.
Ticks linear_ticks(double lo, double hi, int target = 6);
// Ticks for a log10 axis covering [lo, hi] (both > 0): whole decades, plus 2 and 5 times each
// decade when at most three decades are spanned.
Ticks log_ticks(double lo, double hi);
// Tick label: no floating-point noise; k/M/G suffixes for large magnitudes.
std::string format_tick(double value);
// Escapes text for use in SVG/HTML text and attribute values.
std::string escape_xml(const std::string& text);

enum class Marker { none, circle, square, diamond, triangle, cross };

struct Point {
  double x = 0;
  double y = 0;                 // NaN: no value here (breaks the series' line)
  std::optional<double> y_low;  // error bar, drawn when both ends are set
  std::optional<double> y_high;
  std::string label;  // small text next to the point, optional
};

struct Series {
  std::string name;  // legend entry; empty = not in the legend
  std::vector<Point> points;
  std::string color;  // any SVG color; empty = next palette color
  bool line = true;   // connect consecutive points
  bool dashed = false;
  Marker marker = Marker::circle;
  bool bars = false;  // vertical bars from the axis base (0, or the axis minimum)
};

struct Axis {
  std::string label;
  bool log = false;           // log10 scale; every value on it must be > 0
  std::optional<double> min;  // fixed domain ends; default: from the data
  std::optional<double> max;
  bool include_zero = false;  // linear axes only
  // Explicit ticks (value, text) replace the computed ones, e.g. factor names.
  std::vector<std::pair<double, std::string>> ticks;
};

// A straight reference line across the plot, e.g. the baseline mean.
struct ReferenceLine {
  double value = 0;
  bool vertical = false;  // false: horizontal at y = value; true: vertical at x = value
  std::string label;
  std::string color = "#888888";
};

struct Chart {
  std::string title;
  double width = 640;
  double height = 360;
  Axis x;
  Axis y;
  std::vector<Series> series;
  std::vector<ReferenceLine> references;
  bool legend = true;

  // The chart as one <svg> element. Throws std::invalid_argument when a value that must be
  // drawn is not finite on a linear axis or not positive on a log axis, naming the series.
  std::string render() const;
};

// Charts in one row as one <svg> element, each at its own size (e.g. the two graphs of
// Raced Profiles Figures 7-10).
std::string side_by_side(const std::vector<Chart>& charts);

}  // namespace looprace::report::svg
