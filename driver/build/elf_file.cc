#include "build/elf_file.h"

#include "build/toolchain.h"

#include <fmt/format.h>

#include <fcntl.h>
#include <unistd.h>
#include <cstring>
#include <fstream>

namespace looprace::build {

ElfFile::ElfFile(const std::filesystem::path& file) : path_(file) {
  // elf_version() only selects the library's ABI version; calling it again is harmless.
  if (elf_version(EV_CURRENT) == EV_NONE) throw Error("libelf is out of date");
  fd_ = open(file.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd_ < 0) throw Error(fmt::format("cannot open {}: {}", file.string(), strerror(errno)));
  elf_ = elf_begin(fd_, ELF_C_READ, nullptr);
  if (elf_ == nullptr || elf_kind(elf_) != ELF_K_ELF || gelf_getehdr(elf_, &header_) == nullptr ||
      elf_getshdrstrndx(elf_, &names_index_) != 0) {
    std::string why = elf_errmsg(-1);
    if (elf_ != nullptr) elf_end(elf_);
    close(fd_);
    throw Error(fmt::format("{} is not a readable ELF file ({})", file.string(), why));
  }
}

ElfFile::~ElfFile() {
  elf_end(elf_);
  close(fd_);
}

void ElfFile::for_each_section(
    const std::function<void(std::string_view, const GElf_Shdr&, std::string_view)>& visit) const {
  for (Elf_Scn* section = elf_nextscn(elf_, nullptr); section != nullptr;
       section = elf_nextscn(elf_, section)) {
    GElf_Shdr shdr;
    if (gelf_getshdr(section, &shdr) == nullptr) {
      throw Error(fmt::format("{}: bad section header ({})", path_.string(), elf_errmsg(-1)));
    }
    const char* name = elf_strptr(elf_, names_index_, shdr.sh_name);
    std::string bytes;
    if (shdr.sh_type != SHT_NOBITS) {
      for (Elf_Data* data = elf_rawdata(section, nullptr); data != nullptr;
           data = elf_rawdata(section, data)) {
        if (data->d_buf != nullptr)
          bytes.append(static_cast<const char*>(data->d_buf), data->d_size);
      }
    }
    visit(name != nullptr ? name : "", shdr, bytes);
  }
}

bool has_elf_magic(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  char magic[SELFMAG] = {};
  return in.read(magic, SELFMAG) && std::memcmp(magic, ELFMAG, SELFMAG) == 0;
}

}  // namespace looprace::build
