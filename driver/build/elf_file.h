// Room-private: an ELF file opened read-only with libelf, and its sections.
#pragma once

#include <gelf.h>
#include <libelf.h>

#include <filesystem>
#include <functional>
#include <string>
#include <string_view>

namespace looprace::build {

class ElfFile {
 public:
  // Throws Error naming the file when it cannot be opened or is not ELF.
  explicit ElfFile(const std::filesystem::path& file);
  ~ElfFile();
  ElfFile(const ElfFile&) = delete;
  ElfFile& operator=(const ElfFile&) = delete;

  const GElf_Ehdr& header() const { return header_; }
  // Calls `visit(name, section header, raw bytes)` for every section, in index order.
  // SHT_NOBITS sections come with empty bytes.
  void for_each_section(
      const std::function<void(std::string_view, const GElf_Shdr&, std::string_view)>& visit) const;

 private:
  std::filesystem::path path_;
  int fd_ = -1;
  Elf* elf_ = nullptr;
  GElf_Ehdr header_{};
  std::size_t names_index_ = 0;
};

// Whether the file starts with the ELF magic (cheap test before opening it with libelf).
bool has_elf_magic(const std::filesystem::path& file);

}  // namespace looprace::build
