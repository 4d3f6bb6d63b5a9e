// `looprace export`: the heuristic-training dataset of a store, one row per loop.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>

#include "cli/commands.h"
#include "report/export.h"
#include "store/report_loader.h"

namespace looprace::cli {
namespace {

struct ExportOptions {
  std::filesystem::path store;
  std::string format = "csv";
  std::filesystem::path output;
  std::optional<stats::ObservationKind> observation;  // default: what the decisions rest on
};

// --format: the writer of each format.
const std::map<std::string, std::string (*)(const report::Report&)> kWriters = {
    {"csv", report::export_csv},
    {"jsonl", report::export_jsonl},
    {"json", report::export_json},
    {"observations", report::export_observations_csv},
    {"runs", report::export_runs_csv}};

}  // namespace

void add_export_command(CLI::App& app) {
  auto options = std::make_shared<ExportOptions>();
  auto* cmd = app.add_subcommand(
      "export",
      "Write the training dataset: loop features, per-factor results, winner set, GCC's default");
  cmd->add_option("--store", options->store, "The SQLite store written by `looprace race`")
      ->required()
      ->check(CLI::ExistingFile);
  cmd->add_option("--format", options->format,
                  "csv or jsonl (one row per loop), json (the context: machine, sessions, run "
                  "counts; and the loops' rows), observations (loop,version,cycles: the raw data "
                  "`looprace replay` reads; with a control column when a race had --controls) "
                  "or runs (every race run: "
                  "loop,run,round,version,ok,cycles,filtered,entries,disturbed,control)")
      ->check(CLI::IsMember(kWriters));
  cmd->add_option("-o,--output", options->output, "Write here instead of standard output");
  add_observation_option(cmd, &options->observation);
  cmd->footer(R"txt(Examples:
  looprace export --store looprace.db --format csv -o loops.csv
  looprace export --store looprace.db --format jsonl | jq .winners
  looprace export --store looprace.db --format json | jq .context.run_counts
  looprace export --store looprace.db --format observations | gzip > dataset.csv.gz)txt");
  cmd->callback([options] {
    store::Store db = store::Store::open(options->store, /*create=*/false);
    report::Report rep = store::load_report(db, {}, options->observation);
    std::string text = kWriters.at(options->format)(rep);
    if (options->output.empty()) {
      std::fputs(text.c_str(), stdout);
      return;
    }
    write_text_file(options->output, text);
  });
}

}  // namespace looprace::cli
