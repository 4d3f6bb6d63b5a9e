// Writes the sample report as HTML (argv[1]) and text (stdout): to look at the page in a
// browser, e.g. headless Chromium's --screenshot.
#include <fstream>
#include <iostream>

#include "report/html.h"
#include "report/text.h"
#include "sample_model.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: report_sample OUT.html\n";
    return 2;
  }
  auto report = looprace::report::testing::sample_report();
  std::ofstream(argv[1]) << looprace::report::render_html(report);
  std::cout << looprace::report::render_text(report);
  return 0;
}
