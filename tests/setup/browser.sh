#!/usr/bin/env bash
# Makes sure Debian's chromium is there for the browser tests: installs it as root, else says how.
set -euo pipefail
[ -x /usr/bin/chromium ] && exit 0
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "tests: /usr/bin/chromium not found, installing Debian's chromium"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq chromium >/dev/null
else
  echo "tests: /usr/bin/chromium not found; browser tests will be skipped (run: sudo apt-get install -y chromium)" >&2
fi
