#include "race/baseline_record.h"

#include <fmt/format.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "build/elf_code.h"

namespace looprace::race {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// 2: the key names the compiler and the CPU model apart (1 joined them).
constexpr int kFormat = 2;

// Size and modification time of a file: a plugin, runtime or driver rebuilt since is another.
std::string file_stamp(const fs::path& file) {
  std::error_code error;
  const auto size = fs::file_size(file, error);
  if (error) return "missing";
  return fmt::format("{}:{}", size, fs::last_write_time(file).time_since_epoch().count());
}

// The parts of a record's key, in the order a mismatch is told, with the words that tell it.
constexpr std::pair<const char*, const char*> kKeyParts[] = {
    {"build_command", "the build command differs"},
    {"run_command", "the run command differs"},
    {"srcdir", "the source directory differs"},
    {"check_files", "the checked files differ"},
    {"compiler", "the compiler differs"},
    {"cpu_model", "the CPU model differs"},
    {"cc", "the C compiler command differs"},
    {"cxx", "the C++ compiler command differs"},
    {"plugin", "the plugin file differs"},
    {"runtime", "the runtime file differs"},
    {"looprace", "the looprace executable differs"},
};

// What must be the same for the recorded build to be the build this command would make.
json record_key(const Workspace& ws, const run::MachineFacts& facts) {
  std::vector<std::string> check_files;
  for (const auto& f : ws.check_files) check_files.push_back(f.string());
  const fs::path driver = build::current_executable();
  return {{"build_command", ws.build_command},
          {"run_command", ws.run_command},
          {"srcdir", ws.srcdir.string()},
          {"check_files", check_files},
          {"compiler", facts.compiler},
          {"cpu_model", facts.cpu_model},
          {"cc", ws.toolchain.cc},
          {"cxx", ws.toolchain.cxx},
          {"plugin", {ws.toolchain.plugin.string(), file_stamp(ws.toolchain.plugin)}},
          {"runtime", {ws.toolchain.runtime.string(), file_stamp(ws.toolchain.runtime)}},
          {"looprace", {driver.string(), file_stamp(driver)}}};
}

// Why a record of key `recorded` is not this command's (`current`): each part that differs,
// with both values, so that the announcement says what changed; "" when none does.
std::string key_difference(const json& recorded, const json& current) {
  std::string why;
  for (const auto& [part, words] : kKeyParts) {
    const json was = recorded.is_object() && recorded.contains(part) ? recorded.at(part) : json();
    if (was == current.at(part)) continue;
    why += fmt::format("{}{} (recorded: {}; this command: {})", why.empty() ? "" : "; ", words,
                       was.is_null() ? "none" : was.dump(), current.at(part).dump());
  }
  return why;
}

// Bytes as hex digits: captured output need not be UTF-8, which JSON text must be.
std::string to_hex(const std::string& bytes) {
  static const char* const kDigits = "0123456789abcdef";
  std::string hex;
  hex.reserve(2 * bytes.size());
  for (unsigned char c : bytes) {
    hex += kDigits[c >> 4];
    hex += kDigits[c & 15];
  }
  return hex;
}

// The bytes to_hex wrote.
std::string from_hex(const std::string& hex) {
  std::string bytes;
  for (std::size_t i = 0; i + 1 < hex.size(); i += 2)
    bytes += static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16));
  return bytes;
}

// Captured output (a digest, a size and its first and last bytes) as JSON, and back.
json captured_json(const run::CapturedOutput& c) {
  return {
      {"digest", c.digest}, {"size", c.size}, {"head", to_hex(c.head)}, {"tail", to_hex(c.tail)}};
}

run::CapturedOutput captured_from(const json& j) {
  run::CapturedOutput c;
  c.digest = j.at("digest").get<std::string>();
  c.size = j.at("size").get<std::uint64_t>();
  c.head = from_hex(j.at("head").get<std::string>());
  c.tail = from_hex(j.at("tail").get<std::string>());
  return c;
}

// What judge_run, the timeouts and the session's facts use of the reference run.
json reference_json(const run::RunResult& r) {
  json files = json::array();
  for (const auto& f : r.files)
    files.push_back({{"path", f.path.string()},
                     {"exists", f.exists},
                     {"written", f.written},
                     {"content", captured_json(f.content)}});
  const run::RunObservations& o = r.observations;
  return {{"ending", static_cast<int>(r.process.ending)},
          {"exit_status", r.process.exit_status},
          {"term_signal", r.process.term_signal},
          {"out", captured_json(r.process.out)},
          {"wall_seconds", r.process.wall_seconds},
          {"user_seconds", r.process.user_seconds},
          {"system_seconds", r.process.system_seconds},
          {"processes_ended", o.processes_ended},
          {"processes_signaled", o.processes_signaled},
          {"tsc_hz", o.tsc_hz ? json(*o.tsc_hz) : json()},
          {"probe_cycles", o.probe_cycles ? json(*o.probe_cycles) : json()},
          {"files", files}};
}

