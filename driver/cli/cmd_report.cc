// `looprace report`: the summary of a store as text, JSON, or a self-contained HTML page.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <stdexcept>

#include "cli/commands.h"
#include "report/export.h"
#include "report/html.h"
#include "report/text.h"
#include "store/report_loader.h"

namespace looprace::cli {
namespace {

struct ReportOptions {
  std::filesystem::path store;
  std::vector<std::string> loops;
  std::filesystem::path html;
  bool json = false;
  std::optional<stats::ObservationKind> observation;  // default: what the decisions rest on
};

}  // namespace

void add_report_command(CLI::App& app) {
  auto options = std::make_shared<ReportOptions>();
  auto* cmd =
      app.add_subcommand("report", "Summarize a race: text, JSON, or an HTML page with plots");
  cmd->add_option("--store", options->store, "The SQLite store written by `looprace race`")
      ->required()
      ->check(CLI::ExistingFile);
  cmd->add_option("--loop", options->loops, "Only these loops (id, id prefix); repeatable");
  cmd->add_option("--html", options->html,
                  "Also write a self-contained HTML page (inline SVG plots, no network) here");
  cmd->add_flag("--json", options->json, "Print one JSON object (context + one row per loop)");
  add_observation_option(cmd, &options->observation);
  cmd->footer(R"txt(Examples:
  looprace report --store looprace.db
  looprace report --store looprace.db --html report.html
  looprace report --store looprace.db --loop 1a2b3c4d --json)txt");
  cmd->callback([options] {
    store::Store db = store::Store::open(options->store, /*create=*/false);
    report::Report rep = store::load_report(db, options->loops, options->observation);
    if (options->json) {
      nlohmann::json out = {{"confidence", rep.confidence},    {"build", rep.context.build_command},
                            {"run", rep.context.run_command},  {"cpu", rep.context.cpu_model},
                            {"gcc", rep.context.gcc_version},  {"warnings", rep.context.warnings},
                            {"loops", nlohmann::json::array()}};
      for (const auto& loop : rep.loops)
        out["loops"].push_back(report::loop_row(loop, rep.confidence));
      std::printf("%s\n", out.dump(2).c_str());
    } else {
      std::fputs(report::render_text(rep).c_str(), stdout);
    }
    if (!options->html.empty()) {
      write_text_file(options->html, report::render_html(rep));
      std::fprintf(stderr, "looprace: wrote %s\n", options->html.c_str());
    }
  });
}

}  // namespace looprace::cli
