# Sourced by bench/startup.sh and bench/user_bench.sh: sets the array BW to bubblewrap running
# /bin/true with the same shape as paddock's default policy (all namespaces, a tmpfs root, the
# system read-only, fresh /tmp and HOME, --proc, --dev) and PROJECT ($1) bound read-write as the
# working directory.
bwrap_like() {
  local project=$1 d
  BW=(bwrap --unshare-all --die-with-parent --new-session --tmpfs /)
  for d in /usr /etc /opt /nix/store; do [ -d "$d" ] && BW+=(--ro-bind "$d" "$d"); done
  for d in /bin /sbin /lib /lib32 /lib64 /libx32; do
    if [ -L "$d" ]; then BW+=(--symlink "$(readlink "$d")" "$d"); elif [ -d "$d" ]; then BW+=(--ro-bind "$d" "$d"); fi
  done
  BW+=(--proc /proc --dev /dev --tmpfs /tmp --tmpfs "$HOME" --bind "$project" "$project" --chdir "$project" /bin/true)
}
