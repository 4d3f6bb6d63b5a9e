// Where the plugin and the runtime are, and which compilers build the variants.
#pragma once

#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>

namespace looprace::build {

// Bad input or a missing piece of the toolchain; the message names the file or option at fault.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct Toolchain {
  std::filesystem::path plugin;   // absolute path of looprace.so
  std::filesystem::path runtime;  // absolute path of liblooprace_rt.a
  std::string cc = "gcc";
  std::string cxx = "g++";
};

struct ToolchainOverrides {
  std::optional<std::filesystem::path> plugin;
  std::optional<std::filesystem::path> runtime;
  std::optional<std::string> cc;
  std::optional<std::string> cxx;
};

// The running executable (/proc/self/exe).
std::filesystem::path current_executable();

// Finds looprace.so and liblooprace_rt.a next to `executable`: <exe dir>/../lib (build tree)
// or <prefix>/<libdir> (installed). Throws Error listing the places searched when one is missing.
Toolchain find_toolchain(const std::filesystem::path& executable = current_executable(),
                         const ToolchainOverrides& overrides = {});

}  // namespace looprace::build
