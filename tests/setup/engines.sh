#!/usr/bin/env bash
# Makes sure the other JavaScript engines the tests use are there: Debian's chromium (browser tests), jsc
# (JavaScriptCore, Safari's engine) and gjs (SpiderMonkey, Firefox's); installs them as root, else says how.
set -euo pipefail
need=()
[ -x /usr/bin/chromium ] || need+=(chromium)
command -v jsc >/dev/null 2>&1 || need+=(libjavascriptcoregtk-4.0-bin)
command -v gjs >/dev/null 2>&1 || need+=(gjs)
[ ${#need[@]} -eq 0 ] && exit 0
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "tests: installing Debian's ${need[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq "${need[@]}" >/dev/null
else
  echo "tests: missing ${need[*]}; their tests will be skipped (run: sudo apt-get install -y ${need[*]})" >&2
fi
