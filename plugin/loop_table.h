// The loop table (docs/formats.md section 3): JSON Lines appended to table=PATH with one
// O_APPEND write per translation unit, and the same lines in the non-allocated ELF section
// .looprace.loops of the object file, which the linker concatenates into the executable.
// The section is a top-level asm statement, which LTO streams and re-emits at link time, so
// -flto executables carry the table as well.
#ifndef LOOPRACE_PLUGIN_LOOP_TABLE_H
#define LOOPRACE_PLUGIN_LOOP_TABLE_H

#include "gcc_headers.h"
#include "loop_features.h"
#include "loop_identity.h"

namespace looprace {

class LoopTable {
 public:
  // Adds one row for a loop of this translation unit; `base` is its function's base_flags().
  void add(const LoopIdentity& identity, const LoopFeatures& features, const std::string& base);

  bool empty() const { return lines_.empty(); }

  // Appends all rows to path in one write(); false with errno set on failure.
  bool append_to(const std::string& path) const;

  // Adds the rows to the unit as a top-level asm statement filling .looprace.loops.
  void add_section_to_unit() const;

 private:
  std::string lines_;  // '\n'-terminated JSON objects
};

}  // namespace looprace

#endif  // LOOPRACE_PLUGIN_LOOP_TABLE_H
