// C++: range-for over arrays, a function template instantiated twice, a class template's
// member loop and a lambda's loop.
#include <cstdio>

#include "unroll_marker.h"

template <typename T, int Size>
struct Buffer {
  T items[Size];

  T sum() const {
    T total = 0;
    LR_UNROLL for (const T& item : items) total += item;
    return total;
  }
};

template <typename T>
__attribute__((noinline)) T dot(const T* x, const T* y, int n) {
  T total = 0;
  LR_UNROLL for (int i = 0; i < n; i++) total += x[i] * y[i];
  return total;
}

int main() {
  static Buffer<int, 300> ints;
  static Buffer<double, 40> doubles;
  LR_UNROLL for (int i = 0; i < 300; i++) ints.items[i] = i % 17;
  LR_UNROLL for (int i = 0; i < 40; i++) doubles.items[i] = i * 0.5;
  auto count_odd = [](const int* p, int n) {
    int odd = 0;
    LR_UNROLL for (int i = 0; i < n; i++) odd += p[i] & 1;
    return odd;
  };
  std::printf("sums %d %.2f\n", ints.sum(), doubles.sum());
  std::printf("dots %d %.2f\n", dot(ints.items, ints.items, 300),
              dot(doubles.items, doubles.items, 40));
  std::printf("odd %d\n", count_odd(ints.items, 300));
  return 0;
}
