/* Links looprace::runtime through its imported target: its header and its archive. */
#include <looprace_rt.h>

int main(void) {
  __looprace_record(0x1234, 100, 200, 0, 0);
  return 0;
}
