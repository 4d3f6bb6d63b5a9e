// Progress of a race on stderr: one line rewritten in place on a terminal, otherwise a plain
// line when the loop or phase changes (never one per round, so logs stay short).
#pragma once

#include <cstdio>
#include <string>

#include "race/race.h"

namespace looprace::cli {

class ProgressLine {
 public:
  explicit ProgressLine(std::FILE* out);
  void update(const race::RaceProgress& p);
  void finish();  // ends the rewritten line

 private:
  std::FILE* out_;
  bool tty_;
  bool open_ = false;
  std::string last_phase_;
};

}  // namespace looprace::cli
