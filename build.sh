#!/usr/bin/env bash
# Builds web/ffn.wasm (128-bit SIMD, Emscripten) and web/ffn-relaxed.wasm (plus relaxed SIMD, clang 16), each with its
# inline .js, web/sandbox/run/sandbox-inline.js (the exercise sandbox's sources as strings) and web/dist/ (the shipped
# pages' bundles). Its JavaScript steps are the programs in src/build/ (shipped with it, formatted by Prettier).
set -euo pipefail
cd "$(dirname "$0")"

out=web/ffn.wasm
inline=web/ffn-wasm-inline.js
rout=web/ffn-relaxed.wasm
rinline=web/ffn-relaxed-wasm-inline.js

# The browser sandbox's sources as JS strings, web/sandbox/run/sandbox-inline.js (rewritten only when they change):
# the page gives them to the sandbox frame, which it can also make inline (srcdoc) from FRAME_HTML, so no
# bundler or server has to find, copy or leave untouched frame.html, worker.js or toolkit.js. Needs only node.
node src/build/sandbox-inline.js web/sandbox/run/

# The JS copy of src/ffn.h's codes, web/codes.js (rewritten only when it changes): the activation, status and
# GEMM microkernel enums, so the wrapper cannot drift from the C header. Needs only node.
node src/build/codes.js

# The memory lab's default facts, web/components/memory-lab/facts-countries.js (rewritten only when it changes), from
# the countries-list devDependency with its licence notice; kept as it is where countries-list is not installed.
node src/build/facts-countries.js

# web/dist/, what ffn-lab's own pages load (web/index.html, web/embed/*.html; git-ignored, shipped in the package):
# their modules bundled and minified by esbuild (a devDependency), rewritten only when the output changes. dist/boot.js
# (web/page-boot.js with runtime.js) starts the kernels; one entry per element, sharing chunks, so that an element
# never waits for the code of another (tests/components/pages-browser.test.js). The inlined wasm and the sandbox's
# sources stay the package's own files, loaded only where needed, and new URL('./f', import.meta.url) still names the
# same file.
node src/build/pages.js

# --if-needed: skip when every output is newer than every source and this script ($out is written first)
if [ "${1:-}" = "--if-needed" ] && [ -f "$out" ] && [ -f "$inline" ] && [ -f "$rout" ] && [ -f "$rinline" ]; then
  newer=$(find src build.sh -newer "$out" -type f | head -n 1)
  if [ -z "$newer" ] && [ ! "$out" -nt "$inline" ] && [ ! "$rout" -nt "$rinline" ]; then
    echo "build.sh: $out and $rout are up to date"
    exit 0
  fi
fi

# Tools: Debian's emscripten (3.1.6, clang 14) for ffn.wasm; clang-16 and lld-16 for ffn-relaxed.wasm,
# because clang 14 cannot emit the relaxed-SIMD opcodes (installed here when run as root with apt).
missing=()
command -v emcc >/dev/null 2>&1 || missing+=(emscripten)
command -v clang-16 >/dev/null 2>&1 || missing+=(clang-16)
command -v wasm-ld-16 >/dev/null 2>&1 || missing+=(lld-16)
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "build.sh: installing Debian's ${missing[*]}"
    DEBIAN_FRONTEND=noninteractive apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
  else
    echo "build.sh: missing ${missing[*]}; run: sudo apt-get install -y emscripten clang-16 lld-16" >&2
    exit 1
  fi
fi

# Every FFN_API function of the C header is exported, plus malloc and free for the wrapper.
api=$(sed -n 's/^FFN_API [a-z0-9_ ]*[ *]\([a-z_0-9]*\)(.*/\1/p' src/ffn.h)
exports="_malloc,_free"
for f in $api; do exports="$exports,_$f"; done

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

common=(
  -O3                   # full optimization (IEEE semantics kept: no -ffast-math)
  -std=c11              # the C dialect of src/
  -Wall -Wextra         # show warnings (the native test builds src/ with -Werror)
  -Isrc                 # ffn.h and simd.h
)

