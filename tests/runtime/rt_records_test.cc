// The records parser (driver/run/rt_records.cc) against the runtime's own formatter
// (runtime/rt_format.c): round trips of random records, and malformed input.
#include "run/rt_records.h"

#include <gtest/gtest.h>

#include <cinttypes>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "rt_format.h"

namespace looprace::run {
namespace {

std::string format_loop(const rt_process_line& process, const rt_loop_line& loop) {
  std::string line(RT_LINE_MAX, '\0');
  line.resize(rt_format_loop_line(line.data(), &process, &loop));
  return line;
}

std::string format_end(const rt_process_line& process, const rt_end_line& end) {
  std::string line(RT_LINE_MAX, '\0');
  line.resize(rt_format_end_line(line.data(), &process, &end));
  return line;
}

std::string hex_id(std::uint64_t id) {
  char text[17];
  std::snprintf(text, sizeof text, "%016" PRIx64, id);
  return text;
}

// Values with every digit count, including the extremes.
std::uint64_t random_u64(std::mt19937_64& random) {
  switch (random() % 4) {
    case 0:
      return UINT64_MAX;
    case 1:
      return 0;
    default:
      return random() >> (random() % 64);
  }
}

TEST(RtRecords, RoundTripOfRandomProcessBlocks) {
  std::mt19937_64 random(20261121);
  for (int trial = 0; trial < 200; ++trial) {
    std::string text;
    std::vector<rt_process_line> processes;
    std::vector<std::vector<rt_loop_line>> loops;
    std::vector<rt_end_line> ends;
    int process_count = 1 + static_cast<int>(random() % 4);
    for (int p = 0; p < process_count; ++p) {
      rt_process_line process{static_cast<std::int64_t>(random() % 4194304) + 1,
                              static_cast<std::int64_t>(random() % 4194305), int(random() % 2)};
      std::vector<rt_loop_line> process_loops(random() % 5);
      for (rt_loop_line& loop : process_loops) {
        loop = {random_u64(random),
                random_u64(random),
                random_u64(random),
                random_u64(random),
                random_u64(random),
                random_u64(random),
                random_u64(random),
                random_u64(random),
                {},
                {}};
        for (int b = 0; b < RT_HIST_MAX; ++b) {
          if (random() % 3 != 0) continue;
          loop.hist_entries[b] = random_u64(random) | 1;  // a written bucket is never empty
          loop.hist_cycles[b] = random_u64(random);
        }
        text += format_loop(process, loop);
      }
      bool signaled = random() % 2;
      rt_end_line end{process_loops.size(),
                      signaled ? RT_EXIT_SIGNAL : RT_EXIT_NORMAL,
                      signaled ? static_cast<std::int64_t>(1 + random() % 64)
                               : static_cast<std::int64_t>(random() % 256),
                      random_u64(random) | 1,  // a TSC frequency is never 0
                      random_u64(random),
                      random_u64(random),
                      random_u64(random),
                      random_u64(random),
                      random_u64(random),
                      random_u64(random),
                      random_u64(random)};
      text += format_end(process, end);
      processes.push_back(process);
      loops.push_back(process_loops);
      ends.push_back(end);
    }

    RtRecords records = parse_rt_records(text);
    ASSERT_EQ(records.problems.size(), 0u) << text;
    ASSERT_EQ(records.processes.size(), processes.size());
    for (std::size_t p = 0; p < processes.size(); ++p) {
      const RtProcessRecords& parsed = records.processes[p];
      EXPECT_EQ(parsed.pid, processes[p].pid);
      EXPECT_EQ(parsed.ppid, processes[p].ppid);
      EXPECT_EQ(parsed.forked, processes[p].forked == 1);
      EXPECT_EQ(parsed.how == RtExitHow::signal, ends[p].how == RT_EXIT_SIGNAL);
      EXPECT_EQ(parsed.status, ends[p].status);
      EXPECT_EQ(parsed.tsc_hz, ends[p].tsc_hz);
      EXPECT_EQ(parsed.probe, ends[p].probe);
      EXPECT_EQ(parsed.probe_call, ends[p].probe_call);
      EXPECT_EQ(parsed.dropped, ends[p].dropped);
      EXPECT_EQ(parsed.nivcsw, ends[p].nivcsw);
      EXPECT_EQ(parsed.run_delay_ns, ends[p].run_delay_ns);
      EXPECT_EQ(parsed.steal_ticks, ends[p].steal_ticks);
      EXPECT_EQ(parsed.off_cpu_ns, ends[p].off_cpu_ns);
      ASSERT_EQ(parsed.loops.size(), loops[p].size());
      for (std::size_t l = 0; l < loops[p].size(); ++l) {
        const RtLoopRecord& loop = parsed.loops[l];
        const rt_loop_line& written = loops[p][l];
        EXPECT_EQ(loop.id, hex_id(written.id));
        EXPECT_EQ(loop.entries, written.entries);
        EXPECT_EQ(loop.cycles, written.cycles);
        EXPECT_EQ(loop.min, written.min);
        EXPECT_EQ(loop.max, written.max);
        EXPECT_EQ(loop.migrated, written.migrated);
        EXPECT_EQ(loop.nested, written.nested);
        EXPECT_EQ(loop.threads, written.threads);
        std::vector<RtBucket> histogram;
        for (int b = 0; b < RT_HIST_MAX; ++b) {
          if (written.hist_entries[b] != 0)
            histogram.push_back({b, written.hist_entries[b], written.hist_cycles[b]});
        }
        EXPECT_EQ(loop.histogram, histogram);
      }
    }
  }
}

TEST(RtRecords, LongestLinesFitTheBuffer) {
  rt_process_line process{INT64_MIN, INT64_MIN, 1};
  rt_loop_line loop{UINT64_MAX, UINT64_MAX, UINT64_MAX, UINT64_MAX, UINT64_MAX,
                    UINT64_MAX, UINT64_MAX, UINT64_MAX, {},         {}};
  for (int b = 0; b < RT_HIST_MAX; ++b) loop.hist_entries[b] = loop.hist_cycles[b] = UINT64_MAX;
  rt_end_line end{UINT64_MAX, RT_EXIT_SIGNAL, INT64_MIN,  UINT64_MAX, UINT64_MAX, UINT64_MAX,
                  UINT64_MAX, UINT64_MAX,     UINT64_MAX, UINT64_MAX, UINT64_MAX};
  EXPECT_LE(format_loop(process, loop).size(), std::size_t{RT_LINE_MAX});
  EXPECT_LE(format_end(process, end).size(), std::size_t{RT_LINE_MAX});
}

TEST(RtRecords, ReadsTheDocumentedExample) {
  RtRecords records = parse_rt_records(
      "looprace-rt 1 loop pid=4242 ppid=4200 forked=0 id=1a2b3c4d5e6f7081 entries=10 "
      "cycles=1234567 min=100 max=1100000 migrated=0 nested=0 threads=1 "
      "hist=6:8:900,17:1:133667,20:1:1100000\n"
      "looprace-rt 1 end pid=4242 ppid=4200 forked=0 loops=1 how=exit status=0 "
      "tsc_hz=2600000000 probe=52 probe_call=134 dropped=0 nivcsw=1 run_delay_ns=0 "
      "steal_ticks=0 off_cpu_ns=31000\n");
  ASSERT_TRUE(records.problems.empty());
  ASSERT_EQ(records.processes.size(), 1u);
  EXPECT_EQ(records.processes[0].loops.at(0).id, "1a2b3c4d5e6f7081");
  EXPECT_EQ(records.processes[0].loops.at(0).cycles, 1234567u);
  EXPECT_EQ(records.processes[0].tsc_hz, 2600000000u);
  EXPECT_EQ(records.processes[0].loops.at(0).histogram,
            (std::vector<RtBucket>{{6, 8, 900}, {17, 1, 133667}, {20, 1, 1100000}}));
  EXPECT_EQ(records.processes[0].nivcsw, 1u);
  EXPECT_EQ(records.processes[0].off_cpu_ns, 31000u);
}

TEST(RtRecords, LoopLinesWithoutTheirEndLineAreNotAProcess) {
  std::string text =
      "looprace-rt 1 loop pid=7 ppid=1 forked=0 id=0000000000000001 entries=1 cycles=5 min=5 "
      "max=5 migrated=0 nested=0 threads=1\n";
  RtRecords records = parse_rt_records(text);
  EXPECT_TRUE(records.processes.empty());
  ASSERT_EQ(records.problems.size(), 1u);
  EXPECT_EQ(records.problems[0].line, 1u);
  EXPECT_NE(records.problems[0].message.find("without their end line"), std::string::npos);
}

TEST(RtRecords, AnEndLineClosesOnlyItsOwnProcess) {
  // pid 7's block was cut; pid 8's block is complete.
  std::string text =
      "looprace-rt 1 loop pid=7 ppid=1 forked=0 id=0000000000000001 entries=1 cycles=5 min=5 "
      "max=5 migrated=0 nested=0 threads=1\n"
      "looprace-rt 1 end pid=8 ppid=1 forked=0 loops=0 how=exit status=0 tsc_hz=1 probe=1 "
      "probe_call=1 dropped=0\n";
  RtRecords records = parse_rt_records(text);
  ASSERT_EQ(records.processes.size(), 1u);
  EXPECT_EQ(records.processes[0].pid, 8);
  ASSERT_EQ(records.problems.size(), 1u);
  EXPECT_EQ(records.problems[0].line, 1u);
}

TEST(RtRecords, EndLineMustCountItsLoops) {
  RtRecords records = parse_rt_records(
      "looprace-rt 1 end pid=8 ppid=1 forked=0 loops=2 how=exit status=0 tsc_hz=1 probe=1 "
      "probe_call=1 dropped=0\n");
  EXPECT_TRUE(records.processes.empty());
  ASSERT_EQ(records.problems.size(), 1u);
  EXPECT_NE(records.problems[0].message.find("loops=2"), std::string::npos);
}

TEST(RtRecords, MalformedLinesAreReportedWithTheirLineNumber) {
  const std::string end =
      " pid=8 ppid=1 forked=0 loops=0 how=exit status=0 tsc_hz=1 probe=1 probe_call=1 dropped=0";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"garbage", "not a looprace-rt record line"},
      {"looprace-rt 2 end" + end, "unsupported records version 2"},
      {"looprace-rt 1 begin" + end, "unknown record kind 'begin'"},
      {"looprace-rt 1 end pid=8 ppid=1 forked=0 loops=0 how=exit status=0", "missing tsc_hz="},
      {"looprace-rt 1 end" + end + " pid=9", "key 'pid' given twice"},
      {"looprace-rt 1 end pid=x ppid=1 forked=0 loops=0 how=exit status=0 tsc_hz=1 probe=1 "
       "probe_call=1 dropped=0",
       "pid=x is not an integer"},
      {"looprace-rt 1 end pid=8 ppid=1 forked=2 loops=0 how=exit status=0 tsc_hz=1 probe=1 "
       "probe_call=1 dropped=0",
       "forked=2 is not 0 or 1"},
      {"looprace-rt 1 end pid=8 ppid=1 forked=0 loops=0 how=crash status=0 tsc_hz=1 probe=1 "
       "probe_call=1 dropped=0",
       "how=crash is not exit or signal"},
      {"looprace-rt 1 end pid=8 ppid=1 forked=0 loops=-1 how=exit status=0 tsc_hz=1 probe=1 "
       "probe_call=1 dropped=0",
       "loops=-1 is not an unsigned integer"},
      {"looprace-rt 1 loop pid=8 ppid=1 forked=0 id=1A2B3C4D5E6F7081 entries=1 cycles=1 min=1 "
       "max=1 migrated=0 nested=0 threads=1",
       "id=1A2B3C4D5E6F7081 is not 16 lower-case hex digits"},
      {"looprace-rt 1 end pid=8 ppid=1 forked=0 loops=0 how=exit status=4294967296 tsc_hz=1 "
       "probe=1 probe_call=1 dropped=0",
       "status=4294967296 is not between 0 and 255"},
      {"looprace-rt 1 end pid=8 ppid=1 forked=0 loops=0 how=signal status=0 tsc_hz=1 "
       "probe=1 probe_call=1 dropped=0",
       "status=0 is not between 1 and 64"},
      {"looprace-rt 1 end pid=-5 ppid=1 forked=0 loops=0 how=exit status=0 tsc_hz=1 probe=1 "
       "probe_call=1 dropped=0",
       "pid=-5 is not between 1 and 4194304"},
      {"looprace-rt 1 end pid=8 ppid=1 forked=0 loops=0 how=exit status=0 tsc_hz=0 probe=1 "
       "probe_call=1 dropped=0",
       "tsc_hz=0 is not positive"},
      {"looprace-rt 1 loop pid=8 ppid=1 forked=0 id=1a2b3c4d5e6f7081 entries=1 cycles=1 min=1 "
       "max=1 migrated=0 nested=0 threads=1 hist=5:1:1,3:1:1",
       "with increasing buckets"},
      {"looprace-rt 1 loop pid=8 ppid=1 forked=0 id=1a2b3c4d5e6f7081 entries=1 cycles=1 min=1 "
       "max=1 migrated=0 nested=0 threads=1 hist=64:1:1",
       "below 64"},
      {"looprace-rt 1 loop pid=8 ppid=1 forked=0 id=1a2b3c4d5e6f7081 entries=1 cycles=1 min=1 "
       "max=1 migrated=0 nested=0 threads=1 hist=5:0:1",
       "hist=5:0:1"},
      {"looprace-rt 1 end" + end + " ", "trailing blank"},
      {"looprace-rt 1 end " + end, "empty token"},
      {"looprace-rt 1 end" + end + " loose", "token 'loose' is not key=value"},
  };
  for (const auto& [line, message] : cases) {
    RtRecords records = parse_rt_records("\n" + line + "\n");
    EXPECT_TRUE(records.processes.empty()) << line;
    ASSERT_EQ(records.problems.size(), 1u) << line;
    EXPECT_EQ(records.problems[0].line, 2u) << line;
    EXPECT_NE(records.problems[0].message.find(message), std::string::npos)
        << line << " gave: " << records.problems[0].message;
  }
}

TEST(RtRecords, UnknownFieldsOfTheSameVersionAreSkipped) {
  RtRecords records = parse_rt_records(
      "looprace-rt 1 end pid=8 ppid=1 forked=0 loops=0 how=signal status=15 tsc_hz=1 probe=1 "
      "probe_call=1 dropped=0 future=yes");
  ASSERT_TRUE(records.problems.empty());
  ASSERT_EQ(records.processes.size(), 1u);
  EXPECT_EQ(records.processes[0].how, RtExitHow::signal);
  EXPECT_EQ(records.processes[0].status, 15);
}

TEST(RtRecords, BucketFloorsMatchTheRuntimesBuckets) {
  EXPECT_EQ(rt_bucket_floor(0), 0u);
  EXPECT_EQ(rt_bucket_floor(1), 2u);
  EXPECT_EQ(rt_bucket_floor(7), 128u);
  EXPECT_EQ(rt_bucket_floor(63), std::uint64_t{1} << 63);
}

TEST(RtRecords, EmptyTextHasNoProcesses) {
  RtRecords records = parse_rt_records("");
  EXPECT_TRUE(records.processes.empty());
  EXPECT_TRUE(records.problems.empty());
}

}  // namespace
}  // namespace looprace::run
