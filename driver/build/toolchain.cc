#include "build/toolchain.h"

#include <fmt/format.h>

#include <system_error>
#include <vector>

namespace looprace::build {

std::filesystem::path current_executable() {
  std::error_code error;
  auto path = std::filesystem::read_symlink("/proc/self/exe", error);
  if (error) throw Error(fmt::format("cannot read /proc/self/exe: {}", error.message()));
  return path;
}

namespace {

// The first of `dirs`/`name` that exists, as an absolute canonical path; throws naming them all.
std::filesystem::path find_in(const std::vector<std::filesystem::path>& dirs,
                              const std::string& name, const std::string& what) {
  std::string searched;
  for (const auto& dir : dirs) {
    std::error_code error;
    auto candidate = std::filesystem::weakly_canonical(dir / name, error);
    if (!error && std::filesystem::is_regular_file(candidate, error)) return candidate;
    searched += fmt::format("\n  {}", (dir / name).lexically_normal().string());
  }
  throw Error(
      fmt::format("cannot find the {} {}; looked for:{}\n(build the project with "
                  "scripts/build, or install it, and run the looprace next to it)",
                  what, name, searched));
}

std::filesystem::path checked_override(const std::filesystem::path& path, const std::string& what) {
  std::error_code error;
  auto absolute = std::filesystem::weakly_canonical(path, error);
  if (error || !std::filesystem::is_regular_file(absolute, error)) {
    throw Error(fmt::format("the {} {} does not exist", what, path.string()));
  }
  return absolute;
}

}  // namespace

Toolchain find_toolchain(const std::filesystem::path& executable,
                         const ToolchainOverrides& overrides) {
  auto bindir = std::filesystem::absolute(executable).parent_path();
  // Build tree: build/bin/looprace next to build/lib/. Installed: <prefix>/<bindir>/looprace
  // next to <prefix>/<libdir>/.
  std::vector<std::filesystem::path> dirs = {bindir / ".." / "lib"};
  std::filesystem::path prefix = bindir;
  const std::filesystem::path install_bindir = LOOPRACE_INSTALL_BINDIR;
  for (auto part = install_bindir.begin(); part != install_bindir.end(); ++part) {
    prefix = prefix.parent_path();
  }
  if (prefix / LOOPRACE_INSTALL_LIBDIR != dirs.front().lexically_normal()) {
    dirs.push_back(prefix / LOOPRACE_INSTALL_LIBDIR);
  }

  Toolchain toolchain;
  toolchain.plugin = overrides.plugin ? checked_override(*overrides.plugin, "plugin")
                                      : find_in(dirs, "looprace.so", "looprace GCC plugin");
  toolchain.runtime = overrides.runtime
                          ? checked_override(*overrides.runtime, "runtime library")
                          : find_in(dirs, "liblooprace_rt.a", "looprace runtime library");
  if (overrides.cc) toolchain.cc = *overrides.cc;
  if (overrides.cxx) toolchain.cxx = *overrides.cxx;
  return toolchain;
}

}  // namespace looprace::build
