#!/usr/bin/env bash
# Builds the MCP message fuzzer (libFuzzer, ASan + UBSan) in build-fuzz/ and runs it for SECONDS
# over tests/mcp/corpus. New inputs it finds are merged (minimised, -merge=1) into the corpus
# unless --no-grow is given (ctest's fuzz.mcp uses --no-grow: CI never edits the source tree).
# Exit 77 (skip) when clang or libFuzzer's runtime is missing; non-zero on a crash or build error.
#   scripts/fuzz-mcp.sh [--no-grow] SECONDS
set -euo pipefail
cd "$(dirname "$0")/.."
grow=1
if [ "${1:-}" = --no-grow ]; then grow=0; shift; fi
secs=${1:?usage: scripts/fuzz-mcp.sh [--no-grow] SECONDS}
case $secs in ''|*[!0-9]*) echo "fuzz-mcp.sh: SECONDS must be a number: $secs" >&2; exit 2;; esac

cxx=$(command -v clang++ || true)
if [ -z "$cxx" ]; then
  echo "fuzz-mcp.sh: SKIPPED: clang++ not installed (scripts/setup.sh installs clang)" >&2
  exit 77
fi
# libFuzzer's runtime ships in libclang-rt-NN-dev on Debian: probe that -fsanitize=fuzzer links.
probe=$(mktemp -d)
trap 'rm -rf "$probe"' EXIT
echo 'extern "C" int LLVMFuzzerTestOneInput(const unsigned char*, unsigned long) { return 0; }' >"$probe/p.cc"
if ! "$cxx" -fsanitize=fuzzer,address,undefined "$probe/p.cc" -o "$probe/p" 2>"$probe/err"; then
  echo "fuzz-mcp.sh: SKIPPED: clang cannot link -fsanitize=fuzzer (libclang-rt-dev missing?): $(head -1 "$probe/err")" >&2
  exit 77
fi

bdir=${PADDOCK_FUZZ_BUILD_DIR:-build-fuzz}
launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
cmake -S . -B "$bdir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER="$cxx" \
  -DPADDOCK_FUZZ=ON "${launcher[@]}" >/dev/null
cmake --build "$bdir" --target mcp_message_fuzz -j"${PADDOCK_FUZZ_JOBS:-$(nproc)}"

corpus=tests/mcp/corpus
found="$probe/found"
mkdir -p "$found"
# Reads the committed corpus, writes what it finds to a scratch dir. Bounded: total time, time per
# input (a hang is a finding), and memory.
# PADDOCK_FUZZ_RUNS=N (ctest's fuzz.mcp): a fixed seed and N inputs instead of a time, so CI
# explores exactly what was explored when the change was made, whatever the machine's speed.
limit=(-max_total_time="$secs")
if [ -n "${PADDOCK_FUZZ_RUNS:-}" ]; then limit=(-seed=1 -runs="$PADDOCK_FUZZ_RUNS" -max_total_time="$secs"); fi
"$bdir/mcp_message_fuzz" "${limit[@]}" -timeout=20 -rss_limit_mb=2048 -max_len=65536 \
  -print_final_stats=1 "$found" "$corpus"
if [ "$grow" = 1 ]; then
  before=$(ls "$corpus" | wc -l)
  "$bdir/mcp_message_fuzz" -merge=1 "$corpus" "$found" >/dev/null 2>&1
  echo "fuzz-mcp.sh: corpus $before -> $(ls "$corpus" | wc -l) inputs (tests/mcp/corpus)"
fi
