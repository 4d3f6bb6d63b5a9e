// Code identity of a build: a digest of the bytes that decide behaviour and speed — every
// executable section (SHF_EXECINSTR) and read-only data (allocated, not writable, PROGBITS) —
// of every ELF executable and shared object in a variant directory. Object files (*.o, ET_REL),
// archives and CMake's compiler-detection binaries (under CMakeFiles/) are ignored. Variants
// with equal identities are byte-identical programs and share one set of observations.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace looprace::build {

struct ElfCode {
  std::filesystem::path file;      // relative to the directory scanned
  std::string digest;              // 16 hex digits over the sections below, names and bytes
  std::uint64_t code_bytes = 0;    // bytes of executable sections
  std::uint64_t rodata_bytes = 0;  // bytes of read-only data sections
};

struct CodeIdentity {
  std::string digest;          // over all files (relative name + file digest), sorted by name
  std::vector<ElfCode> files;  // sorted by relative name
  bool empty() const { return files.empty(); }
};

// Digest of one ELF file's code; throws Error when it is not a readable ELF file.
ElfCode hash_elf_code(const std::filesystem::path& file);

// Every executable / shared object under `dir` (recursively).
CodeIdentity code_identity(const std::filesystem::path& dir);

// Whether `file` is an ELF executable or shared object (not an object file).
bool is_linked_elf(const std::filesystem::path& file);

// The linked ELF files under `dir` that code_identity() hashes, relative to `dir`, sorted.
std::vector<std::filesystem::path> linked_elf_files(const std::filesystem::path& dir);

// linked_elf_files() of each directory, listed once and as absolute paths: before every run
// their cached pages are reloaded (run::RunSpec::fresh_pages), and listing a build tree each
// time would add to every run. A rebuilt directory keeps its file names.
// Thread-safe; a directory that does not exist (yet) lists nothing and is not remembered.
class LinkedElfFileCache {
 public:
  std::vector<std::filesystem::path> files(const std::filesystem::path& dir);

 private:
  std::mutex mutex_;
  std::map<std::filesystem::path, std::vector<std::filesystem::path>> files_;
};

}  // namespace looprace::build
