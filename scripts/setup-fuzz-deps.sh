#!/usr/bin/env bash
# Installs what `make fuzz` needs on top of scripts/setup-deps.sh, on Debian 12
# (bookworm): clang-19 (libFuzzer instrumentation must come from the same LLVM
# release as the libLLVM woc links), libFuzzer and clang's sanitizer runtimes.
# Kept apart from the default list so that `make test` does not pull in a
# second compiler; setup-deps.sh does the installing.
set -euo pipefail
exec bash "$(dirname "${BASH_SOURCE[0]}")/setup-deps.sh" clang-19 libfuzzer-19-dev libclang-rt-19-dev