// The reference run reference_json wrote; throws when a part of it is missing.
run::RunResult reference_from(const json& j) {
  run::RunResult r;
  r.process.ending = static_cast<run::Ending>(j.at("ending").get<int>());
  r.process.exit_status = j.at("exit_status").get<int>();
  r.process.term_signal = j.at("term_signal").get<int>();
  r.process.out = captured_from(j.at("out"));
  r.process.wall_seconds = j.at("wall_seconds").get<double>();
  r.process.user_seconds = j.at("user_seconds").get<double>();
  r.process.system_seconds = j.at("system_seconds").get<double>();
  r.observations.processes_ended = j.at("processes_ended").get<unsigned>();
  r.observations.processes_signaled = j.at("processes_signaled").get<unsigned>();
  if (!j.at("tsc_hz").is_null()) r.observations.tsc_hz = j.at("tsc_hz").get<double>();
  if (!j.at("probe_cycles").is_null())
    r.observations.probe_cycles = j.at("probe_cycles").get<double>();
  for (const auto& f : j.at("files")) {
    run::FileFingerprint fp;
    fp.path = f.at("path").get<std::string>();
    fp.exists = f.at("exists").get<bool>();
    fp.written = f.at("written").get<bool>();
    fp.content = captured_from(f.at("content"));
    r.files.push_back(std::move(fp));
  }
  return r;
}

// build_baseline's loop table and unroller records of the build in `dir`.
fs::path table_file(const fs::path& dir) { return dir.string() + ".loops.jsonl"; }
fs::path verify_file(const fs::path& dir) { return dir.string() + ".verify.jsonl"; }

// A copy of the build named by its code, made once: tasks may be reading an existing one.
void copy_build(const fs::path& from, const fs::path& to, const std::string& code) {
  if (fs::is_directory(to) && build::code_identity(to).digest == code) return;
  const fs::path partial = to.string() + ".partial";
  fs::remove_all(partial);
  build::copy_keeping_times(from, partial);
  for (const auto& [file, copy] : {std::pair{table_file(from), table_file(to)},
                                   std::pair{verify_file(from), verify_file(to)}}) {
    if (fs::exists(file)) fs::copy_file(file, copy, fs::copy_options::overwrite_existing);
  }
  fs::remove_all(to);
  fs::rename(partial, to);
}

// The record in `record` as JSON, or nullopt with `why` set: there is none, it is not JSON,
// or it is not a record of this format (one an older looprace wrote).
std::optional<json> read_record(const fs::path& record, std::string& why) {
  std::ifstream in(record);
  if (!in) {
    why =
        (fs::exists(record) ? "cannot open the record " : "there is no record ") + record.string();
    return std::nullopt;
  }
  try {
    json j = json::parse(in);
    if (j.is_object() && j.value("format", json()) == kFormat && j.contains("key")) return j;
    why = fmt::format("{} is not a baseline record of format {}", record.string(), kFormat);
  } catch (const json::parse_error& e) {
    why = fmt::format("{} is not valid JSON: {}", record.string(), e.what());
  }
  return std::nullopt;
}

// Why the build in `dir` is not the recorded one of code digest `code` (removed, or its code
// changed since it was recorded); "" when it is.
std::string build_difference(const fs::path& dir, const std::string& code) {
  if (!fs::is_directory(dir)) return fmt::format("the recorded build {} is missing", dir.string());
  const std::string now = build::code_identity(dir).digest;
  if (now == code) return "";
  return fmt::format("{} no longer holds the recorded build (code digest {}, recorded {})",
                     dir.string(), now, code);
}

}  // namespace

void save_baseline_record(const fs::path& record, const Workspace& ws,
                          const run::MachineFacts& facts, const Baseline& baseline,
                          const run::RunResult& reference) {
  const std::string code = build::code_identity(baseline.dir).digest;
  const fs::path copy = fs::absolute(record).parent_path() / ("baseline-" + code);
  fs::create_directories(copy.parent_path());
  copy_build(baseline.dir, copy, code);
  const json j = {{"format", kFormat},
                  {"key", record_key(ws, facts)},
                  {"code", code},
                  {"dir", copy.string()},
                  {"build_seconds", baseline.build_seconds},
                  {"reference", reference_json(reference)}};
  const fs::path partial = record.string() + ".partial";
  std::ofstream(partial) << j.dump(1) << "\n";
  fs::rename(partial, record);  // a task reads the old record or the new one, never half
}

std::optional<ReusedBaseline> load_baseline_record(const fs::path& record, const Workspace& ws,
                                                   const run::MachineFacts& facts,
                                                   std::string& why) {
  const std::optional<json> j = read_record(record, why);
  if (!j) return std::nullopt;
  why = key_difference(j->at("key"), record_key(ws, facts));
  if (!why.empty()) return std::nullopt;
  try {
    ReusedBaseline r;
    r.baseline.dir = j->at("dir").get<std::string>();
    why = build_difference(r.baseline.dir, j->at("code").get<std::string>());
    if (!why.empty()) return std::nullopt;
    r.baseline.build_seconds = j->at("build_seconds").get<double>();
    read_baseline(ws, r.baseline, table_file(r.baseline.dir), verify_file(r.baseline.dir));
    r.reference = reference_from(j->at("reference"));
    return r;
  } catch (const std::exception& e) {
    why = fmt::format("{} cannot be read: {}", record.string(), e.what());
    return std::nullopt;
  }
}

}  // namespace looprace::race
