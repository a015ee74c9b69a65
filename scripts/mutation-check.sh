#!/usr/bin/env bash
# Shows that each protection has a test that fails without it (issue 19): every mutation in
# tests/mutations/NAME.patch switches one protection off; each is applied in turn to a scratch
# copy of this tree (never to the tree itself), built, and the tests run as root and as the
# unprivileged test user (scripts/run-as.sh). One line per mutation names the tests that failed;
# the last line is `mutation-check: C of M mutations caught`. Not part of CI (docs/testing.md).
#
# usage: scripts/mutation-check.sh [--list] [--all-tests] [--keep] [--shards N] [NAME...]
#   NAME...      only these mutations (default: all)
#   --list       print the mutations and the protection each removes, then exit
#   --all-tests  run every kernel test for every mutation, not only the ones its patch names
#   --keep       keep the scratch tree and the logs (printed at the end)
#   --shards N   after the baseline, check the mutations in N scratch trees at once (default 1;
#                most of a mutation's time is tests waiting, not the CPU). The integration
#                tests and the shell suites, which share host state (cgroups, jails, host-mode
#                users), still run one at a time (a lock per suite); so do the shards' builds.
#
# A patch starts with two comment lines that git apply skips:
#   # protection: what the patch switches off
#   # tests: unit [escape:GTEST_FILTER] [integration:GTEST_FILTER] [jail] [host] [mcp[:FILE.mjs...]]
# The unit tests (every unit_* binary) always run; escape/integration run with that filter as
# root and as the unprivileged user; the shell suites run whole: `jail` (tests/jail/run.sh) and
# `mcp` (tests/mcp/run.sh, optionally only the named test files, comma-separated) as root and as
# the unprivileged user, `host` (tests/host/run.sh) as root. A shell suite's failures are its
# `FAIL ...` lines (mcp: node's `not ok` lines). The same tests first run on the unmutated tree:
# a test that fails there makes the check stop (it would count as a catch).
#
# Exit status: 0 if every mutation was caught, 1 if one was not, 2 on an error (a patch that no
# longer applies, a build that fails, a baseline test that fails).
set -euo pipefail

src=$(cd "$(dirname "$0")/.." && pwd)
mutdir=$src/tests/mutations
list=0 all_tests=0 keep=0 shards=1 baseline=1
names=()
while [ $# -gt 0 ]; do
  a=$1; shift
  case "$a" in
    --list) list=1 ;;
    --all-tests) all_tests=1 ;;
    --keep) keep=1 ;;
    --shards)
      shards=${1:-}; shift || true
      [[ "$shards" =~ ^[1-9][0-9]*$ ]] || { echo "mutation-check: --shards needs a count of 1 or more" >&2; exit 2; } ;;
    --shard-of-a-run) baseline=0 ;;  # internal: a shard; the parent ran the baseline on the same tree
    -h|--help) sed -n '2,29p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "mutation-check: unknown option $a" >&2; exit 2 ;;
    *) names+=("$a") ;;
  esac
done

header() {  # header FILE KEY
  sed -n "s/^# $2: //p" "$1" | head -n 1
}

