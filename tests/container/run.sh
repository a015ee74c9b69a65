#!/usr/bin/env bash
# paddock inside a real container (podman from Debian), rootful and rootless where this machine
# allows, under three seccomp profiles: podman's default (the runtime's own), moby's default (what
# Docker and containerd's RuntimeDefault apply) and the shipped one
# (packaging/container/seccomp/paddock.json, with /proc unmasked as the shipped settings say).
# In each: doctor's verdict, `paddock run` (project written, a secret in HOME unreadable, the
# fallback announced when doctor says there is one) and one `paddock mcp` call. Then, rootful:
# the shipped profile is exactly moby's default plus its additions, and each addition is needed.
# usage: tests/container/run.sh PADDOCK_BINARY
# Exit 77 (skipped, with the reason) where podman is missing or cannot start a container here.
set -euo pipefail
paddock_bin=$(readlink -f "$1")
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
skip() { echo "SKIPPED: $*"; exit 77; }
fail=0
check() {  # check NAME CONDITION-RESULT DETAIL
  if [ "$2" = 1 ]; then echo "ok   - $1"; else echo "FAIL - $1: $3"; fail=1; fi
}

[ "$(id -u)" = 0 ] || skip "needs root (rootful podman; the rootless run drops to the test user)"
command -v podman >/dev/null || skip "podman is not installed (scripts/test-setup.d/fleet.sh installs it)"
moby=${PADDOCK_MOBY_SECCOMP:-/var/cache/paddock-tests/moby-seccomp-default.json}
shipped=$root/packaging/container/seccomp/paddock.json

# The OCI runtime: runc where installed (crun 1.8 refuses a hybrid cgroup v1/v2 layout, as on
# this project's machines), else podman's default.
rt=()
if command -v runc >/dev/null; then rt=(--runtime runc); fi
# podman raises RLIMIT_NOFILE/NPROC for containers, which needs CAP_SYS_RESOURCE; where root
# lacks it (these machines are containers themselves), pass limits it can set.
limits=()
capeff=$(awk '/^CapEff/ {print $2}' /proc/self/status)
if (( (16#$capeff >> 24 & 1) == 0 )); then
  limits=(--ulimit "nofile=$(ulimit -Hn):$(ulimit -Hn)" --ulimit nproc=4096:4096)
fi
P=(podman "${rt[@]}")

image=$(PODMAN="${P[*]}" "$root/packaging/container/build-image.sh" "$paddock_bin") ||
  skip "could not build the image (see above)"
if ! out=$("${P[@]}" run --rm --network none "${limits[@]}" "$image" /bin/true 2>&1); then
  skip "podman cannot start a container here: $out"
fi

# The podman options of each profile (the shipped settings unmask /proc: see docs/scale.md).
profile_opts() {
  case "$1" in
    podman-default) ;;
    moby-default) echo "--security-opt seccomp=$moby" ;;
    shipped) echo "--security-opt seccomp=$shipped --security-opt unmask=/proc/*" ;;
  esac
}

# run_profile WHO PROFILE PODMAN... : runs inside.sh and checks what it prints.
run_profile() {
  local who=$1 prof=$2
  shift 2
  local -a pod=("$@")
  if [ "$prof" = moby-default ] && [ ! -s "$moby" ]; then
    echo "skip - $who/$prof: $moby missing (scripts/test-setup.d/fleet.sh extracts it)"
    return
  fi
  local out
  # shellcheck disable=SC2086
  out=$("${pod[@]}" run --rm --network none "${limits[@]}" $(profile_opts "$prof") \
          -v "$here/inside.sh:/inside.sh:ro" "$image" /bin/bash /inside.sh 2>&1) || true
  local verdict userns run_rc written mcp_answer
  verdict=$(sed -n 's/^verdict=//p' <<<"$out")
  userns=$(sed -n 's/^userns=//p' <<<"$out")
  run_rc=$(sed -n 's/^run_rc=//p' <<<"$out")
  written=$(sed -n 's/^written=//p' <<<"$out")
  mcp_answer=$(sed -n 's/^mcp_answer=//p' <<<"$out")
  echo "     $who/$prof: doctor: $verdict (user namespaces: $userns)"
  local runout=${out#*----- run.out}
  runout=${runout%%----- run.err*}
  local runerr=${out#*----- run.err}
  runerr=${runerr%%----- mcp.err*}
  check "$who/$prof: paddock run ran the command" "$([[ $runout == *inside-ok* ]] && echo 1 || echo 0)" "$out"
  check "$who/$prof: the project was written" "$([ "$written" = written ] && echo 1 || echo 0)" "rc $run_rc"
  check "$who/$prof: a secret in HOME stayed unreadable" "$([[ $out != *s3cret-in-home* ]] && echo 1 || echo 0)" "$runout"
  check "$who/$prof: paddock mcp answered 42" "$([ "$mcp_answer" = '"stdout":"42\n"' ] && echo 1 || echo 0)" "$mcp_answer ${out#*----- mcp.err}"
  local announced=0
  [[ $runerr == *"user namespaces unavailable"* ]] && announced=1
  case "$prof" in
    shipped)
      check "$who/$prof: doctor says namespaces" "$([[ $verdict == namespaces+* ]] && echo 1 || echo 0)" "$verdict / $userns"
      check "$who/$prof: run used them (own /proc, no fallback notice)" \
        "$([ $announced = 0 ] && [[ $runout =~ procs=[1-4]$'\n' || $runout =~ procs=[1-4]$ ]] && echo 1 || echo 0)" "$runout $runerr" ;;
    *)
      # Measured, not assumed: whatever doctor says, run must do and say the same.
      if [[ $verdict == namespaces+* ]]; then
        check "$who/$prof: doctor says namespaces and run used them" "$([ $announced = 0 ] && echo 1 || echo 0)" "$runerr"
      else
        check "$who/$prof: doctor says fallback and run announced it" "$([ $announced = 1 ] && echo 1 || echo 0)" "$runerr"
      fi ;;
  esac
}

