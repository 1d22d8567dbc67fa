#!/usr/bin/env bash
# Installs what `make fuzz` needs on top of scripts/setup-deps.sh, on Debian 12
# (bookworm): clang-19 (libFuzzer instrumentation must come from the same LLVM
# release as the libLLVM woc links), libFuzzer and clang's sanitizer runtimes.
# Kept apart from setup-deps.sh so that `make test` does not pull in a second
# compiler. Only missing packages are installed; safe to run any number of
# times. apt/dpkg may be busy (another install running on the same machine):
# every apt-get call is retried while the dpkg lock is held.
set -euo pipefail

packages=(clang-19 libfuzzer-19-dev libclang-rt-19-dev)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg -s "$p" 2>/dev/null | grep -q '^Status: install ok installed'; then
    missing+=("$p")
  fi
done

if [[ ${#missing[@]} -eq 0 ]]; then
  echo "setup-fuzz-deps: all present (${packages[*]})"
  exit 0
fi

echo "setup-fuzz-deps: installing ${missing[*]}"
sudo=()
if [[ $(id -u) -ne 0 ]]; then
  if command -v sudo >/dev/null; then
    sudo=(sudo)
  else
    echo "setup-fuzz-deps: not root and no sudo; install as root: apt-get install ${missing[*]}" >&2
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
    echo "setup-fuzz-deps: apt is busy (try $try), waiting" >&2
    sleep 10
  done
  return 1
}

apt_retry update -q
apt_retry install -y -q --no-install-recommends "${missing[@]}"
echo "setup-fuzz-deps: installed ${missing[*]}"