# compile PREFIX "SIMD_FLAGS" COMPILER ARGS...: every src/*.c into $tmp/PREFIX<name>.o, listed in objs;
# the SIMD kernels with SIMD_FLAGS (split into words), the scalar references (ref.c) without any, so
# they stay plain scalar code
compile() {
  local prefix=$1 simd=$2 f o
  shift 2
  objs=()
  for f in src/*.c; do
    o="$tmp/$prefix$(basename "${f%.c}").o"
    if [ "$f" = src/ref.c ]; then "$@" -c "$f" -o "$o"; else "$@" $simd -c "$f" -o "$o"; fi
    objs+=("$o")
  done
}

# -msimd128: 128-bit wasm SIMD (wasm_simd128.h, __wasm_simd128__) for the kernels
compile "" "-msimd128" emcc "${common[@]}"

emcc "${objs[@]}" -o "$tmp/ffn.wasm" \
  -O3 `# link-time optimization level (wasm-opt, dead code removal)` \
  -msimd128 `# allow SIMD instructions in the linked module` \
  --no-entry `# a library: no main()` \
  -sSTANDALONE_WASM `# no JS glue: WASI-style module, reactor with _initialize` \
  -sALLOW_MEMORY_GROWTH=1 `# the heap grows on demand (env.emscripten_notify_memory_growth tells JS)` \
  -sMAXIMUM_MEMORY=2147483648 `# growth limit 2 GiB: larger requests make malloc return 0` \
  -sABORTING_MALLOC=0 `# malloc returns 0 instead of aborting when memory cannot grow` \
  -sINITIAL_MEMORY=16777216 `# 16 MiB to start` \
  -sTOTAL_STACK=1048576 `# 1 MiB stack (kernels use only small local buffers)` \
  -sFILESYSTEM=0 `# no file system support` \
  -sEXPORTED_FUNCTIONS="$exports" `# the C API of src/ffn.h plus malloc/free`

# check FILE [NODE_FLAGS...]: the module may import only env.emscripten_notify_memory_growth, must
# export the whole API, and malloc must return 0 (not trap) for a request that cannot be met.
check() {
  local file=$1
  shift
  node "$@" src/build/check-wasm.js "$file" "$exports"
}
check "$tmp/ffn.wasm"

# ---- ffn-relaxed.wasm: the same sources, the SIMD objects also with relaxed SIMD (f32x4.relaxed_madd in
# the GEMM microkernels, see src/simd.h). Emscripten 3.1.6's binaryen rejects those opcodes, so clang-16
# compiles against Emscripten's sysroot and wasm-ld-16 links the libraries emcc links above (its link
# line, shown by EMCC_DEBUG=1), without emcc's wasm-opt pass.
sysroot="$(em-config CACHE)/sysroot"
rflags=(
  --target=wasm32-unknown-emscripten    # the ABI Emscripten's libraries use
  --sysroot="$sysroot"                  # Emscripten's libc headers and libraries
  -Xclang -iwithsysroot/include/compat  # Emscripten's compat headers, as emcc adds them
  -D__EMSCRIPTEN__ -DEMSCRIPTEN         # emcc's defines (EMSCRIPTEN_KEEPALIVE marks the API)
  -fvisibility=default                  # as emcc: exported symbols stay visible
  -mllvm -disable-lsr                   # as emcc: no loop strength reduction
)
# -mrelaxed-simd: __wasm_relaxed_simd__ and the relaxed-SIMD builtins, on top of -msimd128
compile relaxed- "-msimd128 -mrelaxed-simd" clang-16 "${rflags[@]}" "${common[@]}"
lib="$sysroot/lib/wasm32-emscripten"
rexports=()
for f in malloc free $api; do rexports+=(--export-if-defined="$f"); done
wasm-ld-16 "${objs[@]}" -o "$tmp/ffn-relaxed.wasm" \
  "$lib/crt1_reactor.o" `# reactor start-up: _initialize runs the constructors` \
  -L"$lib" -lstandalonewasm-memgrow -lstubs -lnoexit -lc -ldlmalloc -lcompiler_rt `# emcc's libraries` \
  --entry=_initialize `# no main()` \
  --import-undefined `# undefined symbols become imports (only the memory-growth hook; checked below)` \
  --strip-debug `# no debug sections` \
  "${rexports[@]}" `# the C API of src/ffn.h plus malloc/free` \
  -z stack-size=1048576 `# 1 MiB stack, as above` \
  --initial-memory=16777216 `# 16 MiB to start, as above` \
  --max-memory=2147483648 `# growth limit 2 GiB, as above` \
  --global-base=1024 `# data from 1 KiB, as emcc`
# The node flags under which this Node runs relaxed SIMD (runtime.js's feature test): none from Node 21
# on (where the flag is gone), --experimental-wasm-relaxed-simd on Node 20.
probe="import { relaxedSimdSupported } from './web/runtime.js'; process.exit(relaxedSimdSupported() ? 0 : 1)"
if node --input-type=module -e "$probe" 2>/dev/null; then
  check "$tmp/ffn-relaxed.wasm"
elif node --experimental-wasm-relaxed-simd --input-type=module -e "$probe" 2>/dev/null; then
  check "$tmp/ffn-relaxed.wasm" --experimental-wasm-relaxed-simd
else
  echo "build.sh: this Node cannot run relaxed SIMD, so ffn-relaxed.wasm is not checked here" >&2
fi

mkdir -p web
# the module as base64 in an ES module, for the default entry (web/index.js)
inline_js() {
  printf '// Generated by build.sh: %s as base64 for the default entry.\n' "$(basename "$1")"
  printf "export default '%s';\n" "$(base64 -w0 "$1")"
}
cp "$tmp/ffn.wasm" "$out"
cp "$tmp/ffn-relaxed.wasm" "$rout"
inline_js "$out" > "$inline"
inline_js "$rout" > "$rinline"
for f in "$out" "$rout"; do
  echo "build.sh: $f $(wc -c < "$f") bytes sha256 $(sha256sum "$f" | cut -d' ' -f1)"
done
