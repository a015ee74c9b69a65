#!/usr/bin/env bash
# What the packaging and command-line tests need from Debian's packages: debhelper and lintian
# (scripts/package.sh, packaging.deb), mmdebstrap (the clean root packaging.deb installs into),
# man-db (cli.man renders the pages with man), zsh and fish (cli.completion checks their
# scripts). Idempotent; PADDOCK_NO_INSTALL=1 skips it (the tests then skip, saying why).
set -euo pipefail
pkgs=(dpkg-dev debhelper lintian mmdebstrap man-db zsh fish jq)
[ "${PADDOCK_NO_INSTALL:-0}" = 1 ] && exit 0
[ "$(id -u)" = 0 ] || exit 0
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
echo "packaging tests: installing ${missing[*]}"
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
