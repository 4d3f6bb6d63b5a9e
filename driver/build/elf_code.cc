#include "build/elf_code.h"

#include "build/elf_file.h"
#include "build/toolchain.h"
#include "run/digest.h"

#include <algorithm>

namespace looprace::build {

namespace {

bool is_code(const GElf_Shdr& shdr) {
  return (shdr.sh_flags & SHF_ALLOC) && (shdr.sh_flags & SHF_EXECINSTR);
}

// Constants, jump tables, unwind tables: read-only data the code's behaviour depends on.
bool is_readonly_data(const GElf_Shdr& shdr) {
  return (shdr.sh_flags & SHF_ALLOC) && !(shdr.sh_flags & (SHF_WRITE | SHF_EXECINSTR)) &&
         shdr.sh_type == SHT_PROGBITS;
}

}  // namespace

ElfCode hash_elf_code(const std::filesystem::path& file) {
  ElfFile elf(file);
  ElfCode result;
  result.file = file;
  run::Digest digest;
  elf.for_each_section([&](std::string_view name, const GElf_Shdr& shdr, std::string_view bytes) {
    bool code = is_code(shdr);
    if (!code && !is_readonly_data(shdr)) return;
    (code ? result.code_bytes : result.rodata_bytes) += bytes.size();
    std::uint64_t size = bytes.size();
    digest.update(name);
    digest.update("\0", 1);
    digest.update(&size, sizeof size);
    digest.update(bytes);
  });
  result.digest = digest.hex();
  return result;
}

bool is_linked_elf(const std::filesystem::path& file) {
  if (!has_elf_magic(file)) return false;
  try {
    ElfFile elf(file);
    return elf.header().e_type == ET_EXEC || elf.header().e_type == ET_DYN;
  } catch (const Error&) {
    return false;
  }
}

std::vector<std::filesystem::path> linked_elf_files(const std::filesystem::path& dir) {
  namespace fs = std::filesystem;
  std::vector<fs::path> files;
  for (auto it = fs::recursive_directory_iterator(dir); it != fs::recursive_directory_iterator();
       ++it) {
    // CMake's compiler-identification binaries are the same for every variant.
    if (it->is_directory() && it->path().filename() == "CMakeFiles") {
      it.disable_recursion_pending();
      continue;
    }
    if (it->is_symlink() || !it->is_regular_file()) continue;
    if (is_linked_elf(it->path())) files.push_back(fs::relative(it->path(), dir));
  }
  std::sort(files.begin(), files.end());
  return files;
}

std::vector<std::filesystem::path> LinkedElfFileCache::files(const std::filesystem::path& dir) {
  std::lock_guard lock(mutex_);
  if (auto found = files_.find(dir); found != files_.end()) return found->second;
  std::error_code error;
  if (!std::filesystem::is_directory(dir, error)) return {};
  std::vector<std::filesystem::path> absolute;
  for (const auto& relative : linked_elf_files(dir)) absolute.push_back(dir / relative);
  if (!absolute.empty()) files_[dir] = absolute;
  return absolute;
}

CodeIdentity code_identity(const std::filesystem::path& dir) {
  CodeIdentity identity;
  run::Digest digest;
  for (const auto& relative : linked_elf_files(dir)) {
    ElfCode code = hash_elf_code(dir / relative);
    code.file = relative;
    digest.update(relative.string());
    digest.update("\0", 1);
    digest.update(code.digest);
    identity.files.push_back(std::move(code));
  }
  identity.digest = digest.hex();
  return identity;
}

}  // namespace looprace::build
