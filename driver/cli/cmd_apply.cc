// `looprace apply`: checks a profile and prints how to build with it.
#include <cstdio>
#include <filesystem>
#include <memory>

#include "build/toolchain.h"
#include "cli/commands.h"
#include "profile/profile_file.h"
#include "run/hygiene.h"

namespace looprace::cli {

namespace {

// A loop's best factor is the CPU's: one that wins on one generation can lose on the next.
void warn_if_raced_on_another_cpu(const std::filesystem::path& path,
                                  const profile::Profile& parsed) {
  const auto provenance = profile::read_provenance(parsed);
  if (!provenance) return;
  const std::string here = run::this_cpu();
  if (run::same_cpu(provenance->cpu, here)) return;
  std::fprintf(stderr,
               "warning: %s was raced on CPU \"%s\", this machine has \"%s\": its factors may "
               "not be the best here; race again on this machine to be sure\n",
               path.c_str(), provenance->cpu.c_str(), here.c_str());
}

}  // namespace

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
    warn_if_raced_on_another_cpu(path, parsed);
    build::Toolchain tools = build::find_toolchain();
    // The flags the decisions were raced with come first, so that the build is the raced one.
    const std::string raced_flags = profile::join_flags(parsed.flags);
    std::printf("%s%s-fplugin=%s -fplugin-arg-looprace-profile=%s\n", raced_flags.c_str(),
                raced_flags.empty() ? "" : " ", tools.plugin.c_str(), path.c_str());
    if (!parsed.flags.empty())
      std::fprintf(stderr,
                   "\nThe profile's decisions were raced with %s on top of the build's own "
                   "flags; the line above adds them.",
                   raced_flags.c_str());
    std::fprintf(stderr,
                 "\n%s: %zu loop(s). Add the line above to the compiler flags of every build (and "
                 "to the link flags under -flto).\nWith CMake:\n"
                 "  find_package(looprace REQUIRED)\n"
                 "  looprace_apply_profile(<target> %s)\n",
                 path.c_str(), parsed.entries.size(), path.c_str());
  });
}

}  // namespace looprace::cli
