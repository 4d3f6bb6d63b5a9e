#include <cstdio>

#include "cli/commands.h"
#include "looprace_version.h"

namespace looprace::cli {

void add_version_command(CLI::App& app) {
  auto* cmd =
      app.add_subcommand("version", "Print looprace's version and the GCC it was built for");
  cmd->callback(
      [] { std::printf("looprace %s (plugin built for GCC %s)\n", kVersion, kGccVersion); });
}

}  // namespace looprace::cli
