#include "report/svg_chart.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <regex>
#include <stdexcept>

#include "xml_check.h"

namespace looprace::report::svg {
namespace {

// The numeric values of one attribute on every element of a kind, in document order.
std::vector<double> attribute_values(const std::string& svg, const std::string& element,
                                     const std::string& attribute) {
  std::vector<double> values;
  std::regex pattern("<" + element + R"([^>]*\s)" + attribute + R"re(="([-0-9.]+)")re");
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), pattern);
       it != std::sregex_iterator(); ++it)
    values.push_back(std::stod((*it)[1]));
  return values;
}

// Plain constructors: designated initializers that skip fields trip -Wextra on GCC 12.
Point pt(double x, double y) {
  Point p;
  p.x = x;
  p.y = y;
  return p;
}

Series series_of(std::string name, std::vector<Point> points) {
  Series s;
  s.name = std::move(name);
  s.points = std::move(points);
  return s;
}

Axis fixed(double min, double max) {
  Axis a;
  a.min = min;
  a.max = max;
  return a;
}

TEST(LinearTicks, CoversRangeWithNiceSteps) {
  Ticks t = linear_ticks(0, 10);
  EXPECT_EQ(t.lo, 0);
  EXPECT_EQ(t.hi, 10);
  EXPECT_EQ(t.values, (std::vector<double>{0, 2, 4, 6, 8, 10}));
}

TEST(LinearTicks, WidensToWholeSteps) {
  Ticks t = linear_ticks(0.13, 0.87);
  EXPECT_LE(t.lo, 0.13);
  EXPECT_GE(t.hi, 0.87);
  EXPECT_DOUBLE_EQ(t.values.front(), t.lo);
  EXPECT_DOUBLE_EQ(t.values.back(), t.hi);
  for (double v : t.values) EXPECT_EQ(format_tick(v).size() <= 4, true) << format_tick(v);
}

TEST(LinearTicks, ZeroRangeIsWidenedAroundTheValue) {
  Ticks t = linear_ticks(5, 5);
  EXPECT_LT(t.lo, 5);
  EXPECT_GT(t.hi, 5);
  EXPECT_GE(t.values.size(), 2u);
  Ticks zero = linear_ticks(0, 0);
  EXPECT_LT(zero.lo, 0);
  EXPECT_GT(zero.hi, 0);
}

TEST(LinearTicks, InvertedRangeIsSwapped) {
  Ticks t = linear_ticks(10, 0);
  EXPECT_EQ(t.lo, 0);
  EXPECT_EQ(t.hi, 10);
}

TEST(LogTicks, FewDecadesGetIntermediateTicks) {
  Ticks t = log_ticks(3, 200);
  EXPECT_EQ(t.lo, 1);
  EXPECT_EQ(t.hi, 1000);
  EXPECT_EQ(t.values, (std::vector<double>{1, 2, 5, 10, 20, 50, 100, 200, 500, 1000}));
}

TEST(LogTicks, ManyDecadesGetDecadesOnly) {
  Ticks t = log_ticks(1, 1e6);
  EXPECT_EQ(t.values.size(), 7u);
}

TEST(LogTicks, SinglePowerOfTenSpansOneDecade) {
  Ticks t = log_ticks(10, 10);
  EXPECT_EQ(t.lo, 10);
  EXPECT_EQ(t.hi, 100);
}

TEST(LogTicks, RejectsNonPositive) { EXPECT_THROW(log_ticks(0, 10), std::invalid_argument); }

TEST(FormatTick, NoBinaryNoiseAndSuffixes) {
  EXPECT_EQ(format_tick(0.1 + 0.2), "0.3");
  EXPECT_EQ(format_tick(0), "0");
  EXPECT_EQ(format_tick(-0.5), "-0.5");
  EXPECT_EQ(format_tick(2000), "2000");
  EXPECT_EQ(format_tick(12000), "12k");
  EXPECT_EQ(format_tick(1.5e6), "1.5M");
  EXPECT_EQ(format_tick(3e9), "3G");
}

