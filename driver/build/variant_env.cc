#include "build/variant_env.h"

#include <cpuid.h>

#include <fmt/format.h>

#include <cstdlib>
#include <regex>

namespace looprace::build {

namespace {

// make and sh split LOOPRACE_CC at blanks and expand $ and quotes; -Wl, splits at commas.
void require_plain(const std::string& text, const std::string& what) {
  for (char c : text) {
    bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                 std::string_view("_./+-:=@%~").find(c) != std::string_view::npos;
    if (!plain) {
      throw Error(fmt::format(
          "the {} \"{}\" contains '{}': it cannot go into $LOOPRACE_CC, which build tools split "
          "at blanks and commas and expand; use a path made of letters, digits and _./+-:=@%~",
          what, text, c));
    }
  }
}

std::string joined(const std::vector<std::string>& parts, const std::string& separator) {
  std::string result;
  for (const auto& part : parts) {
    if (!result.empty()) result += separator;
    result += part;
  }
  return result;
}

}  // namespace

std::filesystem::path default_workdir(const std::filesystem::path& srcdir) {
  std::filesystem::path cache;
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg == '/') {
    cache = xdg;
  } else if (const char* home = std::getenv("HOME"); home && *home == '/') {
    cache = std::filesystem::path(home) / ".cache";
  } else {
    return srcdir / ".looprace" / "work";
  }
  std::uint64_t hash = 0xcbf29ce484222325ULL;  // FNV-1a of the absolute source directory
  for (unsigned char c : std::filesystem::absolute(srcdir).string()) {
    hash = (hash ^ c) * 0x100000001b3ULL;
  }
  return cache / "looprace" / fmt::format("{:016x}", hash);
}

std::string missing_source_hint(const std::string& output, const std::filesystem::path& srcdir) {
  static const std::regex missing(R"(([^\s:]+): No such file or directory)");
  for (auto it = std::sregex_iterator(output.begin(), output.end(), missing);
       it != std::sregex_iterator(); ++it) {
    std::string name = (*it)[1].str();
    if (name.empty() || name.front() == '/' || !std::filesystem::exists(srcdir / name)) continue;
    return fmt::format(
        "{} is in {}, but the build runs in the variant's own directory ($LOOPRACE_OUTDIR) so "
        "that variants never share a file: name the sources as \"$LOOPRACE_SRCDIR/{}\", and run "
        "what the build writes there as $LOOPRACE_OUTDIR/... (for example --build "
        "'$LOOPRACE_CC -O2 \"$LOOPRACE_SRCDIR/{}\" -o prog' --run '$LOOPRACE_OUTDIR/prog')",
        name, srcdir.string(), name, name);
  }
  return {};
}

bool cpu_has_rdpid() {
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  return __get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx) && (ecx & (1u << 22)) != 0;
}

std::vector<std::string> plugin_arguments(const VariantSpec& spec) {
  const std::string prefix = "-fplugin-arg-looprace-";
  std::vector<std::string> args;
  if (spec.table) {
    require_plain(spec.table->string(), "loop table path");
    args.push_back(prefix + "table=" + spec.table->string());
  }
  if (spec.profile) {
    require_plain(spec.profile->string(), "profile path");
    args.push_back(prefix + "profile=" + spec.profile->string());
  }
  if (!spec.unroll.empty()) {
    std::vector<std::string> items;
    for (const auto& [loop, factor] : spec.unroll) {
      require_plain(loop, "loop selector");
      if (factor < 0 || factor > 16) {
        throw Error(fmt::format("unroll factor {} for loop {} is outside 0..16", factor, loop));
      }
      items.push_back(fmt::format("{}:{}", loop, factor));
    }
    args.push_back(prefix + "unroll=" + joined(items, ","));
  }
  if (!spec.instrument.empty()) {
    for (const auto& loop : spec.instrument) require_plain(loop, "loop selector");
    args.push_back(prefix + "instrument=" + joined(spec.instrument, ","));
    if (cpu_has_rdpid()) args.push_back(prefix + "entry-cpu=rdpid");
  }
  if (spec.verify) {
    require_plain(spec.verify->string(), "verify path");
    args.push_back(prefix + "verify=" + spec.verify->string());
  }
  if (spec.layout_seed) args.push_back(fmt::format("{}layout-seed={}", prefix, *spec.layout_seed));
  return args;
}

run::Environment build_environment(const Toolchain& toolchain, const VariantSpec& spec,
                                   const std::filesystem::path& outdir,
                                   const std::filesystem::path& srcdir, run::Environment base) {
  require_plain(toolchain.plugin.string(), "plugin path");
  require_plain(toolchain.runtime.string(), "runtime library path");
  std::string cflags;
  for (const auto& flag : spec.flags) {
    require_plain(flag, "flag");
    cflags += flag + " ";
  }
  std::string ldflags;
  if (spec.as_users_build) {
    VariantSpec factors_only;
    factors_only.unroll = spec.unroll;
    if (!spec.unroll.empty()) cflags += "-fplugin=" + toolchain.plugin.string();
    for (const auto& arg : plugin_arguments(factors_only)) cflags += " " + arg;
  } else {
    cflags += "-fplugin=" + toolchain.plugin.string();
    for (const auto& arg : plugin_arguments(spec)) cflags += " " + arg;
    ldflags = "-Wl,--whole-archive," + toolchain.runtime.string() + ",--no-whole-archive";
  }
  base.set("LOOPRACE_CC", fmt::format("{} {} {}", toolchain.cc, cflags, ldflags));
  base.set("LOOPRACE_CXX", fmt::format("{} {} {}", toolchain.cxx, cflags, ldflags));
  base.set("LOOPRACE_CFLAGS", cflags);
  base.set("LOOPRACE_LDFLAGS", ldflags);
  base.set("LOOPRACE_OUTDIR", std::filesystem::absolute(outdir).lexically_normal().string());
  base.set("LOOPRACE_SRCDIR", std::filesystem::absolute(srcdir).lexically_normal().string());
  return base;
}

}  // namespace looprace::build
