// Parser of the runtime records (docs/formats.md section 6).
#include "run/rt_records.h"

#include <charconv>
#include <map>
#include <optional>
#include <string>
#include <variant>

namespace looprace::run {

std::uint64_t rt_bucket_floor(int bucket) { return bucket == 0 ? 0 : std::uint64_t{1} << bucket; }

namespace {

// The key=value tokens of one line after `looprace-rt <version> <kind>`.
using Fields = std::map<std::string_view, std::string_view, std::less<>>;

struct Line {
  std::string_view kind;
  Fields fields;
};

std::optional<std::uint64_t> to_u64(std::string_view text) {
  std::uint64_t value = 0;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || text.empty()) return std::nullopt;
  return value;
}

std::optional<long> to_long(std::string_view text) {
  long value = 0;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || text.empty()) return std::nullopt;
  return value;
}

bool is_loop_id(std::string_view text) {
  if (text.size() != 16) return false;
  for (char c : text)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  return true;
}

// Splits a line into its kind and fields; the error message when it is not a record line.
std::variant<Line, std::string> split_line(std::string_view text) {
  std::vector<std::string_view> tokens;
  while (!text.empty()) {
    std::size_t blank = text.find(' ');
    std::string_view token = text.substr(0, blank);
    if (token.empty()) return std::string("empty token (two blanks in a row)");
    tokens.push_back(token);
    if (blank == std::string_view::npos) break;
    text.remove_prefix(blank + 1);
    if (text.empty()) return std::string("trailing blank");
  }
  if (tokens.size() < 3 || tokens[0] != "looprace-rt")
    return std::string("not a looprace-rt record line");
  if (tokens[1] != std::to_string(kRtRecordsVersion))
    return "unsupported records version " + std::string(tokens[1]) + " (this looprace reads " +
           std::to_string(kRtRecordsVersion) + ")";
  Line line{tokens[2], {}};
  for (std::size_t i = 3; i < tokens.size(); ++i) {
    std::size_t equals = tokens[i].find('=');
    if (equals == std::string_view::npos)
      return "token '" + std::string(tokens[i]) + "' is not key=value";
    // Later versions may add fields; version 1 readers skip the ones they do not know.
    if (!line.fields.emplace(tokens[i].substr(0, equals), tokens[i].substr(equals + 1)).second)
      return "key '" + std::string(tokens[i].substr(0, equals)) + "' given twice";
  }
  return line;
}

// Reads required fields, remembering the first problem.
class FieldReader {
 public:
  explicit FieldReader(const Fields& fields) : fields_(fields) {}

  std::uint64_t u64(std::string_view key) {
    std::string_view text = raw(key);
    if (!error_.empty()) return 0;
    std::optional<std::uint64_t> value = to_u64(text);
    if (!value) fail(key, text, "an unsigned integer");
    return value.value_or(0);
  }

  bool has(std::string_view key) const { return fields_.count(key) != 0; }
  // An optional field: 0 when absent (records written before the field existed).
  std::uint64_t optional_u64(std::string_view key) { return has(key) ? u64(key) : 0; }
  // A required non-negative integer no larger than `max`.
  long bounded(std::string_view key, long min, long max) {
    long value = signed_long(key);
    if (error_.empty() && (value < min || value > max)) {
      fail(key, raw(key), "between " + std::to_string(min) + " and " + std::to_string(max));
    }
    return value;
  }
  long signed_long(std::string_view key) {
    std::string_view text = raw(key);
    if (!error_.empty()) return 0;
    std::optional<long> value = to_long(text);
    if (!value) fail(key, text, "an integer");
    return value.value_or(0);
  }

  bool flag(std::string_view key) {
    std::string_view text = raw(key);
    if (!error_.empty()) return false;
    if (text != "0" && text != "1") fail(key, text, "0 or 1");
    return text == "1";
  }

  std::string_view raw(std::string_view key) {
    auto found = fields_.find(key);
    if (found != fields_.end()) return found->second;
    if (error_.empty()) error_ = "missing " + std::string(key) + "=";
    return {};
  }

  void fail(std::string_view key, std::string_view text, std::string_view expected) {
    if (error_.empty())
      error_ = std::string(key) + "=" + std::string(text) + " is not " + std::string(expected);
  }

  const std::string& error() const { return error_; }

 private:
  const Fields& fields_;
  std::string error_;
};

inline constexpr long kMaxPid = 4194304;

// "b:entries:cycles,..." with increasing buckets below kRtHistogramBuckets; nullopt if malformed.
std::optional<std::vector<RtBucket>> parse_histogram(std::string_view text) {
  std::vector<RtBucket> buckets;
  while (!text.empty()) {
    std::size_t comma = text.find(',');
    std::string_view item = text.substr(0, comma);
    text.remove_prefix(comma == std::string_view::npos ? text.size() : comma + 1);
    std::size_t first = item.find(':');
    std::size_t second = first == std::string_view::npos ? first : item.find(':', first + 1);
    if (second == std::string_view::npos) return std::nullopt;
    auto bucket = to_u64(item.substr(0, first));
    auto entries = to_u64(item.substr(first + 1, second - first - 1));
    auto cycles = to_u64(item.substr(second + 1));
    if (!bucket || !entries || !cycles || *bucket >= kRtHistogramBuckets || *entries == 0 ||
        (!buckets.empty() && int(*bucket) <= buckets.back().bucket))
      return std::nullopt;
    buckets.push_back({int(*bucket), *entries, *cycles});
  }
  return buckets;
}