if [ ${#names[@]} -eq 0 ]; then
  for f in "$mutdir"/*.patch; do names+=("$(basename "$f" .patch)"); done
fi
for n in "${names[@]}"; do
  [ -f "$mutdir/$n.patch" ] || { echo "mutation-check: no mutation named $n ($mutdir/$n.patch)" >&2; exit 2; }
done

if [ $list = 1 ]; then
  for n in "${names[@]}"; do printf '%-28s %s\n' "$n" "$(header "$mutdir/$n.patch" protection)"; done
  exit 0
fi

[ "$(id -u)" = 0 ] || { echo "mutation-check: runs the kernel tests as root and as the test user: run it as root" >&2; exit 2; }

scratch=$(mktemp -d /tmp/paddock-mutation.XXXXXX)
logs=$scratch/logs
mkdir -p "$logs"
cleanup() {
  if [ $keep = 1 ]; then echo "mutation-check: scratch tree and logs kept in $scratch" >&2; else rm -rf "$scratch"; fi
}
trap cleanup EXIT

# The tree as it is now (tracked and untracked files, uncommitted changes included), no build dirs.
(cd "$src" && git ls-files -z -co --exclude-standard | tar --null -T - -cf -) | tar -xf - -C "$scratch"
tree=$scratch
build=$tree/build
# ccache keys on paths relative to the base dir: the scratch copy hits what the caller's build cached.
export CCACHE_BASEDIR=$tree
jobs=${MUTATION_JOBS:-2}
launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)

echo "mutation-check: building the unmutated tree in $tree" >&2
cmake -S "$tree" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo "${launcher[@]}" >"$logs/cmake.log" 2>&1 ||
  { echo "mutation-check: cmake failed ($logs/cmake.log)" >&2; keep=1; exit 2; }
# Shared by the shards of one run (and by runs at the same time): what must not run twice at once.
one_at_a_time() {  # one_at_a_time KIND COMMAND...
  flock "${TMPDIR:-/tmp}/paddock-mutation-$1.lock" "${@:2}"
}
build_tree() {  # build_tree LOG
  one_at_a_time build ninja -C "$build" -j"$jobs" >"$1" 2>&1
}
build_tree "$logs/build-base.log" || { echo "mutation-check: the unmutated tree does not build ($logs/build-base.log)" >&2; keep=1; exit 2; }

# The kernel test specs ("escape:FILTER", "integration:FILTER") of a mutation.
kernel_specs() {  # kernel_specs NAME
  if [ $all_tests = 1 ]; then echo "escape:* integration:* jail host mcp"; return; fi
  local t
  for t in $(header "$mutdir/$1.patch" tests); do
    case "$t" in escape:*|integration:*|jail|host|mcp|mcp:*) echo "$t" ;; esac
  done
}

# Runs the unit binaries and SPECS; prints the failed tests, one per line, "suite: Test.Name (who)".
run_tests() {  # run_tests TAG SPEC...
  local tag=$1; shift
  local b out rc suite filter who
  for b in "$build"/tests/unit_*; do
    [ -f "$b" ] && [ -x "$b" ] || continue
    out=$logs/$tag.$(basename "$b").log
    rc=0
    (cd "$build/tests" && timeout 600 "$b") >"$out" 2>&1 || rc=$?
    report_failures "$(basename "$b")" "" "$out" "$rc"
  done
  for spec in "$@"; do
    suite=${spec%%:*} filter=${spec#*:}
    case "$suite" in jail|host|mcp) run_shell_suite "$tag" "$spec"; continue ;; esac
    for who in root unprivileged; do
      out=$logs/$tag.$suite.$who.log
      rc=0
      local serial=()  # the integration tests share cgroups with every other run; escape's do not
      [ "$suite" = integration ] && serial=(one_at_a_time integration)
      "${serial[@]}" timeout 900 "$src/scripts/run-as.sh" "$who" "$build/tests/${suite}_tests" "$build/paddock" \
        "$build/tests/paddock-probe" --gtest_filter="$filter" >"$out" 2>&1 || rc=$?
      report_failures "$suite" "$who" "$out" "$rc"
    done
  done
}

# A shell suite (tests/jail, tests/host, tests/mcp) against the scratch build.
run_shell_suite() {  # run_shell_suite TAG SPEC
  local tag=$1 spec=$2 suite=${2%%:*} who out rc whos=(root unprivileged) args=()
  [ "$suite" = host ] && whos=(root)
  if [ "$suite" = mcp ] && [ "$spec" != mcp ]; then IFS=, read -r -a args <<<"${spec#mcp:}"; fi
  for who in "${whos[@]}"; do
    out=$logs/$tag.$suite.$who.log
    rc=0
    case "$suite" in
      jail) one_at_a_time jail timeout 1200 "$src/tests/jail/run.sh" "$who" "$build/paddock" >"$out" 2>&1 || rc=$? ;;
      host) one_at_a_time host timeout 1200 "$src/tests/host/run.sh" "$build/paddock" >"$out" 2>&1 || rc=$? ;;
      mcp) one_at_a_time mcp timeout 1200 "$src/tests/mcp/run.sh" "$who" "$build/paddock" "${args[@]}" >"$out" 2>&1 || rc=$? ;;
    esac
    report_shell_failures "$suite" "$who" "$out" "$rc"
  done
}

report_shell_failures() {  # report_shell_failures SUITE WHO LOG RC
  local suite=$1 who=$2 log=$3 rc=$4
  [ "$rc" = 0 ] && return 0
  [ "$rc" = 77 ] && return 0
  if [ "$rc" = 124 ]; then echo "$suite: timed out ($who)"; return 0; fi
  local failed
  failed=$( { sed -n 's/^FAIL \(.*\)$/\1/p' "$log"; sed -n 's/^not ok [0-9]* - \(.*\)$/\1/p' "$log"; } | head -n 20 || true)
  if [ -z "$failed" ]; then echo "$suite: exit $rc ($who)"; return 0; fi
  while IFS= read -r t; do echo "$suite: $t ($who)"; done <<<"$failed"
}

report_failures() {  # report_failures SUITE WHO LOG RC
  local suite=$1 who=$2 log=$3 rc=$4 suffix=""
  [ -n "$who" ] && suffix=" ($who)"
  [ "$rc" = 0 ] && return 0
  [ "$rc" = 77 ] && return 0  # skipped as a whole (run-as.sh)
  if [ "$rc" = 124 ]; then echo "$suite: timed out$suffix"; return 0; fi
  local failed
  failed=$(sed -n 's/^\[  FAILED  \] \([^ ,]*\).*/\1/p' "$log" | grep -v '^[0-9]' | sort -u || true)
  if [ -z "$failed" ]; then echo "$suite: exit $rc$suffix"; return 0; fi
  local t
  for t in $failed; do echo "$suite: $t$suffix"; done
}

# Baseline: the union of what the selected mutations run, on the unmutated tree.
declare -A union
declare -A shells
for n in "${names[@]}"; do
  for spec in $(kernel_specs "$n"); do
    s=${spec%%:*}
    case "$s" in jail|host|mcp) shells[$spec]=1; continue ;; esac
    IFS=: read -r -a pats <<<"${spec#*:}"
    for pat in "${pats[@]}"; do
      case ":${union[$s]:-}:" in *":$pat:"*) ;; *) union[$s]="${union[$s]:+${union[$s]}:}$pat" ;; esac
    done
  done
