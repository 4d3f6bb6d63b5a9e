// `looprace export`: the heuristic-training dataset of a store, one row per loop.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
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
  stats::ObservationKind observation = stats::ObservationKind::kRaw;
};

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
                  "csv or jsonl (one row per loop), or observations (loop,version,cycles: the "
                  "raw data `looprace replay` reads)")
      ->check(CLI::IsMember({"csv", "jsonl", "observations"}));
  cmd->add_option("-o,--output", options->output, "Write here instead of standard output");
  add_observation_option(cmd, &options->observation);
  cmd->footer(R"txt(Examples:
  looprace export --store looprace.db --format csv -o loops.csv
  looprace export --store looprace.db --format jsonl | jq .winners
  looprace export --store looprace.db --format observations | gzip > dataset.csv.gz)txt");
  cmd->callback([options] {
    store::Store db = store::Store::open(options->store, /*create=*/false);
    report::Report rep = store::load_report(db, {}, options->observation);
    std::string text = options->format == "csv"     ? report::export_csv(rep)
                       : options->format == "jsonl" ? report::export_jsonl(rep)
                                                    : report::export_observations_csv(rep);
    if (options->output.empty()) {
      std::fputs(text.c_str(), stdout);
      return;
    }
    write_text_file(options->output, text);
  });
}

}  // namespace looprace::cli
