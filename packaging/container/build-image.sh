#!/usr/bin/env bash
# Builds paddock's container image with podman from Debian packages and the project's build
# only: the base is rootfs.sh's tarball imported as localhost/paddock-base:HASH (HASH of rootfs.sh,
# so it is rebuilt only when the recipe changes; the tarball is cached in CACHE_DIR), then the
# Containerfile adds paddock (stripped) with --pull=never. Prints the image name.
# usage: packaging/container/build-image.sh PADDOCK_BINARY [TAG]
#   env: PADDOCK_IMAGE_CACHE (default /var/cache/paddock-image, or $XDG_CACHE_HOME/paddock-image
#        when not root), PODMAN (default podman), PODMAN_RUN_OPTS (extra options for build steps)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
binary=$1
podman=${PODMAN:-podman}
if [ "$(id -u)" = 0 ]; then cache=${PADDOCK_IMAGE_CACHE:-/var/cache/paddock-image}
else cache=${PADDOCK_IMAGE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/paddock-image}; fi
mkdir -p "$cache"
recipe=$(cat "$here/rootfs.sh" | sha256sum | cut -c1-12)
base=localhost/paddock-base:$recipe
if ! $podman image exists "$base"; then
  tarball=$cache/rootfs-$recipe.tar
  if [ ! -s "$tarball" ]; then
    echo "build-image.sh: building the Debian root filesystem (mmdebstrap; a few minutes)" >&2
    "$here/rootfs.sh" "$tarball" >&2
  fi
  $podman import "$tarball" "$base" >/dev/null
fi
ctx=$(mktemp -d)
trap 'rm -rf "$ctx"' EXIT
strip -o "$ctx/paddock" "$binary" 2>/dev/null || cp "$binary" "$ctx/paddock"
cp "$here/Containerfile" "$here/mcp.toml" "$ctx/"
tag=${2:-localhost/paddock:$(sha256sum "$ctx/paddock" | cut -c1-12)}
if ! $podman image exists "$tag"; then
  # shellcheck disable=SC2086
  $podman build --pull=never ${PODMAN_RUN_OPTS:-} --build-arg "BASE=$base" -t "$tag" "$ctx" >&2
fi
echo "$tag"
