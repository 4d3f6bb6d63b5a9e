#include "cli/progress_line.h"

#include <fmt/format.h>
#include <unistd.h>

namespace looprace::cli {
namespace {

std::string clock_text(double seconds) {
  auto s = static_cast<long>(seconds + 0.5);
  return s >= 3600 ? fmt::format("{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60)
                   : fmt::format("{}:{:02}", s / 60, s % 60);
}

}  // namespace

ProgressLine::ProgressLine(std::FILE* out) : out_(out), tty_(isatty(fileno(out)) != 0) {}

void ProgressLine::update(const race::RaceProgress& p) {
  if (!p.announcement.empty()) {
    finish();
    std::fprintf(out_, "%s\n", p.announcement.c_str());
    std::fflush(out_);
    return;
  }
  std::string text =
      p.together    ? fmt::format("{} loops together ({} decided)  {}", p.loops, p.loop, p.phase)
      : p.loops > 0 ? fmt::format("loop {}/{} {}  {}", p.loop, p.loops, p.loop_label, p.phase)
                    : p.phase;
  if (p.phase == "racing" && p.round > 0) {
    text += fmt::format("  round {}  survivors {}  observations {}", p.round, p.survivors,
                        p.observations);
  }
  text += "  elapsed " + clock_text(p.elapsed_seconds);
  if (p.eta_seconds) text += "  eta " + clock_text(*p.eta_seconds);
  if (tty_) {
    std::fprintf(out_, "\r\033[K%s", text.c_str());
    open_ = true;
  } else if (p.phase != last_phase_) {
    std::fprintf(out_, "%s\n", text.c_str());
  }
  last_phase_ = p.phase;
  std::fflush(out_);
}

void ProgressLine::finish() {
  if (open_) std::fprintf(out_, "\n");
  open_ = false;
}

}  // namespace looprace::cli
