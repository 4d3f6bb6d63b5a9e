// `looprace apply`: checks a profile and prints how to build with it.
#include <cstdio>
#include <filesystem>
#include <memory>

#include "build/toolchain.h"
#include "cli/commands.h"
#include "profile/profile_file.h"

namespace looprace::cli {

void add_apply_command(CLI::App& app) {
  auto profile = std::make_shared<std::filesystem::path>();
  auto* cmd = app.add_subcommand(
      "apply", "Check a profile and print the compiler flags (and CMake lines) that apply it");
  cmd->add_option("--profile", *profile, "The profile written by `looprace race`")->required();
  cmd->footer(R"txt(Examples:
  make CFLAGS="-O2 $(looprace apply --profile looprace.profile)"   # flags on stdout
  looprace apply --profile looprace.profile     # also shows the CMake way)txt");
  cmd->callback([profile] {
    auto path = std::filesystem::absolute(*profile);
    profile::Profile parsed = profile::read_profile_file(path);
    build::Toolchain tools = build::find_toolchain();
    std::printf("-fplugin=%s -fplugin-arg-looprace-profile=%s\n", tools.plugin.c_str(),
                path.c_str());
    std::fprintf(stderr,
                 "\n%s: %zu loop(s). Add the line above to the compiler flags of every build (and "
                 "to the link flags under -flto).\nWith CMake:\n"
                 "  find_package(looprace REQUIRED)\n"
                 "  looprace_apply_profile(<target> %s)\n",
                 path.c_str(), parsed.entries.size(), path.c_str());
  });
}

}  // namespace looprace::cli
