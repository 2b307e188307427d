#!/usr/bin/env bash
# Installs what the build and tests need and is not yet there: Debian packages via apt.
# Idempotent and quiet when everything is present, so `make run` / `make test` can call it
# every time. Runs apt as root, or through sudo when not root.
set -euo pipefail

packages=(
  build-essential make cmake pkg-config
  libmicrohttpd-dev libjansson-dev libsqlite3-dev libcriterion-dev
  clang-format
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
