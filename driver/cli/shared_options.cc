// Options and checks several commands share.
#include <cstdlib>
#include <fstream>
#include <stdexcept>
#include <string>

#include "cli/commands.h"

namespace looprace::cli {

namespace {
std::vector<std::string>& arguments() {
  static std::vector<std::string> list;
  return list;
}
}  // namespace

void set_command_line(int argc, char** argv) { arguments().assign(argv, argv + argc); }

const std::vector<std::string>& command_line() { return arguments(); }

namespace {

// raw|filtered to the number CLI11 stores in an ObservationKind option.
CLI::Validator observation_names() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        try {
          text = std::to_string(static_cast<int>(stats::observation_kind_from_string(text)));
          return {};
        } catch (const std::invalid_argument& e) {
          return e.what();
        }
      },
      "");
}

constexpr const char* kObservationHelp =
    "raw: a loop's cycles summed over its entries in a run; filtered: with the entries other "
    "work visibly disturbed taken out (docs/formats.md, Observations)";

}  // namespace

void add_observation_option(CLI::App* cmd, stats::ObservationKind* kind) {
  cmd->add_option("--observation", *kind, kObservationHelp)
      ->transform(observation_names())
      ->option_text(std::string("raw|filtered (default ") + stats::to_string(*kind) + ")");
}

void add_observation_option(CLI::App* cmd, std::optional<stats::ObservationKind>* kind) {
  cmd->add_option("--observation", *kind, kObservationHelp)
      ->transform(observation_names())
      ->option_text("raw|filtered (default: what the decisions were made on)");
}

void write_text_file(const std::filesystem::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  out.close();
  if (!out) throw std::runtime_error("cannot write " + path.string());
}

CLI::Validator positive_seconds() {
  return CLI::Validator(
      [](const std::string& text) -> std::string {
        char* end = nullptr;
        double seconds = std::strtod(text.c_str(), &end);
        if (end == text.c_str() || *end != '\0') return "'" + text + "' is not a number";
        return seconds > 0 ? "" : "a time limit must be more than 0 seconds";
      },
      "SECONDS > 0");
}

}  // namespace looprace::cli
