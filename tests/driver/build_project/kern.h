/* The kernel the build tests race (kern.c). */
#ifndef KERN_H
#define KERN_H
long kern_sum(const int* values, int count);
#endif
