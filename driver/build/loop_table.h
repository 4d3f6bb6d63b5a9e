// The plugin's loop table (docs/formats.md section 3), read from the `.looprace.loops` section
// of linked ELF files or from a table=PATH file, and its verify records (section 3b).
#pragma once

#include <nlohmann/json.hpp>

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace looprace::build {

struct LoopRow {
  std::string id;    // 16 hex digits
  std::string file;  // as GCC spelled it
  int line = 0;
  int column = 0;
  std::string function;  // assembler name
  std::string name;      // readable function name
  int fn_line = 0;
  std::string tu;  // translation unit
  int depth = 0;
  int ordinal = 0;
  int index = 0;  // preorder position in the function
  int loops = 0;  // loops in the function
  nlohmann::json features = nlohmann::json::object();

  std::string location() const;  // "file:line:column"
  std::string position() const;  // "index/loops"
};

struct LoopTable {
  std::vector<LoopRow> rows;          // one per id, in first-seen order
  std::vector<std::string> warnings;  // e.g. one id with two different paths
};

// Parses JSON Lines; `origin` names the source in errors ("<file>: line 3: ...").
// Rows with the same id (a header's loop seen by several TUs) are kept once.
LoopTable parse_loop_table(std::string_view jsonl, const std::string& origin);
LoopTable read_loop_table_file(const std::filesystem::path& file);
// The `.looprace.loops` section of one ELF file (an empty table when it has none).
LoopTable read_loop_table_elf(const std::filesystem::path& file);
// The union over every linked ELF file under `dir` (see elf_code.h for which files count).
LoopTable read_loop_table_dir(const std::filesystem::path& dir);

// Finds a loop by id or by "file:line:col" (file matched as a path suffix); nullptr if none.
const LoopRow* find_loop(const LoopTable& table, const std::string& selector);

struct VerifyRecord {
  std::string id;
  int requested = 0;
  int applied = 0;  // copies of the body in the final code; 0 = fully unrolled away,
                    // -1 = unknown (how = "not-found")
  std::string how;  // why it differs from the request, when it does (docs/formats.md 3b)
  // Calls the loop's body still makes at the RTL unroller, after inlining (the most of any
  // copy); nullopt when no copy reached it, or in records of an older plugin.
  std::optional<int> calls;
  bool innermost = true;  // false: a copy holds other loops at the unroller (inlined ones)
  nlohmann::json rtl;     // the body at the unroller by kind of instruction; null if unknown
};

// Adds what the RTL unroller saw of a loop to its table features, under stable names:
// gcc_factor (the copies GCC's own heuristic made, requested factor 0; 0 = unrolled
// completely before RTL), calls_after_inlining, innermost_after_inlining and rtl_<kind> for
// every count of `rtl` (insns, loads, stores, fp, vector, divides, branches, calls).
void add_unroller_features(nlohmann::json& features, const VerifyRecord& record);

// Verify records by id; the last record for an id wins (a TU compiled twice). A missing file
// gives an empty map: the plugin writes records only for loops it saw.
std::map<std::string, VerifyRecord> read_verify_file(const std::filesystem::path& file);

}  // namespace looprace::build