done
base_specs=()
for s in "${!union[@]}"; do base_specs+=("$s:${union[$s]}"); done
for s in "${!shells[@]}"; do base_specs+=("$s"); done
if [ $baseline = 1 ]; then
  echo "mutation-check: baseline (unmutated): unit ${base_specs[*]}" >&2
  base_fail=$(run_tests base "${base_specs[@]}")
  if [ -n "$base_fail" ]; then
    echo "mutation-check: tests fail without any mutation; fix them first (logs in $logs):" >&2
    echo "$base_fail" | sed 's/^/  /' >&2
    keep=1
    exit 2
  fi
fi

# Shards: the same script on every Nth mutation, each in its own scratch copy of the same tree.
if [ "$shards" -gt 1 ] && [ ${#names[@]} -gt 1 ]; then
  flags=(--shard-of-a-run)
  [ $all_tests = 1 ] && flags+=(--all-tests)
  [ $keep = 1 ] && flags+=(--keep)
  pids=()
  for ((k = 0; k < shards && k < ${#names[@]}; k++)); do
    part=()
    for ((i = k; i < ${#names[@]}; i += shards)); do part+=("${names[$i]}"); done
    "$0" "${flags[@]}" "${part[@]}" >"$logs/shard-$k.out" 2>"$logs/shard-$k.err" &
    pids+=($!)
  done
  worst=0
  for k in "${!pids[@]}"; do
    rc=0
    wait "${pids[$k]}" || rc=$?
    [ $rc -gt $worst ] && worst=$rc
    [ $rc -ge 2 ] && sed 's/^/  shard: /' "$logs/shard-$k.err" >&2
  done
  caught=0 total=0
  for n in "${names[@]}"; do
    line=$(grep -h "^$n: " "$logs"/shard-*.out | head -n 1 || true)
    total=$((total + 1))
    [ -n "$line" ] || line="$n: ERROR: no result from its shard (logs in $logs)"
    case "$line" in "$n: caught by "*) caught=$((caught + 1)) ;; esac
    echo "$line"
  done
  echo "mutation-check: $caught of $total mutations caught"
  [ $worst -ge 2 ] && exit 2
  [ $caught = "$total" ] || exit 1
  exit 0
fi

caught=0 total=0 error=0
for n in "${names[@]}"; do
  patch=$mutdir/$n.patch
  total=$((total + 1))
  if ! (cd "$tree" && git apply "$patch") 2>"$logs/$n.apply.log"; then
    echo "$n: ERROR: the patch no longer applies ($(head -n 1 "$logs/$n.apply.log"))"
    error=1
    continue
  fi
  if ! build_tree "$logs/$n.build.log"; then
    echo "$n: ERROR: does not build with the mutation ($logs/$n.build.log)"
    error=1
  else
    mapfile -t specs < <(kernel_specs "$n")
    fails=$(run_tests "$n" "${specs[@]}")
    if [ -n "$fails" ]; then
      caught=$((caught + 1))
      echo "$n: caught by $(echo "$fails" | paste -sd ';' | sed 's/;/; /g')"
    else
      echo "$n: NOT CAUGHT (ran: unit${specs[*]:+ ${specs[*]}})"
    fi
  fi
  (cd "$tree" && git apply -R "$patch") || { echo "mutation-check: could not revert $n" >&2; keep=1; exit 2; }
done
# The tree is left unmutated and built, so --keep leaves a usable build.
build_tree "$logs/build-end.log" || true

echo "mutation-check: $caught of $total mutations caught"
[ $error = 0 ] || exit 2
[ $caught = "$total" ] || exit 1
