#!/usr/bin/env bash
# Installs what is missing, from Debian 12's packages (and, for the tests only, openapi/'s npm
# lock). Idempotent and quiet when everything is present, so `make run` / `make test` can call
# it every time. Runs apt as root, or through sudo when not root.
#   scripts/install-deps.sh build   # building and running tacticsd: the C toolchain and
#                                   # libraries only (scripts/run, make build, the Dockerfile)
#   scripts/install-deps.sh         # everything: also the tests', benches' and cluster's tools
set -euo pipefail
mode=${1:-all}

build_packages=(
  build-essential make cmake pkg-config
  libmicrohttpd-dev libjansson-dev libsqlite3-dev libpq-dev
  libcairo2-dev libfontconfig-dev libpng-dev fonts-dejavu-core
  libunistring-dev fonts-wqy-microhei fonts-noto-color-emoji libsodium-dev libcurl4-openssl-dev
  libjemalloc-dev
)
# The pictures draw names in any script the fonts have (render/fonts.c): DejaVu Sans for Latin,
# Greek and Cyrillic, WenQuanYi Micro Hei for CJK (5 MB installed, against 91 MB for
# fonts-noto-cjk) and Noto Color Emoji (11 MB; Emoji 15, where Symbola stops years earlier).
# Criterion and the formatter; clang for the fuzz smoke; a PostgreSQL 15 server for the suites
# that run on PostgreSQL (scripts/pg); HAProxy for scripts/cluster; Node.js for the contract
# tooling (openapi/package.json: Redocly CLI, Spectral, ajv, the typed-client generators;
# Debian 12's nodejs 18.20 qualifies: Spectral and @hey-api/openapi-ts need 18.18).
# Chromium for the browser tests (tests/browser: playwright-core drives Debian's build, no
# browser download). wrk for the load benches (bench/lib.sh); valgrind for the instruction
# counts (bench/attack_instructions.sh, bench/handler_bench.c's --calls);
# stress-ng for scripts/ci-loaded (the suite with every core kept busy).
test_packages=(
  libcriterion-dev clang-format clang libclang-rt-14-dev
  postgresql-15 haproxy curl
  nodejs npm chromium wrk stress-ng valgrind
)

packages=("${build_packages[@]}")
if [ "$mode" != build ]; then packages+=("${test_packages[@]}"); fi

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
    missing+=("$p")
  fi
done
# Any Node >= 18.18 already on the PATH will do for the tests.
if command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1; then
  kept=()
  for p in "${missing[@]}"; do
    if [ "$p" != nodejs ] && [ "$p" != npm ]; then kept+=("$p"); fi
  done
  missing=("${kept[@]}")
fi

if ((${#missing[@]})); then
  echo "install-deps: installing ${missing[*]}" >&2
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

if [ "$mode" = build ]; then exit 0; fi

# The exact versions in openapi/package-lock.json; reinstalled only when the lock changes.
root=$(cd "$(dirname "$0")/.." && pwd)
stamp="$root/openapi/node_modules/.tactics-lock"
if ! cmp -s "$root/openapi/package-lock.json" "$stamp" 2>/dev/null; then
  echo "install-deps: npm ci in openapi/" >&2
  (cd "$root/openapi" && SCARF_ANALYTICS=false npm ci --no-audit --no-fund --loglevel=error)
  cp "$root/openapi/package-lock.json" "$stamp"
fi

# The browser tests' playwright-core, pinned in tests/browser/package-lock.json; its own browser
# download is skipped: the tests drive /usr/bin/chromium.
stamp="$root/tests/browser/node_modules/.tactics-lock"
if ! cmp -s "$root/tests/browser/package-lock.json" "$stamp" 2>/dev/null; then
  echo "install-deps: npm ci in tests/browser/" >&2
  (cd "$root/tests/browser" &&
    PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci --no-audit --no-fund --loglevel=error)
  cp "$root/tests/browser/package-lock.json" "$stamp"
fi
