#!/usr/bin/env bash
# Builds the libFuzzer harness natively (clang-14, ASan+UBSan) against src/*.c and fuzzes for N seconds (default 600).
#   tests/fuzz/run.sh [seconds]     FFN_FUZZ_OUT=dir (default $TMPDIR/ffn-fuzz) holds the binary, corpus, crashes.
# Replays tests/fuzz/regressions/* first (every past finding), then fuzzes from the seed corpus tests/fuzz/corpus.b64
# (one base64 input per line) plus whatever earlier runs left in $FFN_FUZZ_OUT/corpus.
# Then, when emcc is present, replays the whole corpus plus random inputs through the same harness
# built as wasm with the shipped flags (-O3 -msimd128), the code path browsers run (natively the SIMD
# helpers fall back to vector extensions), and, when clang-16 and wasm-ld-16 are present, through the
# relaxed-SIMD build (tests/fuzz/relaxed_driver.mjs). FFN_WASM_RANDOM sets the random count (default 20 per second).
# Exit status 0 = no finding; the last line printed is a one-line summary (the README quotes it).
set -euo pipefail
secs="${1:-600}"
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
out="${FFN_FUZZ_OUT:-${TMPDIR:-/tmp}/ffn-fuzz}"
mkdir -p "$out/corpus" "$out/artifacts"
rm -rf "$out/seed" && mkdir -p "$out/seed"
i=0
while IFS= read -r line; do
  case "$line" in '#'* | '') continue ;; esac
  printf '%s' "$line" | base64 -d >"$out/seed/$i" && i=$((i + 1))
done <"$here/corpus.b64"

cc="$(command -v clang-14 || command -v clang || true)"
if [ -z "$cc" ]; then
  echo "fuzz: clang-14 not found; run: apt-get install clang-14 libclang-rt-14-dev" >&2
  exit 2
fi

