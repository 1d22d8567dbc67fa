#!/usr/bin/env bash
# Installs the packages woc needs to build and test, on Debian 12 (bookworm).
# Only missing packages are installed (detected with dpkg -s); apt-get update
# runs only when something is missing; safe to run any number of times.
#
# llvm-19-dev's CMake package does not need zlib/zstd/libedit/libxml2/curl
# development files to configure and link the shared libLLVM woc uses
# (checked by configuring with each of those find_package calls disabled), so
# they are not listed here.
set -euo pipefail

packages=(build-essential cmake llvm-19-dev re2c bison doctest-dev ccache libssl-dev libsqlite3-dev)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg -s "$p" 2>/dev/null | grep -q '^Status: install ok installed'; then
    missing+=("$p")
  fi
done

if [[ ${#missing[@]} -eq 0 ]]; then
  echo "setup-deps: all present (${packages[*]})"
  exit 0
fi

echo "setup-deps: installing ${missing[*]}"
sudo=()
if [[ $(id -u) -ne 0 ]]; then
  if command -v sudo >/dev/null; then
    sudo=(sudo)
  else
    echo "setup-deps: not root and no sudo; install as root: apt-get install ${missing[*]}" >&2
    exit 1
  fi
fi
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get update -q
"${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}"
echo "setup-deps: installed ${missing[*]}"
