#include <stdio.h>

long work(long n);

int main(void) {
  printf("%ld\n", work(300000));
  return 0;
}
