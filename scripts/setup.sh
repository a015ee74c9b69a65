#!/usr/bin/env bash
# Installs what paddock needs from Debian's packages (as root) and builds it into ./build.
# Idempotent: installs only what is missing. Set PADDOCK_NO_INSTALL=1 to skip installing.
set -euo pipefail
cd "$(dirname "$0")/.."

pkgs=(build-essential cmake ninja-build pkg-config
      libseccomp-dev nlohmann-json3-dev libtomlplusplus-dev libcli11-dev libfmt-dev
      libgtest-dev libgmock-dev libbenchmark-dev lld clang libclang-rt-14-dev
      bubblewrap hyperfine jq iproute2 util-linux procps python3 git time
      openssl curl passwd login findutils coreutils
      tmux       # tests/agents/run.sh drives each agent's interactive start in a terminal
      zsh        # tests/agents/run.sh runs Claude Code's commands in zsh too (the shell step)
      sudo     # paddock host escalates through it (docs/host.md; tests/host/run.sh)
      python3-pytest  # the Python binding's tests (python/tests, ctest python.paddock)
      apparmor)  # apparmor_parser: tests/packaging/apparmor.sh parses the AppArmor profile

if [ "${PADDOCK_NO_INSTALL:-0}" != 1 ]; then
  missing=()
  for p in "${pkgs[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  if [ ${#missing[@]} -gt 0 ]; then
    if [ "$(id -u)" != 0 ]; then
      echo "setup.sh: missing packages (${missing[*]}); run as root or install them" >&2
      exit 1
    fi
    echo "setup.sh: installing ${missing[*]}"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  fi
fi

cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j"$(nproc)"
echo "setup.sh: built build/paddock"
