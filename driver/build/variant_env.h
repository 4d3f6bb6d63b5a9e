// The build environment of one variant (docs/formats.md section 2): the user's build command
// names the compiler as $LOOPRACE_CC / $LOOPRACE_CXX (or adds $LOOPRACE_CFLAGS and
// $LOOPRACE_LDFLAGS to its own), and we fill those with the plugin, its arguments and the runtime.
//
//   LOOPRACE_CC       gcc [flags] -fplugin=<so> <plugin args>
//   -Wl,--whole-archive,<rt.a>,--no-whole-archive LOOPRACE_CXX      the same with g++
//   LOOPRACE_CFLAGS   [flags] -fplugin=<so> <plugin args> (also meant for CXXFLAGS)
//   LOOPRACE_LDFLAGS  -Wl,--whole-archive,<rt.a>,--no-whole-archive
//   LOOPRACE_OUTDIR   the variant's own absolute directory (the build runs there)
//   LOOPRACE_SRCDIR   the directory looprace was started from
//
// The values are split at blanks by make and sh, so every path in them must be free of blanks
// and shell/make metacharacters; build_environment() rejects such paths with a clear message.
#pragma once

#include "build/toolchain.h"
#include "run/process.h"

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace looprace::build {

// What the plugin is asked to do in one build.
struct VariantSpec {
  std::optional<std::filesystem::path> table;       // table=PATH: append the loop table
  std::vector<std::pair<std::string, int>> unroll;  // (loop id or file:line:col, factor 0..16)
  std::vector<std::string> instrument;              // loops to time
  std::optional<std::filesystem::path> verify;      // verify=PATH: factors really applied
  std::optional<std::filesystem::path> profile;     // profile=PATH
  // Layout randomization per build: layout-seed=S, the plugin pads each function by its own
  // seeded amount (0..63 bytes before its entry, never executed).
  std::optional<std::uint64_t> layout_seed;
  // Flags put before the build's own (the race's adopted --try-flags, e.g. -funroll-loops):
  // GCC applies -f and -m flags whatever their place, after the -O level's defaults.
  std::vector<std::string> flags;
  // Built as the user builds with a profile: no runtime linked (it would come first in the link
  // and move every function), the plugin loaded only when `unroll` asks for factors, and
  // nothing else asked of it. What a whole-program comparison times.
  bool as_users_build = false;
};

// True when this machine's CPU has rdpid (CPUID leaf 7, ECX bit 22).
bool cpu_has_rdpid();

// "-fplugin-arg-looprace-..." arguments, in a fixed order. Instrumented variants run on this
// machine, so when its CPU has rdpid they read the entry's processor id with it
// (entry-cpu=rdpid): that entry costs what the serialized floor costs, rdtscp's more.
std::vector<std::string> plugin_arguments(const VariantSpec& spec);

// Where variants are built unless --workdir says: outside the sources, so that a build that
// copies its sources into the variant's directory (`cp -R "$LOOPRACE_SRCDIR/." .`) never copies
// the variants into themselves: $XDG_CACHE_HOME/looprace/<hash of srcdir> (else ~/.cache/...,
// else .looprace/work under srcdir when there is no home).
std::filesystem::path default_workdir(const std::filesystem::path& srcdir);

// What to do about a baseline build that failed because the compiler did not find a source
// file: the build runs in the variant's directory, not in `srcdir`. Empty when the output
// shows no such thing.
std::string missing_source_hint(const std::string& output, const std::filesystem::path& srcdir);

// `base` (usually run::Environment::current()) plus the LOOPRACE_* variables above.
run::Environment build_environment(const Toolchain& toolchain, const VariantSpec& spec,
                                   const std::filesystem::path& outdir,
                                   const std::filesystem::path& srcdir,
                                   run::Environment base = run::Environment::current());

}  // namespace looprace::build
