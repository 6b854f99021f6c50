/* Replays fuzz inputs through fuzz_kernels.c inside the wasm SIMD build (the shipped code path), since the native
 * fuzzer runs the portable SIMD fallback. */
/*
 *   node wasm_driver.js CORPUS_B64 COUNT SEED
 * Runs every input of CORPUS_B64 (one base64 input per line, '#' comments), then COUNT random
 * inputs (1..256 bytes) from SEED. Any check that fails aborts (the process exits non-zero);
 * the last line printed is a summary.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* the input being run, printed in base64 if the harness aborts (for tests/fuzz/regressions/) */
static const uint8_t *cur;
static size_t cur_n;

void fuzz_report_input(void) {
  static const char *T = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  fprintf(stderr, "wasm_driver: failing input (base64): ");
  for (size_t i = 0; i < cur_n; i += 3) {
    unsigned v =
        (unsigned)cur[i] << 16 | (i + 1 < cur_n ? (unsigned)cur[i + 1] << 8 : 0) | (i + 2 < cur_n ? cur[i + 2] : 0);
    fputc(T[v >> 18 & 63], stderr);
    fputc(T[v >> 12 & 63], stderr);
    fputc(i + 1 < cur_n ? T[v >> 6 & 63] : '=', stderr);
    fputc(i + 2 < cur_n ? T[v & 63] : '=', stderr);
  }
  fputc('\n', stderr);
}

static void run_one(const uint8_t *data, size_t n) {
  cur = data;
  cur_n = n;
  LLVMFuzzerTestOneInput(data, n);
}

static int b64(int c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '+') return 62;
  if (c == '/') return 63;
  return -1;
}

static size_t decode(const char *s, uint8_t *out) {
  size_t n = 0;
  unsigned acc = 0;
  int bits = 0;
  for (; *s; s++) {
    int v = b64((unsigned char)*s);
    if (v < 0) continue;
    acc = (acc << 6) | (unsigned)v;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out[n++] = (uint8_t)(acc >> bits);
    }
  }
  return n;
}

int main(int argc, char **argv) {
  if (argc < 4) {
    fprintf(stderr, "usage: wasm_driver CORPUS_B64 COUNT SEED\n");
    return 2;
  }
  FILE *f = fopen(argv[1], "r");
  if (!f) {
    fprintf(stderr, "wasm_driver: cannot open %s\n", argv[1]);
    return 2;
  }
  static char line[1 << 16];
  static uint8_t buf[1 << 16];
  long corpus = 0;
  while (fgets(line, sizeof line, f)) {
    if (line[0] == '#' || line[0] == '\n') continue;
    size_t n = decode(line, buf);
    run_one(buf, n);
    corpus++;
  }
  fclose(f);
  long count = atol(argv[2]);
  uint64_t x = (uint64_t)strtoull(argv[3], NULL, 10) * 0x9E3779B97F4A7C15ULL + 1;
  for (long i = 0; i < count; i++) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    size_t n = 1 + (size_t)(x % 256);
    for (size_t j = 0; j < n; j++) {
      x ^= x << 13, x ^= x >> 7, x ^= x << 17;
      buf[j] = (uint8_t)(x >> 24);
    }
    run_one(buf, n);
  }
  printf("wasm fuzz replay: %ld corpus inputs and %ld random inputs through the -O3 -msimd128 kernels, no finding\n",
         corpus, count);
  return 0;
}
