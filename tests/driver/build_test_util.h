// Helpers shared by the build_* and run_* tests: scratch directories, files, shell commands.
#pragma once

#include "run/process.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

namespace looprace::testing {

// A fresh directory under $TMPDIR (or /tmp), removed with everything in it at the end.
class ScratchDir {
 public:
  ScratchDir() {
    const char* tmp = std::getenv("TMPDIR");
    std::string pattern = std::string(tmp != nullptr ? tmp : "/tmp") + "/looprace-test-XXXXXX";
    if (mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    path_ = pattern;
  }
  ~ScratchDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  const std::filesystem::path& path() const { return path_; }
  std::filesystem::path operator/(const std::string& name) const { return path_ / name; }

 private:
  std::filesystem::path path_;
};

inline void write_file(const std::filesystem::path& file, const std::string& text) {
  std::filesystem::create_directories(file.parent_path());
  std::ofstream(file, std::ios::binary) << text;
}

inline std::string read_file(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// Runs a shell command in `cwd`; fails the test (with the command's output) when it fails.
inline void shell(const std::string& command, const std::filesystem::path& cwd = {}) {
  run::ProcessSpec spec;
  spec.command = command;
  spec.cwd = cwd;
  spec.merge_stderr = true;
  spec.timeout = std::chrono::seconds(120);
  run::ProcessResult result = run::run_process(spec);
  ASSERT_TRUE(result.succeeded()) << command << ": " << result.describe() << "\n"
                                  << result.out.tail;
}

}  // namespace looprace::testing