struct Identity {
  long pid = 0;
  long ppid = 0;
  bool forked = false;
  bool operator==(const Identity&) const = default;
};

Identity read_identity(FieldReader& reader) {
  Identity identity;
  // Linux pids are positive and below 2^22; a parent may be 0 (started by the kernel).
  identity.pid = reader.bounded("pid", 1, kMaxPid);
  identity.ppid = reader.bounded("ppid", 0, kMaxPid);
  identity.forked = reader.flag("forked");
  return identity;
}

RtLoopRecord read_loop(FieldReader& reader) {
  RtLoopRecord loop;
  std::string_view id = reader.raw("id");
  if (reader.error().empty() && !is_loop_id(id)) reader.fail("id", id, "16 lower-case hex digits");
  loop.id = std::string(id);
  loop.entries = reader.u64("entries");
  loop.cycles = reader.u64("cycles");
  loop.min = reader.u64("min");
  loop.max = reader.u64("max");
  loop.migrated = reader.u64("migrated");
  loop.nested = reader.u64("nested");
  loop.threads = reader.u64("threads");
  if (reader.error().empty() && reader.has("hist")) {
    std::string_view text = reader.raw("hist");
    auto histogram = parse_histogram(text);
    if (!histogram) {
      reader.fail("hist", text, "bucket:entries:cycles items with increasing buckets below 64");
    } else {
      loop.histogram = std::move(*histogram);
    }
  }
  return loop;
}

void read_end(FieldReader& reader, RtProcessRecords& process, std::uint64_t& loops) {
  loops = reader.u64("loops");
  std::string_view how = reader.raw("how");
  if (reader.error().empty() && how != "exit" && how != "signal")
    reader.fail("how", how, "exit or signal");
  process.how = how == "signal" ? RtExitHow::signal : RtExitHow::exit;
  // An exit status is 0..255; a signal number 1..64.
  process.status = static_cast<int>(how == "signal" ? reader.bounded("status", 1, 64)
                                                    : reader.bounded("status", 0, 255));
  process.tsc_hz = reader.u64("tsc_hz");
  if (reader.error().empty() && process.tsc_hz == 0) reader.fail("tsc_hz", "0", "positive");
  process.probe = reader.u64("probe");
  process.probe_call = reader.u64("probe_call");
  process.dropped = reader.u64("dropped");
  process.nivcsw = reader.optional_u64("nivcsw");
  process.run_delay_ns = reader.optional_u64("run_delay_ns");
  process.steal_ticks = reader.optional_u64("steal_ticks");
  process.off_cpu_ns = reader.optional_u64("off_cpu_ns");
}

// Loop lines seen since the last end line: one process's block, until its end line comes.
struct PendingBlock {
  Identity identity;
  std::size_t first_line = 0;
  std::vector<RtLoopRecord> loops;
};

void report_unclosed(const PendingBlock& block, std::vector<RtParseProblem>& problems) {
  problems.push_back({block.first_line, std::to_string(block.loops.size()) +
                                            " loop line(s) of pid " +
                                            std::to_string(block.identity.pid) +
                                            " without their end line (the process died while "
                                            "writing, or the file was cut)"});
}

}  // namespace

RtRecords parse_rt_records(std::string_view text) {
  RtRecords records;
  std::optional<PendingBlock> pending;
  // A line of another process ends the pending block, which then never got its end line.
  auto close_other_process = [&](const Identity& identity) {
    if (pending && !(pending->identity == identity)) {
      report_unclosed(*pending, records.problems);
      pending.reset();
    }
  };
  std::size_t line_number = 0;
  while (!text.empty()) {
    ++line_number;
    std::size_t newline = text.find('\n');
    std::string_view line_text = text.substr(0, newline);
    text.remove_prefix(newline == std::string_view::npos ? text.size() : newline + 1);
    if (line_text.empty()) continue;

    auto split = split_line(line_text);
    if (auto* message = std::get_if<std::string>(&split)) {
      records.problems.push_back({line_number, *message});
      continue;
    }
    const Line& line = std::get<Line>(split);
    FieldReader reader(line.fields);
    Identity identity = read_identity(reader);
    if (line.kind == "loop") {
      RtLoopRecord loop = read_loop(reader);
      if (!reader.error().empty()) {
        records.problems.push_back({line_number, reader.error()});
        continue;
      }
      close_other_process(identity);
      if (!pending) pending = PendingBlock{identity, line_number, {}};
      pending->loops.push_back(std::move(loop));
    } else if (line.kind == "end") {
      RtProcessRecords process;
      std::uint64_t loops = 0;
      read_end(reader, process, loops);
      if (!reader.error().empty()) {
        records.problems.push_back({line_number, reader.error()});
        continue;
      }
      close_other_process(identity);
      std::size_t seen = pending ? pending->loops.size() : 0;
      if (seen != loops) {
        records.problems.push_back({line_number, "end line of pid " + std::to_string(identity.pid) +
                                                     " announces loops=" + std::to_string(loops) +
                                                     " but follows " + std::to_string(seen) +
                                                     " loop line(s)"});
        pending.reset();
        continue;
      }
      process.pid = identity.pid;
      process.ppid = identity.ppid;
      process.forked = identity.forked;
      if (pending) process.loops = std::move(pending->loops);
      pending.reset();
      records.processes.push_back(std::move(process));
    } else {
      records.problems.push_back(
          {line_number, "unknown record kind '" + std::string(line.kind) + "'"});
    }
  }
  if (pending) report_unclosed(*pending, records.problems);
  return records;
}

}  // namespace looprace::run
