#include "build/loop_table.h"

#include "build/elf_code.h"
#include "build/elf_file.h"
#include "build/toolchain.h"

#include <fmt/format.h>

#include <fstream>
#include <sstream>
#include <unordered_map>

namespace looprace::build {

std::string LoopRow::location() const { return fmt::format("{}:{}:{}", file, line, column); }

std::string LoopRow::position() const { return fmt::format("{}/{}", index, loops); }

namespace {

constexpr std::string_view kTableSection = ".looprace.loops";

std::string read_text(const std::filesystem::path& file, const std::string& what) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw Error(fmt::format("cannot read the {} {}", what, file.string()));
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// Calls `parse(json, line number)` for each non-blank line; JSON errors name origin and line.
template <typename Parse>
void for_each_json_line(std::string_view text, const std::string& origin, Parse parse) {
  std::size_t number = 0;
  while (!text.empty()) {
    std::size_t end = text.find('\n');
    std::string_view line = text.substr(0, end);
    text = end == std::string_view::npos ? std::string_view() : text.substr(end + 1);
    ++number;
    if (line.find_first_not_of(" \t\r") == std::string_view::npos) continue;
    try {
      parse(nlohmann::json::parse(line), number);
    } catch (const nlohmann::json::exception& error) {
      throw Error(fmt::format("{}: line {}: {}", origin, number, error.what()));
    }
  }
}

void check_version(const nlohmann::json& json, const std::string& origin, std::size_t line) {
  int version = json.value("v", 1);
  if (version != 1) {
    throw Error(
        fmt::format("{}: line {}: format version {} is not supported (this looprace "
                    "reads version 1; rebuild with the matching plugin)",
                    origin, line, version));
  }
}

bool is_loop_id(const std::string& text) {
  return text.size() == 16 && text.find_first_not_of("0123456789abcdef") == std::string::npos;
}

}  // namespace

LoopTable parse_loop_table(std::string_view jsonl, const std::string& origin) {
  LoopTable table;
  std::unordered_map<std::string, std::size_t> by_id;
  for_each_json_line(jsonl, origin, [&](const nlohmann::json& json, std::size_t number) {
    check_version(json, origin, number);
    LoopRow row;
    row.id = json.at("id").get<std::string>();
    if (!is_loop_id(row.id)) {
      throw Error(
          fmt::format("{}: line {}: loop id \"{}\" is not 16 hex digits", origin, number, row.id));
    }
    row.file = json.at("file").get<std::string>();
    row.line = json.at("line").get<int>();
    row.column = json.at("column").get<int>();
    row.function = json.at("function").get<std::string>();
    row.name = json.value("name", row.function);
    row.fn_line = json.value("fn_line", 0);
    row.tu = json.value("tu", row.file);
    row.depth = json.value("depth", 0);
    row.ordinal = json.value("ordinal", 0);
    row.index = json.value("index", 0);
    row.loops = json.value("loops", 0);
    row.features = json.value("features", nlohmann::json::object());
    auto [it, added] = by_id.emplace(row.id, table.rows.size());
    if (added) {
      table.rows.push_back(std::move(row));
    } else if (const LoopRow& first = table.rows[it->second]; first.file != row.file) {
      table.warnings.push_back(fmt::format("loop {} is listed at {} and at {} ({}: line {})",
                                           row.id, first.location(), row.location(), origin,
                                           number));
    }
  });
  return table;
}

LoopTable read_loop_table_file(const std::filesystem::path& file) {
  return parse_loop_table(read_text(file, "loop table"), file.string());
}

LoopTable read_loop_table_elf(const std::filesystem::path& file) {
  ElfFile elf(file);
  std::string text;
  elf.for_each_section([&](std::string_view name, const GElf_Shdr&, std::string_view bytes) {
    if (name == kTableSection) text.append(bytes);
  });
  return parse_loop_table(text, fmt::format("{} (section {})", file.string(), kTableSection));
}

LoopTable read_loop_table_dir(const std::filesystem::path& dir) {
  // Joined as text so that one id seen in two files is kept once, with the same warnings.
  std::string text;
  for (const auto& relative : linked_elf_files(dir)) {
    ElfFile elf(dir / relative);
    elf.for_each_section([&](std::string_view name, const GElf_Shdr&, std::string_view bytes) {
      if (name != kTableSection) return;
      text.append(bytes);
      if (!text.empty() && text.back() != '\n') text += '\n';
    });
  }
  return parse_loop_table(text, fmt::format("loop tables under {}", dir.string()));
}

const LoopRow* find_loop(const LoopTable& table, const std::string& selector) {
  for (const auto& row : table.rows) {
    if (row.id == selector) return &row;
  }
  // file:line:col, the file matched as a path suffix at a component boundary.
  auto last = selector.rfind(':');
  auto middle =
      last == std::string::npos || last == 0 ? std::string::npos : selector.rfind(':', last - 1);
  if (middle == std::string::npos) return nullptr;
  std::string file = selector.substr(0, middle);
  int line = 0, column = 0;
  try {
    std::size_t used = 0;
    line = std::stoi(selector.substr(middle + 1, last - middle - 1), &used);
    if (used != last - middle - 1) return nullptr;
    column = std::stoi(selector.substr(last + 1), &used);
    if (used != selector.size() - last - 1) return nullptr;
  } catch (const std::exception&) {
    return nullptr;
  }
  for (const auto& row : table.rows) {
    if (row.line != line || row.column != column) continue;
    bool suffix = row.file.size() >= file.size() &&
                  row.file.compare(row.file.size() - file.size(), file.size(), file) == 0;
    bool boundary =
        row.file.size() == file.size() || row.file[row.file.size() - file.size() - 1] == '/';
    if (suffix && boundary) return &row;
  }
  return nullptr;
}

std::map<std::string, VerifyRecord> read_verify_file(const std::filesystem::path& file) {
  std::map<std::string, VerifyRecord> records;
  std::error_code error;
  if (!std::filesystem::exists(file, error)) return records;
  for_each_json_line(read_text(file, "verify file"), file.string(),
                     [&](const nlohmann::json& json, std::size_t number) {
                       check_version(json, file.string(), number);
                       VerifyRecord record;
                       record.id = json.at("id").get<std::string>();
                       record.requested = json.at("requested").get<int>();
                       record.applied = json.at("applied").get<int>();
                       record.how = json.value("how", "");
                       if (int calls = json.value("calls", -1); calls >= 0) record.calls = calls;
                       record.innermost = json.value("innermost", true);
                       record.rtl = json.value("rtl", nlohmann::json());
                       records[record.id] = std::move(record);
                     });
  return records;
}

void add_unroller_features(nlohmann::json& features, const VerifyRecord& record) {
  if (record.requested == 0 && record.applied >= 0) features["gcc_factor"] = record.applied;
  if (record.calls) features["calls_after_inlining"] = *record.calls;
  features["innermost_after_inlining"] = record.innermost ? 1 : 0;
  if (!record.rtl.is_object()) return;
  for (const auto& [kind, count] : record.rtl.items()) features["rtl_" + kind] = count;
}

}  // namespace looprace::build
