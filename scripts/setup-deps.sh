#!/usr/bin/env bash
# Installs the packages woc needs to build and test, on Debian 12 (bookworm).
# Only missing packages are installed (detected with dpkg -s); apt-get update
# runs only when something is missing; safe to run any number of times.
# With arguments it installs those packages instead (setup-fuzz-deps.sh).
# apt/dpkg may be busy (another install on the same machine): every apt-get
# call is retried while the dpkg lock is held.
#
# llvm-19-dev's CMake package does not need zstd/libedit/curl development
# files to configure and link the static LLVM libraries woc uses (zstd is
# linked as libzstd.so.1; zlib and z3 come with llvm-19-dev's own
# dependencies), so they are not listed here.
set -euo pipefail

packages=(build-essential cmake llvm-19-dev re2c bison doctest-dev ccache libssl-dev libsqlite3-dev libboost-context-dev
          node-llhttp  # the C sources of llhttp (runtime/src/http/)
          libgcc-12-dev  # libbacktrace.a + backtrace.h: trap call chains (runtime/src/core/backtrace.cpp)
          gdb  # the scripted debugger session of `woc build -g` (tests/debug/)
          lld  # `woc build` links with ld.lld when present: ~4x less link time than GNU ld (docs/decisions/0055)
          liblld-19-dev  # lld's ELF driver as a library: `woc build` links in its own process (docs/decisions/0071)
          clang-19  # compiles runtime/src/inline/helpers.cpp to the LLVM bitcode woc inlines (codegen/, decision 0052)
          nlohmann-json3-dev  # JSON for `woc lsp` (tools/woc/lsp/)
          libsimdjson-dev  # simdjson On-Demand: json.decode's fast path (runtime/src/builtins/json_simd.cpp)
          libpq-dev  # libpq-fe.h for the PostgreSQL store (runtime/src/pg/; libpq.so.5 is loaded at run time)
          libc-ares-dev  # ares.h for net.connect's name lookups (runtime/src/net/resolve.cpp; libcares.so.2 is loaded at run time)
          openssl ca-certificates  # the TLS tests make their own certificates; net.connect_tls trusts the system's CAs
          postgresql-15  # the private server of the PostgreSQL tests (scripts/pg-temp.sh, tests/pg/)
          haproxy  # the load balancer in front of two web-app processes (tests/pg/two-process.sh)
          git curl python3)  # the package tests (git deps over file://) and the web-app gate's clients
[[ $# -gt 0 ]] && packages=("$@")

missing=()
for p in "${packages[@]}"; do
  if ! dpkg -s "$p" 2>/dev/null | grep -q '^Status: install ok installed'; then
    missing+=("$p")
  fi
done

# The tree-sitter tools of editors/tree-sitter-wo come from the npm registry
# (built once into build/tree-sitter/tools, where its ctest looks).
tree_sitter() {
  [[ $# -eq 0 ]] || return 0
  # Not fatal here: the ctest editors.tree-sitter runs the same script and fails there if it still cannot.
  bash "$(dirname "$0")/setup-tree-sitter.sh" "$(cd "$(dirname "$0")/.." && pwd)/build/tree-sitter/tools" ||
    echo "setup-deps: the tree-sitter tools could not be built now (ctest editors.tree-sitter tries again)" >&2
}

if [[ ${#missing[@]} -eq 0 ]]; then
  echo "setup-deps: all present (${packages[*]})"
  tree_sitter "$@"
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
# apt-get waits for the lock itself with DPkg::Lock::Timeout (apt >= 1.9.11);
# the loop covers the lists lock and older apt, and gives up after ~10 minutes.
apt_retry() {
  local try
  for try in $(seq 1 60); do
    if "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=60 "$@"; then
      return 0
    fi
    if ! pgrep -x 'apt-get|apt|dpkg|unattended-upgr' >/dev/null 2>&1 &&
       ! fuser /var/lib/dpkg/lock-frontend /var/lib/apt/lists/lock >/dev/null 2>&1; then
      return 1  # failed for another reason than a busy lock
    fi
    echo "setup-deps: apt is busy (try $try), waiting" >&2
    sleep 10
  done
  return 1
}

apt_retry update -q
apt_retry install -y -q --no-install-recommends "${missing[@]}"
echo "setup-deps: installed ${missing[*]}"
tree_sitter "$@"