for prof in podman-default moby-default shipped; do run_profile rootful "$prof" "${P[@]}"; done

# The shipped profile is exactly moby's default plus its additions, and each addition is needed.
if [ -s "$moby" ]; then
  regenerated=$(python3 "$root/packaging/container/seccomp/make-profile.py" "$moby")
  check "shipped profile = make-profile.py over moby's default" \
    "$([ "$regenerated" = "$(cat "$shipped")" ] && echo 1 || echo 0)" "regenerate: packaging/container/seccomp/make-profile.py $moby > $shipped"
  tmpd=$(mktemp -d)
  for name in $(python3 -c "import json,sys; print(' '.join(json.load(open(sys.argv[1]))['syscalls'][-1]['names']))" "$shipped"); do
    python3 - "$shipped" "$name" > "$tmpd/without.json" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))
p["syscalls"][-1]["names"].remove(sys.argv[2])
json.dump(p, sys.stdout)
PY
    v=$("${P[@]}" run --rm --network none "${limits[@]}" --security-opt "seccomp=$tmpd/without.json" \
          --security-opt 'unmask=/proc/*' "$image" /usr/local/bin/paddock doctor 2>&1 |
        sed -n 's/^`paddock run` will use: //p')
    check "without $name the shipped profile no longer gives namespaces" \
      "$([[ $v != namespaces+* ]] && echo 1 || echo 0)" "doctor still says: $v"
  done
  rm -rf "$tmpd"
fi

# Rootless: the unprivileged test user's own podman (subordinate ids from /etc/subuid).
user=${PADDOCK_TEST_USER:-paddock-test}
if ! id "$user" >/dev/null 2>&1; then
  echo "skip - rootless: no user $user (scripts/test-user.sh)"
elif ! grep -q "^$user:" /etc/subuid 2>/dev/null; then
  echo "skip - rootless: $user has no subordinate ids in /etc/subuid (scripts/test-setup.d/fleet.sh adds them)"
else
  home=$(mktemp -d /tmp/paddock-rootless.XXXXXX)
  chmod 755 "$home"
  cp "$paddock_bin" "$home/paddock"
  cp -r "$root/packaging" "$home/packaging"
  cp "$here/inside.sh" "$home/inside.sh"
  recipe=$(sha256sum < "$root/packaging/container/rootfs.sh" | cut -c1-12)
  mkdir -p "$home/.cache/paddock-image"
  cp /var/cache/paddock-image/rootfs-"$recipe".tar "$home/.cache/paddock-image/" 2>/dev/null || true
  chown -R "$user:" "$home"
  as_user=(setpriv --reuid="$user" --regid="$user" --clear-groups
           env -i PATH=/usr/local/bin:/usr/bin:/bin HOME="$home" USER="$user" XDG_RUNTIME_DIR="$home/run")
  "${as_user[@]}" mkdir -m 700 -p "$home/run"
  if ! rimage=$("${as_user[@]}" env PODMAN="${P[*]}" "$home/packaging/container/build-image.sh" "$home/paddock" 2>"$home/build.err"); then
    echo "skip - rootless: cannot build the image as $user: $(tail -3 "$home/build.err")"
  elif ! rout=$("${as_user[@]}" "${P[@]}" run --rm --network none "$rimage" /bin/true 2>&1); then
    echo "skip - rootless: podman cannot start a container as $user here: $rout"
  else
    # The same checks with the user's copies (the checkout may be out of its reach).
    image=$rimage here=$home shipped=$home/packaging/container/seccomp/paddock.json
    if [ -s "$moby" ]; then cp "$moby" "$home/moby.json"; chmod 644 "$home/moby.json"; moby=$home/moby.json; fi
    for prof in podman-default moby-default shipped; do run_profile rootless "$prof" "${as_user[@]}" "${P[@]}"; done
  fi
  "${as_user[@]}" "${P[@]}" system reset -f >/dev/null 2>&1 || true
  rm -rf "$home"
fi

[ $fail = 0 ] && echo "container: all checks passed" || echo "container: some checks FAILED"
exit $fail
