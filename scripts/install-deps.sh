#!/usr/bin/env bash
# Installs what the build and tests need and is not yet there: Debian packages via apt.
# Idempotent and quiet when everything is present, so `make run` / `make test` can call it
# every time. Runs apt as root, or through sudo when not root.
set -euo pipefail

packages=(
  build-essential make cmake pkg-config
  libmicrohttpd-dev libjansson-dev libsqlite3-dev libpq-dev libcriterion-dev
  postgresql-15
  clang-format clang libclang-rt-14-dev
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
    missing+=("$p")
  fi
done

if ((${#missing[@]})); then
  echo "install-deps: installing ${missing[*]}" >&2
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# Node.js runs the contract tooling (openapi/package.json: Redocly CLI, ajv). Any Node >= 18.17
# will do; Debian 12's own nodejs (18.20) qualifies, so it is installed only when none is there.
if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
  echo "install-deps: installing nodejs npm" >&2
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq --no-install-recommends nodejs npm
fi

# The exact versions in openapi/package-lock.json; reinstalled only when the lock changes.
root=$(cd "$(dirname "$0")/.." && pwd)
stamp="$root/openapi/node_modules/.tactics-lock"
if ! cmp -s "$root/openapi/package-lock.json" "$stamp" 2>/dev/null; then
  echo "install-deps: npm ci in openapi/" >&2
  (cd "$root/openapi" && npm ci --no-audit --no-fund --loglevel=error)
  cp "$root/openapi/package-lock.json" "$stamp"
fi