TEST(EscapeXml, EscapesMarkupCharacters) {
  EXPECT_EQ(escape_xml(R"(a<b>&"c'd)"), "a&lt;b&gt;&amp;&quot;c&#39;d");
}

TEST(Chart, SinglePointRendersWellFormed) {
  Chart c;
  c.title = "one <point>";
  c.series.push_back(series_of("s", {pt(3, 7)}));
  std::string svg = c.render();
  EXPECT_EQ(testing::xml_problem(svg), "");
  EXPECT_EQ(attribute_values(svg, "circle", "cx").size(), 2u);  // legend marker + the point
  EXPECT_NE(svg.find("one &lt;point&gt;"), std::string::npos);
}

TEST(Chart, EmptyChartStillRenders) {
  Chart c;
  EXPECT_EQ(testing::xml_problem(c.render()), "");
}

TEST(Chart, LinearScalingMapsDomainEndsToPlotEdges) {
  Chart c;
  c.legend = false;
  c.x = fixed(0, 10);
  c.y = fixed(0, 10);
  c.series.push_back(series_of("", {pt(0, 0), pt(5, 5), pt(10, 10)}));
  std::string svg = c.render();
  auto cx = attribute_values(svg, "circle", "cx");
  auto cy = attribute_values(svg, "circle", "cy");
  ASSERT_EQ(cx.size(), 3u);
  EXPECT_NEAR(cx[1] - cx[0], cx[2] - cx[1], 0.11);
  EXPECT_NEAR(cy[0] - cy[1], cy[1] - cy[2], 0.11);
  EXPECT_GT(cy[0], cy[2]);  // larger y is higher on the page
  EXPECT_NEAR(cx[2], c.width - 16, 0.11);
}

TEST(Chart, LogAxisSpacesDecadesEvenly) {
  Chart c;
  c.legend = false;
  c.x.log = true;
  c.series.push_back(series_of("", {pt(1, 1), pt(10, 1), pt(100, 1)}));
  auto cx = attribute_values(c.render(), "circle", "cx");
  ASSERT_EQ(cx.size(), 3u);
  EXPECT_NEAR(cx[1] - cx[0], cx[2] - cx[1], 0.11);
}

TEST(Chart, NonPositiveValueOnLogAxisIsAnErrorNamingTheSeries) {
  Chart c;
  c.y.log = true;
  c.series.push_back(series_of("race", {pt(1, 0)}));
  try {
    c.render();
    FAIL() << "expected invalid_argument";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("race"), std::string::npos);
  }
}

TEST(Chart, InfiniteValueIsAnError) {
  Chart c;
  c.series.push_back(series_of("s", {pt(std::numeric_limits<double>::infinity(), 1)}));
  EXPECT_THROW(c.render(), std::invalid_argument);
}

TEST(Chart, NanBreaksTheLine) {
  Chart c;
  Series s = series_of("s", {pt(1, 1), pt(2, 2), pt(3, std::numeric_limits<double>::quiet_NaN()),
                             pt(4, 1), pt(5, 3)});
  s.marker = Marker::none;
  c.series.push_back(s);
  std::string svg = c.render();
  std::smatch m;
  ASSERT_TRUE(std::regex_search(svg, m, std::regex(R"re(<path d="([^"]*)" fill="none" stroke)re")));
  std::string d = m[1];
  EXPECT_EQ(std::count(d.begin(), d.end(), 'M'), 2);
  EXPECT_EQ(std::count(d.begin(), d.end(), 'L'), 2);
}

TEST(Chart, BarsStartAtZeroAndErrorBarsWiden) {
  Chart c;
  Series bars = series_of("n", {pt(1, 4), pt(2, 8)});
  bars.bars = true;
  c.series.push_back(bars);
  Point with_error = pt(1, 6);
  with_error.y_low = 5;
  with_error.y_high = 12;
  c.series.push_back(series_of("m", {with_error}));
  std::string svg = c.render();
  EXPECT_EQ(testing::xml_problem(svg), "");
  // Bar heights proportional to values, both from the same base.
  std::vector<double> heights;
  std::regex bar(
      R"re(<rect x="[-0-9.]+" y="[-0-9.]+" width="[-0-9.]+" height="([-0-9.]+)" fill="#0072B2" opacity)re");
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), bar); it != std::sregex_iterator();
       ++it)
    heights.push_back(std::stod((*it)[1]));
  ASSERT_EQ(heights.size(), 3u);  // legend swatch + two bars
  EXPECT_NEAR(heights[2], 2 * heights[1], 0.2);
  // The y domain grew to hold the error bar's top (12): a tick label at or above it exists.
  EXPECT_NE(svg.find(">12<"), std::string::npos);
}

TEST(Chart, CustomTicksReplaceComputedOnes) {
  Chart c;
  c.x = fixed(-0.5, 2.5);
  c.x.ticks = {{0, "gcc"}, {1, "x1"}, {2, "x2"}};
  c.series.push_back(series_of("", {pt(0, 1), pt(2, 2)}));
  std::string svg = c.render();
  EXPECT_NE(svg.find(">gcc<"), std::string::npos);
  EXPECT_NE(svg.find(">x2<"), std::string::npos);
  EXPECT_EQ(svg.find(">0.5<"), std::string::npos);
}

}  // namespace
}  // namespace looprace::report::svg
