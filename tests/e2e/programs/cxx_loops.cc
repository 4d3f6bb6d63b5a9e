// Loops as C++ writes them: before inlining nearly every one calls something (operator[],
// size(), iterators, helpers); after inlining most call nothing, and those are the loops the
// RTL unroller sees and `--hot` must offer. Lines are named in tests/e2e/hot_selection.sh.
#include <cstdio>
#include <vector>

template <typename T>
T scaled_sum(const std::vector<T>& v, T k) {
  T sum = 0;
  for (std::size_t i = 0; i < v.size(); ++i) sum += k * v[i];  // template, operator[]
  return sum;
}

static inline int clamp255(int x) { return x < 0 ? 0 : (x > 255 ? 255 : x); }

__attribute__((noinline)) int opaque(int x) { return (x * 7) ^ (x >> 3); }

static void fill(std::vector<int>& v, int seed) {
  for (int& x : v) x = (seed = seed * 1103515245 + 12345) >> 16;  // range-for
}

int main() {
  std::vector<int> v(1 << 14);
  long long total = 0;
  for (int rep = 0; rep < 300; ++rep) {
    fill(v, rep);
    total += scaled_sum(v, 3);
    for (std::size_t i = 0; i < v.size(); ++i) v[i] = clamp255(v[i]);      // inlined helper
    for (std::size_t i = 0; i < v.size(); i += 64) total += opaque(v[i]);  // a real call
  }
  std::printf("%lld\n", total);
  return 0;
}
