#!/usr/bin/env bash
# What the fleet and container tests need (docs/scale.md), from Debian's packages and the npm
# registry only: podman and runc (tests/container), mmdebstrap (the image's root filesystem),
# haproxy (tests/fleet's load balancer), prometheus (promtool checks /metrics), uidmap and
# subordinate ids for the test user (rootless podman); moby's default seccomp profile, taken out of
# Debian's golang-github-docker-docker-dev without installing it (its dependencies are large);
# and the manifest validators of tests/k8s (npm ci). Idempotent.
set -euo pipefail
cd "$(dirname "$0")/../.."
if [ "$(id -u)" = 0 ] && [ "${PADDOCK_NO_INSTALL:-0}" != 1 ]; then
  pkgs=(podman runc uidmap mmdebstrap haproxy prometheus)
  missing=()
  for p in "${pkgs[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  if [ ${#missing[@]} -gt 0 ]; then
    echo "fleet tests: installing ${missing[*]}"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  fi
  moby=/var/cache/paddock-tests/moby-seccomp-default.json
  if [ ! -s "$moby" ]; then
    tmp=$(mktemp -d)
    chmod 755 "$tmp"
    if id _apt >/dev/null 2>&1; then chown _apt "$tmp"; fi  # apt downloads as _apt
    (cd "$tmp" && apt-get download -qq golang-github-docker-docker-dev >/dev/null)
    mkdir -p "$(dirname "$moby")"
    dpkg-deb --fsys-tarfile "$tmp"/golang-github-docker-docker-dev_*.deb |
      tar -xO ./usr/share/gocode/src/github.com/docker/docker/profiles/seccomp/default.json > "$moby.tmp"
    chmod 644 "$moby.tmp"
    mv "$moby.tmp" "$moby"
    rm -rf "$tmp"
  fi
  user=${PADDOCK_TEST_USER:-paddock-test}
  if id "$user" >/dev/null 2>&1 && ! grep -q "^$user:" /etc/subuid 2>/dev/null; then
    usermod --add-subuids 300000-365535 --add-subgids 300000-365535 "$user"
  fi
fi
if command -v npm >/dev/null; then
  (cd tests/k8s && npm ci --no-audit --no-fund --loglevel=error)
else
  echo "fleet tests: npm not found; k8s.manifests will be skipped (exit 77)" >&2
fi
