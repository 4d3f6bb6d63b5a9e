#include <gtest/gtest.h>

#include <sstream>

#include <nlohmann/json.hpp>

#include "plans/replay.h"
#include "report/export.h"
#include "report/figures.h"
#include "report/html.h"
#include "report/text.h"
#include "sample_model.h"
#include "xml_check.h"

namespace looprace::report {
namespace {

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// Splits one CSV line honoring quotes (RFC 4180).
std::vector<std::string> csv_cells(const std::string& line) {
  std::vector<std::string> cells(1);
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    char c = line[i];
    if (quoted && c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
      cells.back() += '"';
      ++i;
    } else if (c == '"') {
      quoted = !quoted;
    } else if (c == ',' && !quoted) {
      cells.emplace_back();
    } else {
      cells.back() += c;
    }
  }
  return cells;
}

class Renderers : public ::testing::Test {
 protected:
  Report report = testing::sample_report();
};

TEST_F(Renderers, FiguresFollowTheDecision) {
  const LoopReport& loop = report.loops[0];
  LoopFigures figures = derive_figures(loop, report.confidence);
  ASSERT_EQ(figures.factors.size(), 17u);
  EXPECT_EQ(figures.factors[loop.decision->chosen].status, FactorStatus::chosen);
  EXPECT_EQ(figures.factors[13].status, FactorStatus::disqualified);
  EXPECT_EQ(figures.factors[9].note, "same code as 8");
  EXPECT_EQ(figures.factors[9].samples, figures.factors[8].samples);
  ASSERT_TRUE(figures.speedup.has_value());
  // Geometric mean inside its own interval.
  for (const FactorFigures& f : figures.factors)
    if (f.interval) {
      EXPECT_LE(f.interval->lower, *f.mean);
      EXPECT_GE(f.interval->upper, *f.mean);
    }
  LoopFigures unfinished = derive_figures(report.loops[2], report.confidence);
  EXPECT_FALSE(unfinished.speedup.has_value());
  EXPECT_EQ(unfinished.speedup_note, "the race did not finish");
}

TEST_F(Renderers, SpeedupRestsOnTheConfirmationRunsWhenThereAreSome) {
  LoopReport loop = report.loops[0];
  ASSERT_NE(loop.decision->chosen, 0);
  LoopFigures from_race = derive_figures(loop, report.confidence);
  ASSERT_TRUE(from_race.speedup.has_value());
  EXPECT_NE(from_race.speedup_source.find("optimistic"), std::string::npos);
  // Fresh runs where the chosen factor is exactly 10 % faster: the test uses them alone.
  loop.decision->speedup = {
      plans::SpeedupSource::kConfirmation, {1000, 1010, 990, 1005}, {900, 909, 891, 904.5}, 0.95};
  LoopFigures confirmed = derive_figures(loop, report.confidence);
  ASSERT_TRUE(confirmed.speedup.has_value());
  EXPECT_EQ(confirmed.speedup->baseline_n, 4u);
  EXPECT_EQ(confirmed.speedup->candidate_n, 4u);
  EXPECT_NEAR(confirmed.speedup->median_speedup, 1000.0 / 900.0, 1e-9);
  EXPECT_EQ(confirmed.speedup_source, "4 confirmation runs each, taken after the race");
  EXPECT_NE(render_text(Report{report.context, {loop}, report.confidence})
                .find("From 4 confirmation runs each"),
            std::string::npos);
}

TEST_F(Renderers, AKeptDefaultShowsTheUnconfirmedChoiceAndItsRuns) {
  LoopReport loop = report.loops[0];
  loop.decision->chosen = 0;
  loop.decision->unconfirmed = 5;
  loop.decision->speedup = {
      plans::SpeedupSource::kConfirmation, {1000, 1010, 990, 1005}, {1001, 1012, 989, 1003}, 0.95};
  LoopFigures figures = derive_figures(loop, report.confidence);
  ASSERT_TRUE(figures.speedup.has_value());
  EXPECT_NE(figures.speedup_subject.find("Factor 5 (the plan's choice, not confirmed"),
            std::string::npos);
  EXPECT_NE(render_text(Report{report.context, {loop}, report.confidence}).find("Factor 5 (the"),
            std::string::npos);
  EXPECT_NE(render_html(Report{report.context, {loop}, report.confidence}).find("Factor 5 (the"),
            std::string::npos);
}

// The runner-up check the race stored shows in the text and the HTML.
TEST_F(Renderers, TheRunnerUpCheckIsShown) {
  LoopReport loop = report.loops[0];
  loop.decision->runner_up = plans::RunnerUpCheck{8, 30, 1.065, 0.902, 1.256, true};
  const std::string said =
      "Runner-up: factor 8, the best the race eliminated, joined the tied best: 30 fresh pairs, "
      "factor " +
      std::to_string(loop.decision->chosen) + " 1.065 times as fast [0.902, 1.256].";
  const Report one{report.context, {loop}, report.confidence};
  EXPECT_NE(render_text(one).find(said), std::string::npos) << render_text(one);
  EXPECT_NE(render_html(one).find(said), std::string::npos);
  EXPECT_EQ(render_text(report).find("Runner-up"), std::string::npos);
}

TEST_F(Renderers, RoundsSetAsideAreCounted) {
  LoopReport loop = report.loops[0];
  const std::size_t rounds = loop.decision->rounds.size();
  ASSERT_GE(rounds, 2u);
  loop.decision->rounds[0].set_aside = true;
  const std::string said = "1 of its " + std::to_string(rounds) + " rounds set aside";
  const Report one{report.context, {loop}, report.confidence};
  EXPECT_NE(render_text(one).find(said), std::string::npos) << render_text(one);
  EXPECT_NE(render_html(one).find(said), std::string::npos);
  EXPECT_EQ(render_text(report).find("set aside"), std::string::npos);
}

TEST_F(Renderers, TextNamesChosenFactorVerdictAndWarnings) {
  std::string text = render_text(report);
  const plans::LoopDecision& d = *report.loops[0].decision;
  EXPECT_NE(text.find("Chosen: factor " + std::to_string(d.chosen)), std::string::npos);
  LoopFigures figures = derive_figures(report.loops[0], report.confidence);
  EXPECT_NE(text.find(stats::verdict_name(figures.speedup->verdict)), std::string::npos);
  EXPECT_NE(text.find("Warning: the machine was loaded"), std::string::npos);
  EXPECT_NE(text.find("Warning: factor 16 was not applied"), std::string::npos);
  EXPECT_NE(text.find("the race did not finish"), std::string::npos);
  EXPECT_NE(text.find("disqualified (output differs from the baseline)"), std::string::npos);
  EXPECT_EQ(count(text, "\nLoop "), 3u);
}

TEST_F(Renderers, HtmlIsWellFormedSelfContainedWithOneSectionPerLoop) {
  std::string html = render_html(report);
  EXPECT_EQ(testing::xml_problem(html), "");
  EXPECT_EQ(count(html, "<section class=\"loop\""), report.loops.size());
  // No network: the only URL is the SVG namespace, never fetched.
  std::string without_namespace = html;
  for (std::size_t at;
       (at = without_namespace.find("http://www.w3.org/2000/svg")) != std::string::npos;)
    without_namespace.erase(at, 26);
  EXPECT_EQ(without_namespace.find("http:"), std::string::npos);
  EXPECT_EQ(without_namespace.find("https:"), std::string::npos);
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_EQ(html.find("<link"), std::string::npos);
  // Markup in user text is escaped.
  EXPECT_NE(html.find("kernel_&lt;int&gt;"), std::string::npos);
  EXPECT_EQ(html.find("kernel_<int>"), std::string::npos);
  // Two finished loops have a rounds chart; the interrupted one does not.
  EXPECT_EQ(count(html, "<title>Elimination rounds"), 2u);
  EXPECT_NE(html.find("verdict: <strong>"), std::string::npos);
}

TEST_F(Renderers, EmptyReportRenders) {
  Report empty;
  EXPECT_EQ(testing::xml_problem(render_html(empty)), "");
  EXPECT_NE(render_text(empty).find("No raced loops"), std::string::npos);
  EXPECT_EQ(export_jsonl(empty), "");
}

TEST_F(Renderers, CsvHasOneRowPerLoopWithConsistentColumns) {
  std::string csv = export_csv(report);
  std::istringstream in(csv);
  std::string line;
  std::getline(in, line);
  std::vector<std::string> header = csv_cells(line);
  EXPECT_EQ(header[0], "id");
  auto column = [&](const std::string& name) {
    return static_cast<std::size_t>(std::find(header.begin(), header.end(), name) - header.begin());
  };
  ASSERT_LT(column("feature_stmts"), header.size());
  ASSERT_LT(column("mean_16"), header.size());
  ASSERT_LT(column("winners"), header.size());
  std::vector<std::vector<std::string>> rows;
  while (std::getline(in, line)) rows.push_back(csv_cells(line));
  ASSERT_EQ(rows.size(), 3u);
  for (const auto& row : rows) EXPECT_EQ(row.size(), header.size());
  // The function name holds a comma and quotes: quoted and doubled, read back intact.
  EXPECT_EQ(rows[0][column("function")], "kernel_<int>, \"quoted\"");
  EXPECT_EQ(rows[0][column("chosen")], std::to_string(report.loops[0].decision->chosen));
  EXPECT_EQ(rows[0][column("status_13")], "disqualified");
  EXPECT_EQ(rows[0][column("feature_stmts")], "17");
  EXPECT_EQ(rows[2][column("chosen")], "");  // unfinished race: unknown, not zero
}

TEST_F(Renderers, ObservationsExportIsWhatReplayReads) {
  std::istringstream in(export_observations_csv(report));
  plans::Dataset data = plans::read_dataset_csv(in, "export");
  // The two finished races; the interrupted one is left out.
  ASSERT_EQ(data.size(), 2u);
  const LoopReport& first = report.loops[0];
  EXPECT_EQ(data[0].loop, first.id);
  std::size_t raced = 0;
  for (const FactorResult& factor : first.factors) {
    if (factor.disqualified || factor.cycles.empty()) continue;
    auto version =
        std::find(data[0].versions.begin(), data[0].versions.end(), std::to_string(factor.factor));
    ASSERT_NE(version, data[0].versions.end()) << "factor " << factor.factor;
    EXPECT_EQ(data[0].cycles[version - data[0].versions.begin()], factor.cycles);
    ++raced;
  }
  EXPECT_EQ(data[0].versions.size(), raced);  // disqualified and same-code factors left out
}

// A loop raced with controls gives the export its control column; a loop raced without them
// beside it gets the control 1, which adjusts nothing.
TEST_F(Renderers, ObservationsExportCarriesControlsAndOneForALoopWithout) {
  for (FactorResult& factor : report.loops[0].factors)
    factor.controls.assign(factor.cycles.size(), 1.25);
  std::istringstream in(export_observations_csv(report));
  plans::Dataset data = plans::read_dataset_csv(in, "export");
  ASSERT_EQ(data.size(), 2u);
  for (const plans::LoopData& loop : data) {
    ASSERT_EQ(loop.controls.size(), loop.cycles.size());
    const double expected = loop.loop == report.loops[0].id ? 1.25 : 1.0;
    for (std::size_t v = 0; v < loop.cycles.size(); ++v)
      EXPECT_EQ(loop.controls[v], std::vector<double>(loop.cycles[v].size(), expected));
  }
}

TEST_F(Renderers, JsonlRowsParseAndCarryTheDataset) {
  std::istringstream in(export_jsonl(report));
  std::string line;
  std::vector<nlohmann::json> rows;
  while (std::getline(in, line)) rows.push_back(nlohmann::json::parse(line));
  ASSERT_EQ(rows.size(), 3u);
  const nlohmann::json& first = rows[0];
  EXPECT_EQ(first["id"], "1a2b3c4d5e6f7081");
  EXPECT_EQ(first["features"]["stmts"], 17);
  EXPECT_EQ(first["factors"].size(), 17u);
  EXPECT_EQ(first["winners"], nlohmann::json(report.loops[0].decision->winners));
  EXPECT_EQ(first["gcc_default"]["factor"], 0);
  EXPECT_EQ(first["gcc_default"]["applied"], 4);
  EXPECT_TRUE(first["speedup"].contains("verdict"));
  EXPECT_TRUE(rows[2]["chosen"].is_null());
}

TEST_F(Renderers, JsonHoldsTheSessionsRunCountsAndLoops) {
  Session session;
  session.cores = 2;
  session.virtual_machine = true;
  session.load1 = 0.5;
  report.context.sessions = {session};
  report.context.run_counts = {{"baseline", 3}, {"race", 40}};
  report.context.first_run = "2026-01-02T03:04:06Z";
  nlohmann::json out = nlohmann::json::parse(export_json(report));
  const nlohmann::json& context = out["context"];
  ASSERT_EQ(context["sessions"].size(), 1u);
  EXPECT_EQ(context["sessions"][0]["cores"], 2);
  EXPECT_EQ(context["sessions"][0]["virtual_machine"], true);
  EXPECT_EQ(context["sessions"][0]["load1"], 0.5);
  EXPECT_TRUE(context["sessions"][0]["tsc_hz"].is_null());  // unknown, not zero
  EXPECT_EQ(context["run_counts"]["race"], 40);
  EXPECT_EQ(context["first_run"], "2026-01-02T03:04:06Z");
  EXPECT_TRUE(context["last_run"].is_null());
  ASSERT_EQ(out["loops"].size(), 3u);
  EXPECT_EQ(out["loops"][0], loop_row(report.loops[0], report.confidence));
}

TEST_F(Renderers, RunsExportHasEveryRaceRunWithEmptyCellsForMissingValues) {
  RaceRun kept, crashed;
  kept = {7, 1, 0, true, 1200, 1100.5, 64, 2, 0.97};
  crashed.run = 8;
  crashed.round = 1;
  crashed.factor = 4;
  crashed.ok = false;
  report.loops[0].race_runs = {kept, crashed};
  std::istringstream in(export_runs_csv(report));
  std::string line;
  std::vector<std::vector<std::string>> rows;
  while (std::getline(in, line)) rows.push_back(csv_cells(line));
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0], (std::vector<std::string>{"loop", "run", "round", "version", "ok", "cycles",
                                               "filtered", "entries", "disturbed", "control"}));
  EXPECT_EQ(rows[1], (std::vector<std::string>{"1a2b3c4d5e6f7081", "7", "1", "0", "1", "1200",
                                               "1100.5", "64", "2", "0.97"}));
  EXPECT_EQ(rows[2], (std::vector<std::string>{"1a2b3c4d5e6f7081", "8", "1", "4", "0", "", "", "0",
                                               "0", ""}));
}

TEST(CsvField, QuotesOnlyWhenNeeded) {
  EXPECT_EQ(csv_field("plain"), "plain");
  EXPECT_EQ(csv_field("a,b"), "\"a,b\"");
  EXPECT_EQ(csv_field("say \"hi\""), "\"say \"\"hi\"\"\"");
  EXPECT_EQ(csv_field("two\nlines"), "\"two\nlines\"");
}

TEST(FormatCycles, ReadableMagnitudes) {
  EXPECT_EQ(format_cycles(812), "812");
  EXPECT_EQ(format_cycles(12345), "12.35k");
  EXPECT_EQ(format_cycles(1234567), "1.235M");
  EXPECT_EQ(format_cycles(2.1e9), "2.100G");
}

}  // namespace
}  // namespace looprace::report
