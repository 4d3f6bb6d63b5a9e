// Loop table rows, their file and their ELF section.
#include "loop_table.h"

#include "files.h"

namespace looprace {

void LoopTable::add(const LoopIdentity& identity, const LoopFeatures& features,
                    const std::string& base) {
  nlohmann::ordered_json row;
  row["v"] = 1;
  row["id"] = identity.id;
  row["file"] = identity.file;
  row["line"] = identity.line;
  row["column"] = identity.column;
  row["function"] = identity.function;
  row["name"] = identity.name;
  row["fn_line"] = identity.fn_line;
  row["tu"] = main_input_filename ? main_input_filename : "";
  row["depth"] = identity.depth;
  row["ordinal"] = identity.ordinal;
  row["index"] = identity.index;
  row["loops"] = identity.loops;
  row["features"] = features_json(features);
  row["features"]["base"] = base;
  // Invalid UTF-8 in a file name must not throw inside the compiler: replace it.
  lines_ += row.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  lines_ += '\n';
}

bool LoopTable::append_to(const std::string& path) const { return append_atomically(path, lines_); }

void LoopTable::add_section_to_unit() const {
  // push/pop keep GCC's idea of the current section right for whatever it emits afterwards.
  std::string assembly = "\t.pushsection .looprace.loops,\"\",@progbits\n";
  char escaped[8];
  std::size_t start = 0;
  while (start < lines_.size()) {
    std::size_t end = lines_.find('\n', start) + 1;
    assembly += "\t.ascii \"";
    for (std::size_t i = start; i < end; ++i) {
      unsigned char c = lines_[i];
      if (c == '"' || c == '\\' || c < ' ' || c >= 0x7f) {
        snprintf(escaped, sizeof escaped, "\\%03o", c);
        assembly += escaped;
      } else {
        assembly += static_cast<char>(c);
      }
    }
    assembly += "\"\n";
    start = end;
  }
  assembly += "\t.popsection";
  symtab->finalize_toplevel_asm(build_string(assembly.size(), assembly.c_str()));
}

}  // namespace looprace
