/* String search (MiBench "stringsearch" style): Boyer-Moore-Horspool, case-sensitive and
 * case-insensitive, and a naive search as the reference, for patterns of 2 to 24 characters in
 * generated English-like text. Every search must find the same matches. */
#include "kernel.h"

enum {
  TEXT_BYTES = 131072,
  VOCABULARY = 512,
  WORD_MAX = 12,
  PATTERNS = 48,
  PATTERN_MAX = 24,
  PASSES = 2,
};

static char text[TEXT_BYTES + 1];
static char vocabulary[VOCABULARY][WORD_MAX + 1];
static char patterns[PATTERNS][PATTERN_MAX + 1];
static int pattern_length[PATTERNS];
static int skip[256];
static uint8_t folded_text[TEXT_BYTES];

static char to_lower(char c) { return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c; }

/* Words of 1-12 letters with English-like letter frequencies; common words come up more often. */
static void make_text(void) {
  static const char letters[] =
      "eeeeeeeeeeeettttttttaaaaaaaoooooooiiiiiinnnnnnsssssshhhhhhrrrrrr"
      "ddddllllccuuummwwffggyyppbbvkjxqz";
  for (int w = 0; w < VOCABULARY; w++) {
    int length = kernel_random_range(1, WORD_MAX);
    for (int i = 0; i < length; i++)
      vocabulary[w][i] = letters[kernel_random() % (sizeof letters - 1)];
    vocabulary[w][length] = '\0';
  }
  int n = 0;
  while (n < TEXT_BYTES) {
    /* the square skews word choice towards low indices */
    uint64_t r = kernel_random() % VOCABULARY;
    const char* word = vocabulary[r * r / VOCABULARY];
    int capital = kernel_random() % 8 == 0;
    for (int i = 0; word[i] != '\0' && n < TEXT_BYTES; i++, n++)
      text[n] = capital && i == 0 ? (char)(word[i] - 'a' + 'A') : word[i];
    if (n < TEXT_BYTES) text[n++] = kernel_random() % 10 == 0 ? '.' : ' ';
  }
  text[TEXT_BYTES] = '\0';
}

/* Half the patterns are cut from the text (so they occur), half are made of random letters. */
static void make_patterns(void) {
  for (int p = 0; p < PATTERNS; p++) {
    int length = kernel_random_range(2, PATTERN_MAX);
    if (p % 2 == 0) {
      int start = kernel_random_range(0, TEXT_BYTES - length);
      memcpy(patterns[p], &text[start], (size_t)length);
    } else {
      for (int i = 0; i < length; i++) patterns[p][i] = (char)kernel_random_range('a', 'z');
    }
    patterns[p][length] = '\0';
    pattern_length[p] = length;
  }
}

static uint32_t search_naive(const char* pattern, int length) {
  uint32_t matches = 0;
  for (int n = 0; n + length <= TEXT_BYTES; n++) {
    int i = 0;
    while (i < length && text[n + i] == pattern[i]) i++;
    matches += i == length;
  }
  return matches;
}

/* Horspool: compare from the pattern's end; on a mismatch shift by the skip of the text byte
 * under the pattern's last position. */
static uint32_t search_horspool(const char* pattern, int length) {
  for (int c = 0; c < 256; c++) skip[c] = length;
  for (int i = 0; i < length - 1; i++) skip[(uint8_t)pattern[i]] = length - 1 - i;
  uint32_t matches = 0;
  const uint8_t last = (uint8_t)pattern[length - 1];
  for (int n = 0; n + length <= TEXT_BYTES;) {
    uint8_t c = (uint8_t)text[n + length - 1];
    if (c == last) {
      int i = length - 2;
      while (i >= 0 && text[n + i] == pattern[i]) i--;
      matches += i < 0;
    }
    n += skip[c];
  }
  return matches;
}

/* Case-insensitive Horspool over a folded copy of the text, with a folded pattern. */
static uint32_t search_folded(const char* pattern, int length) {
  uint8_t folded[PATTERN_MAX];
  for (int i = 0; i < length; i++) folded[i] = (uint8_t)to_lower(pattern[i]);
  for (int c = 0; c < 256; c++) skip[c] = length;
  for (int i = 0; i < length - 1; i++) skip[folded[i]] = length - 1 - i;
  uint32_t matches = 0;
  for (int n = 0; n + length <= TEXT_BYTES;) {
    int i = length - 1;
    while (i >= 0 && folded_text[n + i] == folded[i]) i--;
    matches += i < 0;
    n += skip[folded_text[n + length - 1]];
  }
  return matches;
}

static void fold_text(void) {
  for (int n = 0; n < TEXT_BYTES; n++) folded_text[n] = (uint8_t)to_lower(text[n]);
}

int main(void) {
  kernel_seed(16);
  make_text();
  make_patterns();
  Checksum sum = CHECKSUM_INIT;
  for (int pass = 0; pass < PASSES; pass++) {
    fold_text();
    uint32_t mismatches = 0;
    for (int p = 0; p < PATTERNS; p++) {
      uint32_t found = search_horspool(patterns[p], pattern_length[p]);
      /* the naive search is slow: it checks a quarter of the patterns */
      if (p % 4 == 0) mismatches += found != search_naive(patterns[p], pattern_length[p]);
      sum = checksum_add(sum, found);
      sum = checksum_add(sum, search_folded(patterns[p], pattern_length[p]));
    }
    sum = checksum_add(sum, mismatches);
    text[pass * 5003] = 'Q'; /* the next pass searches slightly different text */
  }
  checksum_print("stringsearch", sum);
  return 0;
}
