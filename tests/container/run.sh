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
if ! out=$("${P[@]}" run --rm --network none "${limits[@]}" --entrypoint /bin/true "$image" 2>&1); then
  skip "podman cannot start a container here: $out"
fi

# The podman options of each profile (the shipped settings unmask /proc: see docs/scale.md).
# without-NAME: the shipped profile made without that one addition (make-profile.py --without).
profile_opts() {
  case "$1" in
    podman-default) ;;
    moby-default) echo "--security-opt seccomp=$moby" ;;
    shipped) echo "--security-opt seccomp=$shipped --security-opt unmask=/proc/*" ;;
    without-*) echo "--security-opt seccomp=$without_dir/$1.json --security-opt unmask=/proc/*" ;;
  esac
}

# run_profile WHO PROFILE EXPECT PODMAN... : runs inside.sh and checks what it prints. EXPECT:
# namespaces, fallback, or measured (whatever doctor says, run and mcp must do and say the same).
run_profile() {
  local who=$1 prof=$2 expect=$3
  shift 3
  local -a pod=("$@")
  if [ "$prof" = moby-default ] && [ ! -s "$moby" ]; then
    echo "skip - $who/$prof: $moby missing (scripts/test-setup.d/fleet.sh extracts it)"
    return
  fi
  local out
  # shellcheck disable=SC2086
  out=$("${pod[@]}" run --rm --network none "${limits[@]}" $(profile_opts "$prof") \
          -v "$here/inside.sh:/inside.sh:ro" --entrypoint /bin/bash "$image" /inside.sh 2>&1) || true
  local verdict userns run_rc written mcp_answer mcp_error
  verdict=$(sed -n 's/^verdict=//p' <<<"$out")
  userns=$(sed -n 's/^userns=//p' <<<"$out")
  run_rc=$(sed -n 's/^run_rc=//p' <<<"$out")
  written=$(sed -n 's/^written=//p' <<<"$out")
  mcp_answer=$(sed -n 's/^mcp_answer=//p' <<<"$out")
  mcp_error=$(sed -n 's/^mcp_error=//p' <<<"$out")
  echo "     $who/$prof: doctor: $verdict (user namespaces: $userns)"
  local runout=${out#*----- run.out}
  runout=${runout%%----- run.err*}
  local runerr=${out#*----- run.err}
  runerr=${runerr%%----- req.err*}
  local required
  required=$(sed -n 's/^required_rc=//p' <<<"$out")
  check "$who/$prof: paddock run ran the command" "$([[ $runout == *inside-ok* ]] && echo 1 || echo 0)" "$out"
  check "$who/$prof: the project was written" "$([ "$written" = written ] && echo 1 || echo 0)" "rc $run_rc"
  check "$who/$prof: a secret in HOME stayed unreadable" "$([[ $out != *s3cret-in-home* ]] && echo 1 || echo 0)" "$runout"
  local announced=0 isolated=0 doctor_ns=0
  [[ $runerr == *"user namespaces unavailable"* ]] && announced=1
  [[ $runout == *seen=paddock@paddock* ]] && isolated=1
  [[ $verdict == namespaces+* ]] && doctor_ns=1
  if [ "$expect" = namespaces ]; then
    check "$who/$prof: doctor says namespaces" "$doctor_ns" "$verdict / $userns"
  elif [ "$expect" = fallback ]; then
    check "$who/$prof: doctor says fallback" "$([ $doctor_ns = 0 ] && echo 1 || echo 0)" "$verdict / $userns"
  fi
  # Measured, not assumed: run does and says what doctor said.
  if [ $doctor_ns = 1 ]; then
    check "$who/$prof: run used namespaces (paddock's pid 1 and hostname, no fallback notice)" \
      "$([ $announced = 0 ] && [ $isolated = 1 ] && echo 1 || echo 0)" "$runout $runerr"
    check "$who/$prof: run --require-namespaces ran" "$([ "$required" = "0 required_ran=required-ran" ] && echo 1 || echo 0)" "$required"
    check "$who/$prof: paddock mcp answered 42" "$([ "$mcp_answer" = '"stdout":"42\n"' ] && echo 1 || echo 0)" \
      "$mcp_answer ${out#*----- mcp.err}"
  else
    check "$who/$prof: run fell back and announced it" "$([ $announced = 1 ] && [ $isolated = 0 ] && echo 1 || echo 0)" \
      "$runout $runerr"
    check "$who/$prof: run --require-namespaces refused" \
      "$([[ $required != 0* && $required == *"required_ran=" &&
            ( $out == *"refusing to run without user namespaces"* || $out == *"sandbox setup failed"* ) ]] && echo 1 || echo 0)" "$required"
    # paddock mcp's workspaces are mounts: without namespaces every call is refused, saying why.
    check "$who/$prof: paddock mcp refused the call, saying it needs user namespaces" \
      "$([[ $mcp_error == *"need user namespaces"* ]] && echo 1 || echo 0)" "$mcp_answer $mcp_error"
  fi
}

for prof in podman-default moby-default; do run_profile rootful "$prof" measured "${P[@]}"; done
run_profile rootful shipped namespaces "${P[@]}"

# The shipped profile is exactly moby's default plus its additions, and each addition is needed:
# made without it (the base's own rule for that call stays), paddock falls back, announced.
without_dir=$(mktemp -d)
trap 'rm -rf "$without_dir"' EXIT
if [ -s "$moby" ]; then
  regenerated=$(python3 "$root/packaging/container/seccomp/make-profile.py" "$moby")
  check "shipped profile = make-profile.py over moby's default" \
    "$([ "$regenerated" = "$(cat "$shipped")" ] && echo 1 || echo 0)" "regenerate: packaging/container/seccomp/make-profile.py $moby > $shipped"
  for name in $(python3 -c "import json,sys; print(' '.join(json.load(open(sys.argv[1]))['syscalls'][-1]['names']))" "$shipped"); do
    python3 "$root/packaging/container/seccomp/make-profile.py" "$moby" --without "$name" > "$without_dir/without-$name.json"
    run_profile rootful "without-$name" fallback "${P[@]}"
  done
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
  elif ! rout=$("${as_user[@]}" "${P[@]}" run --rm --network none --entrypoint /bin/true "$rimage" 2>&1); then
    echo "skip - rootless: podman cannot start a container as $user here: $rout"
  else
    # The same checks with the user's copies (the checkout may be out of its reach).
    image=$rimage here=$home shipped=$home/packaging/container/seccomp/paddock.json
    if [ -s "$moby" ]; then cp "$moby" "$home/moby.json"; chmod 644 "$home/moby.json"; moby=$home/moby.json; fi
    for prof in podman-default moby-default; do run_profile rootless "$prof" measured "${as_user[@]}" "${P[@]}"; done
    run_profile rootless shipped namespaces "${as_user[@]}" "${P[@]}"
  fi
  "${as_user[@]}" "${P[@]}" system reset -f >/dev/null 2>&1 || true
  rm -rf "$home"
fi

[ $fail = 0 ] && echo "container: all checks passed" || echo "container: some checks FAILED"
exit $fail