# -fsanitize=fuzzer,address,undefined: libFuzzer driver, heap/stack overruns, UB (incl. float->int overflow)
# -fno-sanitize-recover=all: the first UB report aborts, so libFuzzer keeps the input
# -O1 -g: fast enough, exact line numbers; no -ffast-math anywhere (NaN semantics are under test)
bin="$out/fuzz_kernels"
srcs=("$root"/src/*.c)
"$cc" -O1 -g -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer \
  -I"$root/src" "${srcs[@]}" "$here/fuzz_kernels.c" -lm -o "$bin.new"
mv "$bin.new" "$bin"

export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1:allocator_may_return_null=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"

shopt -s nullglob
regs=("$here"/regressions/*)
if [ ${#regs[@]} -gt 0 ]; then
  "$bin" -runs=1 "${regs[@]}" >"$out/regressions.log" 2>&1 || {
    cat "$out/regressions.log" >&2
    echo "fuzz: a regression input fails" >&2
    exit 1
  }
  echo "fuzz: ${#regs[@]} regression inputs pass"
fi

log="$out/fuzz.log"
set +e
"$bin" "$out/corpus" "$out/seed" -max_total_time="$secs" -timeout=20 -rss_limit_mb=2048 -max_len=4096 \
  -print_final_stats=1 -print_coverage=1 -artifact_prefix="$out/artifacts/" >"$log" 2>&1
rc=$?
set -e
runs="$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo '?')"
cov="$(grep -o 'cov: [0-9]*' "$log" | tail -1 | grep -o '[0-9]*' || echo '?')"
if [ $rc -ne 0 ] && grep -q 'run interrupted' "$log"; then
  echo "fuzz: interrupted after $runs runs (no finding until then)" >&2
  exit 3
fi
if [ $rc -ne 0 ]; then
  grep -m1 -E 'fuzz_kernels:|ERROR: |runtime error' "$log" >&2 || tail -30 "$log" >&2
  echo "fuzz: FINDING after $runs runs; input saved in $out/artifacts/" \
    "(copy it to tests/fuzz/regressions/); log $log" >&2
  exit 1
fi
# every entry point of ffn.h reached (-print_coverage lists each function the run covered)
api="$(sed -n 's/^FFN_API [a-z0-9_ ]*[ *]\([a-z_0-9]*\)(.*/\1/p' "$root/src/ffn.h")"
unreached=""
for f in $api; do grep -q "^COVERED_FUNC: .* $f /" "$log" || unreached="$unreached $f"; done
if [ -n "$unreached" ]; then
  echo "fuzz: entry points of ffn.h never reached:$unreached" >&2
  exit 1
fi
echo "fuzz: all $(echo $api | wc -w) entry points of ffn.h reached"
wasm=""
if command -v emcc >/dev/null 2>&1; then
  w="$out/wasm"
  rm -rf "$w" && mkdir -p "$w"
  for f in "$root"/src/*.c; do
    simd=-msimd128
    [ "$(basename "$f")" = ref.c ] && simd=""
    emcc -O3 -std=c11 -I"$root/src" $simd -c "$f" -o "$w/$(basename "${f%.c}").o"
  done
  emcc -O2 -I"$root/src" -c "$here/fuzz_kernels.c" -o "$w/harness.o"
  emcc -O2 -c "$here/wasm_driver.c" -o "$w/driver.o"
  # SINGLE_FILE + ENVIRONMENT=node: the old glue would otherwise fetch() a file path under Node 20
  NODE_PATH="${NODE_PATH:-/usr/share/nodejs}" emcc "$w"/*.o -O2 -msimd128 \
    -sALLOW_MEMORY_GROWTH=1 -sMAXIMUM_MEMORY=2147483648 \
    -sNODERAWFS=1 -sEXIT_RUNTIME=1 -sENVIRONMENT=node -sSINGLE_FILE=1 -o "$w/driver.cjs"
  {
    cat "$here/corpus.b64"
    for f in "$out"/corpus/* "$here"/regressions/*; do [ -f "$f" ] && base64 -w0 "$f" && echo; done
  } >"$w/all.b64"
  nrand="${FFN_WASM_RANDOM:-$((secs * 20))}"
  seed="$(date +%s)"
  if ! node "$w/driver.cjs" "$w/all.b64" "$nrand" "$seed" >"$w/log" 2>&1; then
    grep -m1 -E 'fuzz_kernels:|Aborted|RuntimeError' "$w/log" >&2 || tail -5 "$w/log" >&2
    echo "fuzz: FINDING in the wasm SIMD build (log $w/log)" >&2
    exit 1
  fi
  wasm="; wasm SIMD build: $(grep -o '[0-9]* corpus inputs and [0-9]* random inputs' "$w/log"), no finding"
  # the same replay on the relaxed-SIMD build (ffn-relaxed.wasm's flags: clang-16 against Emscripten's
  # sysroot, linked by wasm-ld-16 as a reactor), driven from JS by relaxed_driver.mjs
  # node flags for relaxed SIMD (runtime.js's feature test): none from Node 21 on,
  # --experimental-wasm-relaxed-simd on Node 20
  probe="import { relaxedSimdSupported } from '$root/web/runtime.js'; process.exit(relaxedSimdSupported() ? 0 : 1)"
  rnode=""
  if node --input-type=module -e "$probe" 2>/dev/null; then rnode="node"
  elif node --experimental-wasm-relaxed-simd --input-type=module -e "$probe" 2>/dev/null; then
    rnode="node --experimental-wasm-relaxed-simd"
  fi
  if command -v clang-16 >/dev/null 2>&1 && command -v wasm-ld-16 >/dev/null 2>&1 && [ -n "$rnode" ]; then
    r="$out/relaxed"
    rm -rf "$r" && mkdir -p "$r"
    sysroot="$(em-config CACHE)/sysroot"
    rflags=(--target=wasm32-unknown-emscripten --sysroot="$sysroot" -Xclang -iwithsysroot/include/compat
      -D__EMSCRIPTEN__ -DEMSCRIPTEN -fvisibility=default -mllvm -disable-lsr -I"$root/src")
    for f in "$root"/src/*.c; do
      simd=(-msimd128 -mrelaxed-simd)
      [ "$(basename "$f")" = ref.c ] && simd=()
      clang-16 "${rflags[@]}" -O3 -std=c11 "${simd[@]}" -c "$f" -o "$r/$(basename "${f%.c}").o"
    done
    clang-16 "${rflags[@]}" -O2 -c "$here/fuzz_kernels.c" -o "$r/harness.o"
    lib="$sysroot/lib/wasm32-emscripten"
    # build.sh's link of ffn-relaxed.wasm, with the harness's entry point exported
    wasm-ld-16 "$r"/*.o -o "$r/harness.wasm" "$lib/crt1_reactor.o" -L"$lib" -lstandalonewasm-memgrow -lstubs -lnoexit \
      -lc -ldlmalloc -lcompiler_rt --entry=_initialize --import-undefined --strip-debug \
      --export=LLVMFuzzerTestOneInput --export=malloc --export=free -z stack-size=1048576 \
      --initial-memory=16777216 --max-memory=2147483648 --global-base=1024
    if ! $rnode "$here/relaxed_driver.mjs" "$r/harness.wasm" "$w/all.b64" "$nrand" "$seed" >"$r/log" 2>&1; then
      grep -m1 -E 'fuzz_kernels:|RuntimeError|proc_exit' "$r/log" >&2 || tail -5 "$r/log" >&2
      echo "fuzz: FINDING in the relaxed-SIMD build (log $r/log)" >&2
      exit 1
    fi
    wasm="$wasm; relaxed-SIMD build: $(grep -o '[0-9]* corpus inputs and [0-9]* random inputs' "$r/log"), no finding"
  fi
  wasm="$wasm (random wasm inputs from seed $seed)"
fi
echo "fuzz: $(date -u +%F) ${secs}s, $runs inputs, $cov coverage edges," \
  "corpus $(ls "$out/corpus" | wc -l) files, no finding (clang-14 ASan+UBSan)$wasm"
