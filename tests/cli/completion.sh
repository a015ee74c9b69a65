#!/usr/bin/env bash
# cli.completion: `paddock completion bash` driven the way bash drives it (COMP_WORDS, COMP_CWORD,
# the _paddock function, COMPREPLY): commands, options, enum values (also as --opt=value), the
# alias left out, profile names (built-in and a user's), jail names, undo sessions, the command
# after "--". A profile file named like shell code is neither offered nor run. Then zsh's script
# is checked for syntax (zsh -n) and fish's driven with `complete -C` — each skipped, and said so,
# where that shell is not installed.
# usage: completion.sh PADDOCK_BINARY
set -euo pipefail
P=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
work=$(mktemp -d /tmp/paddock-completion.XXXXXX)
trap 'rm -rf "$work"' EXIT
export XDG_CONFIG_HOME=$work/config XDG_STATE_HOME=$work/state PADDOCK_JAILS_DIR=$work/jails
failures=0 checks=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

"$P" completion bash >"$work/paddock.bash"
# shellcheck disable=SC1091
source "$work/paddock.bash"

# complete WORD... : what bash offers for the last word (the cursor at its end), one per line.
complete_line() {
  COMP_WORDS=("$P" "$@")
  COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
  COMP_LINE="${COMP_WORDS[*]}"
  COMP_POINT=${#COMP_LINE}
  COMPREPLY=()
  _paddock
  [ ${#COMPREPLY[@]} -eq 0 ] || printf '%s\n' "${COMPREPLY[@]}" | sort
}
# expect "DESCRIPTION" "WANTED (one per line, sorted)" WORD...
expect() {
  local what=$1 want=$2; shift 2
  checks=$((checks + 1))
  local got
  got=$(complete_line "$@")
  [ "$got" = "$want" ] || fail "$what: paddock $* -> [$(echo "$got" | tr '\n' ' ')], wanted [$(echo "$want" | tr '\n' ' ')]"
}
# expect_has "DESCRIPTION" WORD-EXPECTED WORD...: the offer includes it
expect_has() {
  local what=$1 want=$2; shift 2
  checks=$((checks + 1))
  complete_line "$@" | grep -qxF -- "$want" || fail "$what: paddock $* does not offer $want"
}

expect "command" "run" ru
expect "commands sharing a start" "undo" un
expect "nested command" "create" jail cr
expect_has "every top command" "checkpoint" ""
expect "hidden commands stay hidden" "" __
expect "enum value" "overlay" jail create j --workspace ov
expect "enum value after =" "overlay" jail create j --workspace = ov
expect "enum value, empty" "$(printf 'copy\nhost\noverlay\nworktree')" jail create j --workspace ""
expect "the alias is accepted, not offered" "bubblewrap" run --backend b
expect "--op" "write" why --op w
expect "options" "$(printf -- '--allow\n--allow-domain\n--allow-net')" run --all
expect "options of the nested command" "--name-status" jail diff j --na
expect "integrate's agents" "$(printf 'claude\ncodex')" integrate c
expect "completion's shells" "fish" completion f

# Profiles: built-in ones and the user's, never a name that is shell code.
# (Their names run `touch` in the current directory, this test's own: a file appearing there
# means a name was run.)
mkdir -p "$XDG_CONFIG_HOME/paddock/profiles"
cd "$work"
touch "$XDG_CONFIG_HOME/paddock/profiles/mine.toml" \
      "$XDG_CONFIG_HOME/paddock/profiles/\$(touch pwned1).toml" \
      "$XDG_CONFIG_HOME/paddock/profiles/m\`touch pwned2\`.toml" \
      "$XDG_CONFIG_HOME/paddock/profiles/m;touch pwned3.toml"
expect "built-in profiles" "$(printf 'claude\ncodex')" run --profile c
expect "a user's profile" "mine" run --profile mi
expect "the agents' profiles in jail create" "opencode" jail create j --profile op
complete_line run --profile "" >"$work/offered"
complete_line run --profile '$' >>"$work/offered"
complete_line run --profile 'm' >>"$work/offered"
checks=$((checks + 1))
if [ -e "$work/pwned1" ] || [ -e "$work/pwned2" ] || [ -e "$work/pwned3" ]; then
  fail "completing a profile ran code from a profile's file name"
fi
checks=$((checks + 1))
if grep -q 'touch' "$work/offered"; then fail "a profile name that is shell code was offered: $(grep touch "$work/offered")"; fi

# Jails, made for real in a store of this test's own.
mkdir -p "$work/src"
"$P" jail create alpha-1 --workspace host --source "$work/src" 2>/dev/null || fail "jail create alpha-1"
"$P" jail create alpha-2 --workspace host --source "$work/src" --backend bwrap 2>/dev/null || fail "jail create --backend bwrap"
expect "jail names" "$(printf 'alpha-1\nalpha-2')" jail exec al
expect "jail names for rm" "alpha-2" jail rm alpha-2
expect_has "the command after --" "echo" jail exec alpha-1 -- ech
expect_has "its arguments: files" "$work/src" jail exec alpha-1 -- ls "$work/sr"

# Undo sessions: one recorded for real when a sandbox can run here.
mkdir -p "$work/proj"
if (cd "$work/proj" && "$P" run --undo -- sh -c 'echo x >f' >/dev/null 2>&1); then
  session=$(ls "$XDG_STATE_HOME/paddock/undo/sessions")
  expect "undo sessions" "$session" undo restore "${session:0:4}"
  expect "undo sessions for show" "$session" undo show ""
else
  echo "note: paddock run --undo cannot run here; undo sessions not checked"
fi

# zsh: the script parses.
if command -v zsh >/dev/null; then
  "$P" completion zsh >"$work/_paddock"
  checks=$((checks + 1))
  zsh -n "$work/_paddock" || fail "zsh -n rejects the zsh script"
else
  echo "note: zsh is not installed; its script not checked"
fi
# fish: driven with complete -C.
if command -v fish >/dev/null; then
  "$P" completion fish >"$work/paddock.fish"
  fish_offers() {  # fish_offers LINE: what fish offers, words only
    PATH=$(dirname "$P"):$PATH fish --no-config -c "source $work/paddock.fish; complete -C '$1'" | cut -f1 | sort
  }
  fexpect() {
    checks=$((checks + 1))
    local got
    got=$(fish_offers "$2")
    [ "$got" = "$3" ] || fail "fish, $1: '$2' -> [$(echo "$got" | tr '\n' ' ')], wanted [$(echo "$3" | tr '\n' ' ')]"
  }
  fexpect "nested command" "paddock jail cr" "create"
  fexpect "enum value" "paddock jail create j --workspace ov" "overlay"
  fexpect "option" "paddock jail diff j --name-" "--name-status"
  fexpect "jail names" "paddock jail exec alpha" "$(printf 'alpha-1\nalpha-2')"
else
  echo "note: fish is not installed; its script not checked"
fi

if [ "$failures" -gt 0 ]; then
  echo "completion: $failures of $checks checks failed"
  exit 1
fi
echo "completion: all $checks checks passed"
