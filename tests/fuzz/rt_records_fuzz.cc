// libFuzzer target: the parser of the runtime's records (driver/run/rt_records.h), which reads
// whatever a program under test left in LOOPRACE_OUT. Any input: no crash, no hang, no sanitizer
// report; what it accepts keeps the documented ranges.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "run/rt_records.h"

namespace lr = looprace::run;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  lr::RtRecords records = lr::parse_rt_records(text);
  for (const lr::RtProcessRecords& process : records.processes) {
    if (process.pid < 1 || process.ppid < 0 || process.tsc_hz == 0) __builtin_trap();
    if (process.status < 0 || process.status > 255) __builtin_trap();
    for (const lr::RtLoopRecord& loop : process.loops) {
      int previous = -1;
      for (const lr::RtBucket& bucket : loop.histogram) {
        if (bucket.bucket <= previous || bucket.bucket >= lr::kRtHistogramBuckets) __builtin_trap();
        if (bucket.entries == 0) __builtin_trap();
        previous = bucket.bucket;
      }
    }
  }
  for (const lr::RtParseProblem& problem : records.problems) {
    if (problem.line < 1 || problem.message.empty()) __builtin_trap();
  }
  return 0;
}
