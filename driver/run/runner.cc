#include "run/runner.h"

#include "run/digest.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstring>
#include <fstream>
#include <random>
#include <system_error>

namespace looprace::run {

std::size_t env_padding_length(std::uint64_t layout_seed) {
  // Up to one page: the stack start moves through every alignment that matters.
  std::mt19937_64 random(layout_seed);
  return std::uniform_int_distribution<std::size_t>(0, 4095)(random);
}

void reload_pages(const std::vector<std::filesystem::path>& files, std::uint64_t seed) {
  std::vector<int> dropped;
  for (const auto& file : files) {
    int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) continue;
    ::posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
    dropped.push_back(fd);
  }
  // The kernel hands out the pages it freed last first: read back at once, the files would
  // get the pages they just gave up. A random number of pages taken and touched in between
  // makes them land elsewhere each time.
  const std::size_t page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  const std::size_t churn = page * (1 + std::mt19937_64(seed)() % 1023);
  void* taken = ::mmap(nullptr, churn, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (taken != MAP_FAILED) {
    for (std::size_t offset = 0; offset < churn; offset += page)
      static_cast<volatile char*>(taken)[offset] = 1;
  }
  std::vector<char> buffer(std::size_t{1} << 16);
  for (int fd : dropped) {
    while (::read(fd, buffer.data(), buffer.size()) > 0) {
    }
    ::close(fd);
  }
  if (taken != MAP_FAILED) ::munmap(taken, churn);
}

namespace {

FileFingerprint fingerprint_file(const std::filesystem::path& path, const CaptureLimits& limits) {
  FileFingerprint result;
  result.path = path;
  std::ifstream in(path, std::ios::binary);
  if (!in) return result;
  result.exists = true;
  Digest digest;
  std::vector<char> buffer(64 * 1024);
  while (in) {
    in.read(buffer.data(), std::streamsize(buffer.size()));
    std::size_t got = std::size_t(in.gcount());
    if (got == 0) break;
    std::string_view bytes(buffer.data(), got);
    digest.update(bytes);
    result.content.size += got;
    if (result.content.head.size() < limits.head_bytes) {
      result.content.head.append(bytes.substr(0, limits.head_bytes - result.content.head.size()));
    }
  }
  result.content.digest = digest.hex();
  return result;
}

struct FileStamp {
  std::filesystem::file_time_type modified;
  std::uintmax_t size;
  bool operator==(const FileStamp&) const = default;
};

std::optional<FileStamp> stamp(const std::filesystem::path& file) {
  std::error_code error;
  auto modified = std::filesystem::last_write_time(file, error);
  if (error) return std::nullopt;
  auto size = std::filesystem::file_size(file, error);
  if (error) return std::nullopt;
  return FileStamp{modified, size};
}

}  // namespace

RunResult execute_run(const RunSpec& spec) {
  RunResult result;
  ProcessSpec process;
  process.command = spec.command;
  process.cwd = spec.cwd;
  process.env = spec.env;
  process.timeout = spec.timeout;
  process.pin_cpu = spec.pin_cpu;
  process.limits = spec.limits;
  if (!spec.records_file.empty()) {
    std::error_code ignored;
    std::filesystem::remove(spec.records_file, ignored);
    process.env.set("LOOPRACE_OUT", std::filesystem::absolute(spec.records_file).string());
  } else {
    process.env.unset("LOOPRACE_OUT");
  }
  if (spec.layout_seed) {
    result.env_padding = env_padding_length(*spec.layout_seed);
    process.env.set("LOOPRACE_PAD", std::string(result.env_padding, 'x'));
  } else {
    process.env.unset("LOOPRACE_PAD");
  }
  // A file an earlier run left must not pass for this run's output; it is not deleted (it
  // might be an input named by mistake) but remembered, to see whether the run rewrote it.
  std::vector<std::optional<FileStamp>> before;
  for (const auto& file : spec.check_files) before.push_back(stamp(spec.cwd / file));
  reload_pages(spec.fresh_pages, spec.layout_seed.value_or(std::random_device{}()));
  result.process = run_process(process);
  if (!spec.records_file.empty()) result.observations = read_records_file(spec.records_file);
  for (std::size_t i = 0; i < spec.check_files.size(); ++i) {
    FileFingerprint print = fingerprint_file(spec.cwd / spec.check_files[i], spec.limits);
    print.path = spec.check_files[i];
    print.written = print.exists && stamp(spec.cwd / spec.check_files[i]) != before[i];
    result.files.push_back(std::move(print));
  }
  return result;
}

std::vector<RunResult> execute_in_order(const std::vector<RunSpec>& specs) {
  std::vector<RunResult> results;
  results.reserve(specs.size());
  for (const auto& spec : specs) results.push_back(execute_run(spec));
  return results;
}

namespace {

// Printable excerpt of `text` around `pos` on one line, with escapes for control bytes.
std::string excerpt(const std::string& text, std::size_t pos) {
  std::size_t begin = text.rfind('\n', pos == 0 ? 0 : pos - 1);
  begin = begin == std::string::npos || pos == 0 ? 0 : begin + 1;
  if (pos - begin > 40) begin = pos - 40;
  std::size_t end = std::min(text.find('\n', pos), begin + 80);
  end = std::min(end, text.size());
  std::string shown;
  for (char c : text.substr(begin, end - begin)) {
    unsigned char byte = static_cast<unsigned char>(c);
    if (byte < 0x20 || byte == 0x7f) {
      shown += fmt::format("\\x{:02x}", byte);
    } else {
      shown += c;
    }
  }
  return "\"" + shown + "\"";
}

}  // namespace

std::optional<std::string> describe_difference(const CapturedOutput& expected,
                                               const CapturedOutput& actual,
                                               const std::string& what) {
  if (expected.digest == actual.digest && expected.size == actual.size) return std::nullopt;
  const std::string& a = expected.head;
  const std::string& b = actual.head;
  std::size_t common = std::min(a.size(), b.size());
  std::size_t pos = std::mismatch(a.begin(), a.begin() + long(common), b.begin()).first - a.begin();
  if (pos == common && !(a.size() != b.size() && (expected.complete() || actual.complete()))) {
    // Identical as far as both heads go: the difference is beyond what was kept.
    return fmt::format("{} differs after the first {} bytes ({} bytes expected, {} bytes got)",
                       what, common, expected.size, actual.size);
  }
  std::size_t line = 1 + std::size_t(std::count(a.begin(), a.begin() + long(pos), '\n'));
  std::size_t line_start = pos == 0 ? std::string::npos : a.rfind('\n', pos - 1);
  std::size_t column = line_start == std::string::npos ? pos + 1 : pos - line_start;
  std::string where = fmt::format("line {}, column {} (byte {})", line, column, pos);
  if (pos == common) {
    if (a.size() < b.size()) {
      return fmt::format("{} has extra output from {}: {}", what, where, excerpt(b, pos));
    }
    return fmt::format("{} ends early at {}; expected {}", what, where, excerpt(a, pos));
  }
  return fmt::format("{} differs at {}: expected {}, got {}", what, where, excerpt(a, pos),
                     excerpt(b, pos));
}

const char* failure_name(Failure failure) {
  switch (failure) {
    case Failure::none:
      return "ok";
    case Failure::spawn_failed:
      return "spawn-failed";
    case Failure::timed_out:
      return "timed-out";
    case Failure::crashed:
      return "crashed";
    case Failure::status_differs:
      return "status-differs";
    case Failure::output_differs:
      return "output-differs";
    case Failure::file_differs:
      return "file-differs";
    case Failure::no_records:
      return "no-records";
  }
  return "unknown";
}

Judgement judge_run(const RunResult& baseline, const RunResult& candidate,
                    const CheckOptions& options, bool need_records) {
  const ProcessResult& run = candidate.process;
  auto stderr_tail = [&run]() {
    std::string tail = last_lines(run.err.tail, 5);
    return tail.empty() ? std::string() : "; last lines of its stderr:\n" + tail;
  };
  switch (run.ending) {
    case Ending::spawn_failed:
      return {Failure::spawn_failed, run.describe()};
    case Ending::timed_out:
      return {Failure::timed_out, run.describe() + " (the limit is --timeout SECONDS)"};
    case Ending::signaled:
      return {Failure::crashed, run.describe() + stderr_tail()};
    case Ending::exited:
      break;
  }
  // /bin/sh reports a program killed by signal N as exit status 128+N.
  int status = run.exit_status;
  if (status != baseline.process.exit_status && status > 128 && status < 128 + NSIG) {
    return {Failure::crashed,
            fmt::format("exit status {}: killed by signal {} ({}), as the shell reports it{}",
                        status, status - 128, strsignal(status - 128), stderr_tail())};
  }
  if (candidate.observations.processes_signaled > baseline.observations.processes_signaled) {
    return {Failure::crashed,
            fmt::format("{} of its processes died by a signal (the runtime's records say so){}",
                        candidate.observations.processes_signaled, stderr_tail())};
  }
  if (options.check_output) {
    if (run.exit_status != baseline.process.exit_status) {
      return {Failure::status_differs,
              fmt::format("exit status {} where the baseline gave {}{}", run.exit_status,
                          baseline.process.exit_status, stderr_tail())};
    }
    if (auto diff = describe_difference(baseline.process.out, run.out, "stdout")) {
      return {Failure::output_differs, *diff};
    }
  }
  for (std::size_t i = 0; i < candidate.files.size() && i < baseline.files.size(); ++i) {
    const FileFingerprint& want = baseline.files[i];
    const FileFingerprint& got = candidate.files[i];
    std::string what = want.path.string();
    if (!got.exists) {
      return {Failure::file_differs, fmt::format("{} was not written", what)};
    }
    if (!got.written) {
      return {Failure::file_differs,
              fmt::format("{} was not written by this run (it is an earlier run's file)", what)};
    }
    if (auto diff = describe_difference(want.content, got.content, what)) {
      return {Failure::file_differs, *diff};
    }
  }
  if (need_records && !candidate.observations.complete()) {
    return {Failure::no_records,
            "no process of the run wrote its looprace records (was LOOPRACE_OUT cleared, or "
            "does the run command start the variant's program?)"};
  }
  return {};
}

}  // namespace looprace::run
