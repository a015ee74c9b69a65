#!/usr/bin/env bash
# cli.json: what a script reads from paddock (issue 32): `jail show` in its human form and with
# --json, `jail diff --name-status --json`, `jail sync --apply --json` (written, held back, and
# refused when the source changed too), `undo restore --dry-run --json` and `--yes --json`. Jails
# and the undo store live in this test's own directories. Exit 77 (a skip) where no sandbox can
# run; needs jq.
# usage: json.sh PADDOCK_BINARY
set -euo pipefail
P=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
command -v jq >/dev/null || { echo "SKIPPED: jq is not installed (Debian: apt-get install jq)"; exit 77; }
work=$(mktemp -d /tmp/paddock-json.XXXXXX)
trap 'chmod -R u+rwx "$work" 2>/dev/null; rm -rf "$work"' EXIT
export XDG_CONFIG_HOME=$work/config XDG_STATE_HOME=$work/state PADDOCK_JAILS_DIR=$work/jails
failures=0 checks=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
check() {  # check DESCRIPTION JQ-FILTER FILE: the filter is true of the file's JSON
  checks=$((checks + 1))
  jq -e "$2" "$3" >/dev/null || fail "$1: not ($2) in $(cat "$3")"
}
mkdir -p "$work/src" "$work/proj"
if ! (cd "$work/proj" && "$P" run -- true) >/dev/null 2>"$work/err"; then
  echo "SKIPPED: no sandbox can run here: $(cat "$work/err")"
  exit 77
fi

# --- jails ---------------------------------------------------------------------------------
echo alpha >"$work/src/a.txt"
echo beta >"$work/src/b.txt"
"$P" jail create j --workspace copy --source "$work/src" 2>/dev/null || fail "jail create"
"$P" jail show j >"$work/show"
checks=$((checks + 1))
grep -qx "jail        j" "$work/show" && grep -q "^workspace   copy  $work/jails/j/" "$work/show" &&
  grep -qE '^created     [0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:]{8}Z$' "$work/show" || fail "jail show (human): $(cat "$work/show")"
"$P" jail show j --json >"$work/show.json"
check "jail show --json" '.name == "j" and .workspace.mode == "copy" and (.size_bytes | type) == "number"' "$work/show.json"

"$P" jail exec j -- sh -c 'echo new >new.txt; echo ALPHA >a.txt' >/dev/null 2>&1 || fail "jail exec"
# A file the host runs, put in the workspace from outside (a run cannot leave one: the after-run
# guard moves it aside): sync holds it back.
ws=$(jq -r .workspace.root "$work/show.json")
echo 'echo hi' >"$ws/.envrc"
"$P" jail diff j --name-status --json >"$work/diff.json" || fail "jail diff --name-status --json"
check "jail diff --json" '.jail == "j" and ([.changes[] | "\(.status) \(.path)"] | sort) == ["A .envrc", "A new.txt", "M a.txt"]' "$work/diff.json"
check "jail diff --json marks what sync holds back" \
  '[.changes[] | select(.held) | .path] == [".envrc"] and ([.changes[] | select(.path == ".envrc") | .held | test("host-run")] == [true])' \
  "$work/diff.json"
checks=$((checks + 1))
rc=0; "$P" jail diff j --json >/dev/null 2>&1 || rc=$?
[ "$rc" = 2 ] || fail "jail diff --json without --name-status: exit $rc, wanted 2"

"$P" jail sync j --apply --json >"$work/sync.json" 2>/dev/null || fail "jail sync --apply --json"
check "jail sync written and held" \
  '([.written[] | "\(.status) \(.path)"] | sort) == ["A new.txt", "M a.txt"] and [.held[].path] == [".envrc"] and (.held[0].held | length) > 0 and .refused == [] and .left_behind == [] and .error == null' \
  "$work/sync.json"
checks=$((checks + 1))
[ -e "$work/src/new.txt" ] && [ ! -e "$work/src/.envrc" ] || fail "sync --apply wrote what it said it held back, or not what it wrote"

# Refused: b.txt changed in the jail and in the source. Nothing is written.
"$P" jail exec j -- sh -c 'echo BETA >b.txt; echo more >more.txt' >/dev/null 2>&1 || fail "jail exec"
echo other >"$work/src/b.txt"
rc=0; "$P" jail sync j --apply --json >"$work/refused.json" 2>/dev/null || rc=$?
checks=$((checks + 1)); [ "$rc" = 1 ] || fail "jail sync over a changed source: exit $rc, wanted 1"
check "jail sync refused" '.refused == ["b.txt"] and .written == [] and (.error | type) == "string"' "$work/refused.json"
checks=$((checks + 1)); [ ! -e "$work/src/more.txt" ] || fail "a refused sync wrote more.txt"
"$P" jail sync j --patch "$work/j.patch" --json >"$work/patch.json" 2>/dev/null || fail "jail sync --patch --json"
check "jail sync --patch --json" '.mode == "patch" and .patch == "'"$work/j.patch"'" and (.written | length) > 0 and [.held[].path] == [".envrc"]' "$work/patch.json"

# A name the run chose is shown escaped, never as the terminal control it holds.
"$P" jail exec j -- sh -c 'printf x >"$(printf "esc\033]0;pwned\007")"' >/dev/null 2>&1 || fail "jail exec"
"$P" jail diff j --name-status >"$work/names" || fail "jail diff --name-status"
checks=$((checks + 1))
grep -qF 'A esc\x1b]0;pwned\x07' "$work/names" || fail "jail diff --name-status did not escape a control character: $(od -c "$work/names" | head -5)"
checks=$((checks + 1))
if grep -q $'\033' "$work/names"; then fail "jail diff --name-status printed a raw escape"; fi

# --- undo restore ----------------------------------------------------------------------------
echo before >"$work/proj/f"
(cd "$work/proj" && "$P" run --undo -- sh -c 'echo after >f; echo n >g') >/dev/null 2>&1 || fail "run --undo"
(cd "$work/proj" && "$P" undo restore --dry-run --json) >"$work/plan.json" 2>/dev/null || fail "undo restore --dry-run --json"
check "undo restore --dry-run --json" \
  '.dry_run == true and .applied == false and .target == 0 and ([.changes[] | "\(.kind) \(.path)"] | sort) == ["deleted g", "modified f"]' \
  "$work/plan.json"
checks=$((checks + 1)); [ "$(cat "$work/proj/f")" = after ] || fail "a dry run changed f"
(cd "$work/proj" && "$P" undo restore --yes --json) >"$work/done.json" 2>/dev/null || fail "undo restore --yes --json"
check "undo restore --yes --json" '.applied == true and (.undo_with | test("^[^:]+:[0-9]+$")) and .held == [] and .left_behind == []' "$work/done.json"
checks=$((checks + 1)); [ "$(cat "$work/proj/f")" = before ] && [ ! -e "$work/proj/g" ] || fail "the restore did not bring f and g back"

if [ "$failures" -gt 0 ]; then
  echo "json: $failures of $checks checks failed"
  exit 1
fi
echo "json: all $checks checks passed"
