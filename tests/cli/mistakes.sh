#!/usr/bin/env bash
# cli.mistakes: what the paddock binary says when it is mistyped (issue 32). Each case is one line:
# the arguments, the exit code wanted, and a line stderr (or stdout) must hold exactly. Then no
# error line anywhere repeats its command's prefix ("paddock why: why:").
# usage: mistakes.sh PADDOCK_BINARY
set -euo pipefail
P=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
work=$(mktemp -d /tmp/paddock-mistakes.XXXXXX)
trap 'rm -rf "$work"' EXIT
export XDG_CONFIG_HOME=$work/config XDG_STATE_HOME=$work/state PADDOCK_JAILS_DIR=$work/jails
failures=0 checks=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# case RC 'LINE' ARG...: paddock ARG... exits RC and prints LINE (a whole line, stdout or stderr).
case_() {
  local rc=$1 line=$2; shift 2
  checks=$((checks + 1))
  local got=0
  "$P" "$@" >"$work/out" 2>"$work/err" </dev/null || got=$?
  cat "$work/out" "$work/err" >>"$work/all"
  [ "$got" = "$rc" ] || { fail "paddock $*: exit $got, wanted $rc; stderr: $(cat "$work/err")"; return; }
  grep -qxF -- "$line" "$work/out" "$work/err" 2>/dev/null ||
    fail "paddock $*: no line '$line'; it said: $(cat "$work/out" "$work/err")"
}

# The nearest command, option and value.
case_ 2 'paddock: unknown command "runn" (did you mean "run"?)' runn
case_ 2 'paddock jail: unknown command "craete" (did you mean "create"?)' jail craete x
case_ 2 'paddock run: unknown option "--alow" (did you mean "--allow"?)' run --alow x -- true
case_ 2 'paddock doctor: unknown option "--jsn" (did you mean "--json"?)' doctor --jsn
case_ 2 'paddock jail create: --workspace: "overlayy" is not one of host, copy, overlay, worktree (did you mean "overlay"?)' \
  jail create x --workspace overlayy
case_ 2 'paddock jail create: --home: "temp" is not one of stable, temporary' jail create x --home temp
case_ 2 'paddock why: --op: "wirte" is not one of read, write, exec (did you mean "write"?)' why --op wirte --path /
case_ 2 'paddock integrate: agent: "claudee" is not one of claude, codex (did you mean "claude"?)' integrate claudee
case_ 2 'paddock run: --backend: "bwarp" is not one of native, bubblewrap, systemd-run (did you mean "bubblewrap"?)' \
  run --backend bwarp -- true
case_ 2 'paddock: a command is required: run, why, doctor, mcp, integrate, host, jail, undo, checkpoint, completion, version'
case_ 2 'paddock run: hint: paddock run --help lists what it takes' run --alow x
# Errors said once under their command.
case_ 2 'paddock why: give --path PATH or --host HOST' why
# Versions: the commit and the build type, three ways alike.
v=$("$P" version)
checks=$((checks + 1))
[[ $v =~ ^paddock\ [0-9]+\.[0-9]+\.[0-9]+\ \(commit\ ([0-9a-f]{12}(-dirty)?|unknown),\ [A-Za-z]+\)$ ]] ||
  fail "paddock version: '$v' does not name a commit and a build type"
case_ 0 "$v" --version
case_ 0 "$v" -V
# --backend bwrap is bubblewrap.
mkdir -p "$work/src"
case_ 0 '[paddock] jail j: host workspace at '"$work/src"', stable HOME' jail create j --workspace host --source "$work/src" --backend bwrap
checks=$((checks + 1))
"$P" jail show j --json | grep -qx '  "backend": "bubblewrap",' || fail "jail create --backend bwrap did not record bubblewrap"
# A URL where a host is meant is that host.
case_ 0 '[paddock] --allow-domain https://registry.npmjs.org/: taken as registry.npmjs.org' \
  why --allow-domain https://registry.npmjs.org/ --host registry.npmjs.org --port 443
case_ 1 '[paddock] --allow-domain https://registry.npmjs.org/: taken as registry.npmjs.org' \
  why --allow-domain https://registry.npmjs.org/ --host evil.example --port 443
case_ 2 'paddock why: --allow-domain https://user:pw@registry.npmjs.org/: a URL with a user name or password' \
  why --allow-domain https://user:pw@registry.npmjs.org/ --path /
# Help names every agent profile.
checks=$((checks + 1))
help=$("$P" run --help)
for agent in aider claude codex gemini goose opencode pi; do
  grep -q "$agent" <<<"$help" || fail "paddock run --help does not name the $agent profile"
done

# No line says its prefix twice: "paddock why: why:", "paddock integrate: paddock integrate:".
checks=$((checks + 1))
if grep -E '^paddock ([a-z_]+): (paddock )?\1:|^paddock: paddock' "$work/all"; then
  fail "a prefix said twice (above)"
fi

if [ "$failures" -gt 0 ]; then
  echo "mistakes: $failures of $checks checks failed"
  exit 1
fi
echo "mistakes: all $checks checks passed"
