/* Calls the kernel on a fixed array and prints the result, so every variant prints the same. */
#include <stdio.h>
#include <stdlib.h>

#include "kern.h"

int main(int argc, char** argv) {
  int count = argc > 1 ? atoi(argv[1]) : 1000;
  int* values = malloc(sizeof *values * (size_t)count);
  for (int i = 0; i < count; i++) values[i] = (i * 7919) % 1000;
  long total = 0;
  for (int round = 0; round < 100; round++) total += kern_sum(values, count - round % 3);
  printf("total %ld\n", total);
  free(values);
  return 0;
}
