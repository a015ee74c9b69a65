#!/usr/bin/env bash
# Builds the root filesystem of paddock's container image from Debian's packages only, with
# Debian's own tool (mmdebstrap), as a tarball that `podman import` / `docker import` turn into a
# base image: no registry is pulled from. Minimal: Debian's essential set plus the interpreters
# the built-in MCP environments use (bash, python3), and an unprivileged user `paddock` (uid
# 65532) that the image runs as. paddock itself is added by build-image.sh (Containerfile).
# usage: packaging/container/rootfs.sh OUT.tar [SUITE] [SOURCES]
#   SOURCES: an apt sources file (default: this machine's, so the same mirror is used).
set -euo pipefail
out=$1 suite=${2:-bookworm}
sources=${3:-}
if [ -z "$sources" ]; then
  for f in /etc/apt/sources.list.d/debian.sources /etc/apt/sources.list; do
    if [ -s "$f" ]; then sources=$f; break; fi
  done
fi
command -v mmdebstrap >/dev/null || { echo "rootfs.sh: needs mmdebstrap (apt-get install mmdebstrap)" >&2; exit 2; }
tmp="${out%.tar}.partial-$$.tar"  # mmdebstrap wants a new file, and reads the format from ".tar"
trap 'rm -f "$tmp"' EXIT
mmdebstrap --variant=essential --include=python3 \
  --dpkgopt='path-exclude=/usr/share/doc/*' --dpkgopt='path-exclude=/usr/share/man/*' \
  --dpkgopt='path-exclude=/usr/share/locale/*' --dpkgopt='path-exclude=/usr/share/info/*' \
  --customize-hook='echo "paddock:x:65532:65532:paddock:/home/paddock:/bin/bash" >> "$1/etc/passwd"' \
  --customize-hook='echo "paddock:x:65532:" >> "$1/etc/group"' \
  --customize-hook='mkdir -p "$1/home/paddock" "$1/etc/paddock" && chown 65532:65532 "$1/home/paddock"' \
  --customize-hook='rm -rf "$1/var/cache/apt/"* "$1/var/lib/apt/lists/"*' \
  "$suite" "$tmp" "$sources"
mv "$tmp" "$out"
trap - EXIT
