#!/usr/bin/env bash
# paddock host as an administrator and host users use it, as root, with real users made here and
# removed after (docs/host.md, issue 16). usage: run.sh PADDOCK_BINARY
# 77 (ctest's skip) when not root or when sudo, visudo, useradd or setpriv is missing.
set -euo pipefail
paddock_src=$1
here=$(cd "$(dirname "$0")" && pwd)

skip() { echo "SKIPPED: $*"; exit 77; }
[ "$(id -u)" = 0 ] || skip "the host suite needs root: it creates users, a sudoers rule and an agent user (running as $(id -un))"
for t in sudo visudo useradd userdel groupadd groupdel setpriv; do
  command -v "$t" >/dev/null 2>&1 || PATH=$PATH:/usr/sbin:/sbin command -v "$t" >/dev/null 2>&1 ||
    skip "$t is missing (scripts/setup.sh installs sudo, passwd, util-linux)"
done
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin

agent=pdkhtest
cmd=pdkhtest-pi
users=(pdkh-alice pdkh-bob pdkh-eve)
fails=0
pass() { echo "ok   $*"; }
fail() { echo "FAIL $*"; fails=$((fails + 1)); }
expect() {  # expect NAME WANT GOT
  if [ "$2" = "$3" ]; then pass "$1"; else fail "$1"; diff <(printf '%s\n' "$2") <(printf '%s\n' "$3") | sed 's/^/     /' || true; fi
}
contains() {  # contains NAME NEEDLE HAYSTACK
  case "$3" in *"$2"*) pass "$1" ;; *) fail "$1: no \"$2\" in:"; printf '%s\n' "$3" | sed 's/^/     /' ;; esac
}
lacks() {
  case "$3" in *"$2"*) fail "$1: \"$2\" in:"; printf '%s\n' "$3" | sed 's/^/     /' ;; *) pass "$1" ;; esac
}

# What install touches, to compare after uninstall: users, groups, sudoers, the files.
snapshot() {
  cat /etc/passwd /etc/group
  echo "shadow $(cat /etc/shadow /etc/gshadow | sha256sum)"
  ls -la --time-style=+ /etc/sudoers.d
  find "$T" -printf '%p %u:%g %m\n' 2>/dev/null | sort
}

cleanup() {
  set +e
  [ -n "${T:-}" ] && [ -f "$T/host.toml" ] && "$T/bin/paddock" host uninstall --config "$T/host.toml" >/dev/null 2>&1
  rm -f "/etc/sudoers.d/paddock-$agent"
  for u in "${users[@]}" "$agent-agent"; do id "$u" >/dev/null 2>&1 && userdel -r "$u" >/dev/null 2>&1; done
  getent group "$agent-agent" >/dev/null && groupdel "$agent-agent"
  [ -n "${T:-}" ] && rm -rf "$T" "$T.logs"
}
trap cleanup EXIT
T=
cleanup  # what an interrupted run left
before_all=$(cat /etc/passwd /etc/group | sha256sum)

T=$(mktemp -d /tmp/paddock-host-test.XXXXXX)
chmod 755 "$T"
L=$T.logs  # outside $T, which the snapshots cover
mkdir "$L"
mkdir -p "$T/bin" "$T/agent/bin" "$T/wbin" "$T/projects/bob"
cp "$paddock_src" "$T/bin/paddock"
chmod 755 "$T/bin/paddock"
for u in "${users[@]}"; do useradd -m -s /bin/sh "$u"; chmod 700 "/home/$u"; done
alice_uid=$(id -u pdkh-alice)
chown pdkh-bob: "$T/projects/bob"
as() {  # as USER DIR CMD...: a login-less shell of USER in DIR with a clean environment
  local u=$1 d=$2
  shift 2
  setpriv --reuid="$u" --regid="$(id -g "$u")" --init-groups \
    env -i HOME="/home/$u" USER="$u" LOGNAME="$u" PATH="$T/wbin:/usr/local/bin:/usr/bin:/bin" TERM=dumb \
    PDKH_OVERRIDE=from-shell PDKH_RUNTIME=from-shell PDKH_DROPPED=from-shell \
    sh -c 'cd "$0" && exec "$@"' "$d" "$@"
}

# Alice's world: a project, secrets, a config dir with a link that tries /etc/shadow.
as pdkh-alice /home/pdkh-alice sh -c '
  mkdir -p src/proj notes .ssh .pi-test/agent/prompts
  echo secret-key > .ssh/id_test; echo note > notes/n.txt
  ln -s /home/pdkh-alice/notes src/escape
  cd .pi-test/agent
  printf "{\"theme\": \"light\", \"model\": {\"provider\": \"openai\", \"id\": \"gpt-x\"}}\n" > settings.json
  printf "PDKH_SYNCED=from-user\nPDKH_OVERRIDE=from-user\nPDKH_FILE_WINS=from-user\n" > paddock.env
  echo prompt > prompts/a.md
  ln -s /etc/shadow shadow'
as pdkh-bob /home/pdkh-bob sh -c 'echo bob-secret > secret.txt; chmod 644 secret.txt; chmod 755 .'
as pdkh-bob "$T/projects/bob" sh -c 'mkdir api'

cat > "$T/agent/bin/fake-agent" <<'EOF'
#!/bin/sh
echo "uid=$(id -u) user=$(id -un)"
echo "cwd=$(pwd)"
echo "home=$HOME"
if cat /home/pdkh-bob/secret.txt >/dev/null 2>&1; then echo READ-BOB; else echo no-bob; fi
if cat /home/pdkh-alice/.ssh/id_test >/dev/null 2>&1; then echo READ-SSH; else echo no-ssh; fi
if ls /home/pdkh-alice/notes >/dev/null 2>&1; then echo SEE-NOTES; else echo no-notes; fi
if echo written > agent-wrote.txt; then echo wrote; fi
echo "settings:"
cat "$HOME/.pi-test/agent/settings.json"
ls "$HOME/.pi-test/agent" | tr '\n' ' '; echo
env | grep '^PDKH_' | sort
n=0; for a in "$@"; do n=$((n+1)); echo "arg$n=[$a]"; done
# Other host users' parts of the agent's state, beside this user's own (HOME): none may show.
for d in "$HOME"/../*/; do
  u=$(basename "$d"); [ "$u" = "$(basename "$HOME")" ] && continue
  if ls -A "$d" >/dev/null 2>&1; then echo "PEEKED $u"; fi
done
EOF
chmod 755 "$T/agent/bin/fake-agent"
printf 'PDKH_FILE_WINS=from-env-file\n' > "$T/pdkh.env"

cat > "$T/host.toml" <<EOF
[host]
paddock = "$T/bin/paddock"
wrapper_dir = "$T/wbin"
manifest = "$T/manifest/host-manifest.json"

[agents.$agent]
binary = "$T/agent/bin/fake-agent"
hide_dir = "$T/agent"
command = "$cmd"
state_dir = "$T/state/$agent"
config_source = ".pi-test/agent"
env_files = ["$T/pdkh.env"]
profile = "default"
network = "off"
pass_env = ["TERM", "PDKH_OVERRIDE", "PDKH_RUNTIME"]
[agents.$agent.env]
PDKH_MANAGED = "managed"
PDKH_OVERRIDE = "managed"
PDKH_FILE_WINS = "managed"
[agents.$agent.settings]
theme = "dark"
model = { provider = "anthropic" }

[users.pdkh-alice]
roots = ["~/src"]
[users.pdkh-bob]
roots = ["$T/projects/bob"]
EOF
chmod 644 "$T/host.toml"
P=$T/bin/paddock

echo "== install"
before=$(snapshot)
out=$("$P" host install --dry-run --config "$T/host.toml")
contains "dry run lists the user" "would: + user $agent-agent" "$out"
contains "dry run shows the sudoers rule" "NOPASSWD: PADDOCK_HOST_PDKHTEST" "$out"
expect "dry run changes nothing" "$before" "$(snapshot)"
chown pdkh-alice "$T/host.toml"
out=$("$P" host install --config "$T/host.toml" 2>&1) && fail "install with a config alice owns" || true
contains "a config not root's is refused" "is owned by uid $alice_uid, not root" "$out"
chown root "$T/host.toml"
echo "#!/bin/sh" > "$T/wbin/$cmd"
out=$("$P" host install --config "$T/host.toml" 2>&1) && fail "install over a wrapper it did not write" || true
contains "install does not overwrite a file it did not write" "$T/wbin/$cmd: exists and was not written by paddock host install" "$out"
rm "$T/wbin/$cmd"  # the steps before it are in the manifest: the next install goes on from there
"$P" host install --config "$T/host.toml" > "$L/install.log" || { fail "install"; cat "$L/install.log"; exit 1; }
contains "install creates the sudoers rule" "+ sudoers /etc/sudoers.d/paddock-$agent" "$(cat "$L/install.log")"
expect "install again has nothing to do" "nothing to do: everything is installed as $T/host.toml says" \
  "$("$P" host install --config "$T/host.toml")"
if "$P" host check --config "$T/host.toml" > "$L/check.log"; then pass "check passes after install"; else fail "check after install"; cat "$L/check.log"; fi
contains "check verifies the bypass" "is neither executable nor readable by its host users" "$(cat "$L/check.log")"
agent_uid=$(id -u "$agent-agent")

echo "== an authorized user in an authorized root"
out=$(as pdkh-alice /home/pdkh-alice/src/proj "$cmd" "a b" '$(id)' ';' 2>&1) || fail "alice's run exited $?"
expect "the agent runs as the agent user" "uid=$agent_uid user=$agent-agent" "$(grep '^uid=' <<<"$out")"
contains "in the project" "cwd=/home/pdkh-alice/src/proj" "$out"
lacks "with namespaces, not the fallback (the runner's /proc is the agent's own)" "user namespaces unavailable" "$out"
contains "HOME is alice's agent state" "home=$T/state/$agent/users/pdkh-alice" "$out"
contains "another user's home is invisible" "no-bob" "$out"
contains "the host user's ~/.ssh is invisible" "no-ssh" "$out"
contains "the rest of the host user's home is invisible" "no-notes" "$out"
contains "the project is writable" "wrote" "$out"
expect "what the agent wrote belongs to the host user (and has the shell's umask)" "pdkh-alice:pdkh-alice 644" \
  "$(stat -c '%U:%G %a' /home/pdkh-alice/src/proj/agent-wrote.txt)"
expect "arguments arrive verbatim" 'arg1=[a b]
arg2=[$(id)]
arg3=[;]' "$(grep '^arg' <<<"$out")"
expect "managed settings deep-merged over the synced ones" '{
  "model": {
    "id": "gpt-x",
    "provider": "anthropic"
  },
  "theme": "dark"
}' "$(sed -n '/^settings:/,/^}/p' <<<"$out" | tail -n +2)"
expect "config synced, the link to /etc/shadow not" "paddock.env prompts settings.json " \
  "$(sed -n '/^}/{n;p;}' <<<"$out")"
expect "env: synced < managed < managed files; the shell overrides nothing managed" 'PDKH_FILE_WINS=from-env-file
PDKH_MANAGED=managed
PDKH_OVERRIDE=managed
PDKH_RUNTIME=from-shell
PDKH_SYNCED=from-user' "$(grep '^PDKH_' <<<"$out")"
out=$(as pdkh-bob "$T/projects/bob/api" "$cmd" 2>&1) || fail "bob's run exited $?"
contains "bob runs in his own root" "cwd=$T/projects/bob/api" "$out"
contains "bob cannot see alice's home either" "no-ssh" "$out"

if command -v script >/dev/null; then
  out=$(as pdkh-alice /home/pdkh-alice/src/proj script -qec "$cmd tty-run" /dev/null 2>&1) || fail "run on a terminal exited $?"
  contains "on a terminal (sudo's pty, paddock's pty)" "arg1=[tty-run]" "$out"
fi

echo "== refusals"
out=$(as pdkh-alice /home/pdkh-alice/notes "$cmd" 2>&1) && fail "outside the roots: ran" || true
contains "outside the roots: refused" "/home/pdkh-alice/notes is not under a project root of pdkh-alice" "$out"
contains "the refusal lists the roots" "  ~/src  (/home/pdkh-alice/src)" "$out"
out=$(as pdkh-alice /home/pdkh-alice/src/escape "$cmd" 2>&1) && fail "through a symlink: ran" || true
contains "a symlink out of a root: refused" "/home/pdkh-alice/notes is not under a project root" "$out"
out=$(as pdkh-alice /home/pdkh-alice/src/proj/../.. "$cmd" 2>&1) && fail "with ..: ran" || true
contains "'..' out of a root: refused" "/home/pdkh-alice is not under a project root" "$out"
out=$(as pdkh-alice "$T/projects/bob/api" "$cmd" 2>&1) && fail "alice in bob's root: ran" || true
contains "another user's root: refused" "$T/projects/bob/api is not under a project root of pdkh-alice" "$out"
out=$(as pdkh-eve /home/pdkh-eve "$cmd" 2>&1) && fail "eve: ran" || true
contains "an unauthorized user: refused" "user pdkh-eve may not use $agent on this host" "$out"
out=$(as pdkh-eve /home/pdkh-eve sudo -n "$P" host runner --config "$T/host.toml" "$agent" -- 2>&1) && fail "eve through sudo: ran" || true
contains "sudo does not let an unauthorized user start the runner" "sudo:" "$out"

echo "== the runner refuses forged calls"
out=$(as pdkh-alice /home/pdkh-alice/src/proj "$P" host runner --config "$T/host.toml" "$agent" -- 2>&1) && fail "direct call ran" || true
contains "called directly by a user" "refused: the runner runs only as root" "$out"
out=$(cd /home/pdkh-alice/src/proj && SUDO_UID=$alice_uid SUDO_USER=pdkh-alice SUDO_GID=$alice_uid \
  "$P" host runner --config "$T/host.toml" "$agent" -- 2>&1) && fail "forged SUDO_UID ran" || true
contains "root with a forged SUDO_UID" "refused: the runner's parent is not sudo run by pdkh-alice" "$out"
out=$(cd /home/pdkh-alice/src/proj && "$P" host runner --config "$T/host.toml" "$agent" -- 2>&1) && fail "no SUDO_UID ran" || true
contains "root without SUDO_UID" "refused: no valid SUDO_UID" "$out"
out=$(as pdkh-alice /home/pdkh-alice/src/proj sudo -n "$P" host runner --config /tmp/evil.toml "$agent" -- 2>&1) && fail "another config ran" || true
contains "sudo refuses another config" "sudo:" "$out"
out=$(as pdkh-alice /home/pdkh-alice/src/proj sudo -n "$P" "host runner --config $T/host.toml $agent -- x" 2>&1) && fail "joined argv ran" || true
contains "sudo's joined match, refused by the runner" "refused: the arguments are not the fixed form" "$out"
out=$(as pdkh-alice /home/pdkh-alice/src/proj sudo -n SUDO_UID=0 "$P" host runner --config "$T/host.toml" "$agent" -- 2>&1) && fail "env through sudo ran" || true
contains "sudo refuses setting variables" "sudo:" "$out"
out=$(as pdkh-alice /home/pdkh-alice/src/proj sudo -n -E "$P" host runner --config "$T/host.toml" "$agent" -- 2>&1) && fail "sudo -E ran" || true
contains "sudo refuses keeping the environment" "sudo:" "$out"
out=$(as pdkh-alice /home/pdkh-alice/notes sudo -n "$P" host runner --config "$T/host.toml" "$agent" -- 2>&1) && fail "sudo outside roots ran" || true
contains "the runner re-checks the directory" "is not under a project root of pdkh-alice" "$out"

echo "== the real agent is not runnable by host users"
out=$(as pdkh-alice /home/pdkh-alice/src/proj "$T/agent/bin/fake-agent" 2>&1) && fail "alice ran the real binary" || true
contains "exec refused" "Permission denied" "$out"
out=$(as pdkh-alice /home/pdkh-alice/src/proj sh "$T/agent/bin/fake-agent" 2>&1) && fail "alice read the real binary" || true
contains "reading it refused" "Permission denied" "$out"
out=$(as pdkh-alice /home/pdkh-alice/src/proj sudo -n "$T/agent/bin/fake-agent" 2>&1) && fail "sudo ran the real binary" || true
contains "sudo does not run it either" "sudo:" "$out"

echo "== check finds what weakens the setup"
chmod o+rx "$T/agent" "$T/agent/bin/fake-agent"
out=$("$P" host check --config "$T/host.toml" 2>&1) && fail "check passed with the agent world-executable" || true
contains "check: the bypass is reported" "FAIL agent $agent: pdkh-alice can execute and read the real agent" "$out"
chmod 0750 "$T/agent"; chmod 0755 "$T/agent/bin/fake-agent"
gpasswd -a pdkh-bob "$agent-agent" >/dev/null
out=$("$P" host check --config "$T/host.toml" 2>&1) && fail "check passed with bob in the agent group" || true
contains "check: a host user in the agent group is reported" "FAIL agent $agent: pdkh-bob is in the agent group" "$out"
gpasswd -d pdkh-bob "$agent-agent" >/dev/null
out=$("$P" host check --config "$T/host.toml" 2>&1) && pass "check passes again once repaired" || { fail "check after repair"; echo "$out"; }

echo "== the agent's state: each user's part, and who owns it"
agent_gid=$(getent group "$agent-agent" | cut -d: -f3)
bob_uid=$(id -u pdkh-bob)
expect "state_dir/users is root's and the agent group's, 0750" "0:$agent_gid 750" "$(stat -c '%u:%g %a' "$T/state/$agent/users")"
expect "users/pdkh-alice is the agent's, 0700" "$agent_uid:$agent_gid 700" "$(stat -c '%u:%g %a' "$T/state/$agent/users/pdkh-alice")"
expect "users/pdkh-bob is the agent's, 0700" "$agent_uid:$agent_gid 700" "$(stat -c '%u:%g %a' "$T/state/$agent/users/pdkh-bob")"
lacks "a run sees no other user's part of the state" "PEEKED" "$(as pdkh-alice /home/pdkh-alice/src/proj "$cmd" 2>&1)"
# Owned by someone else, a part could hold what the agent then follows with its rights: refused.
chown pdkh-alice "$T/state/$agent/users/pdkh-alice"
out=$(as pdkh-alice /home/pdkh-alice/src/proj "$cmd" 2>&1) && fail "ran with users/pdkh-alice owned by alice" || true
contains "a user's part owned by another is refused" "$T/state/$agent/users/pdkh-alice" "$out"
contains "  ... saying whose it should be" "has the wrong owner (uid $alice_uid, expected $agent_uid)" "$out"
out=$("$P" host check --config "$T/host.toml" 2>&1) && fail "check passed with users/pdkh-alice owned by alice" || true
contains "check: a user's part of another owner is reported" "FAIL agent $agent: $T/state/$agent/users/pdkh-alice should be a directory of $agent-agent" "$out"
chown "$agent-agent" "$T/state/$agent/users/pdkh-alice"
chown pdkh-bob "$T/state/$agent/users"
out=$(as pdkh-alice /home/pdkh-alice/src/proj "$cmd" 2>&1) && fail "ran with users/ owned by bob" || true
contains "users/ owned by another is refused" "has the wrong owner (uid $bob_uid, expected 0)" "$out"
out=$("$P" host check --config "$T/host.toml" 2>&1) && fail "check passed with users/ owned by bob" || true
contains "check: users/ of another owner is reported" "FAIL agent $agent: $T/state/$agent/users should be a directory root:$agent-agent 0750" "$out"
chown root "$T/state/$agent/users"

echo "== managed env files: root's, writable by root only"
for change in "chmod 0666" "chown pdkh-alice" "chgrp pdkh-alice:chmod 0664"; do
  IFS=: read -r c1 c2 <<<"$change"
  $c1 "$T/pdkh.env"; [ -n "$c2" ] && $c2 "$T/pdkh.env"
  out=$(as pdkh-alice /home/pdkh-alice/src/proj "$cmd" 2>&1) && fail "ran with the env file after $change" || true
  contains "an env file after '$change' is refused" "(env_files entry at $T/host.toml:" "$out"
  out=$("$P" host check --config "$T/host.toml" 2>&1) && fail "check passed with the env file after $change" || true
  contains "check: the env file after '$change' is reported" "FAIL agent $agent: managed env file $T/pdkh.env" "$out"
  chown root:root "$T/pdkh.env"; chmod 0644 "$T/pdkh.env"
done
case "$(as pdkh-alice /home/pdkh-alice/src/proj "$cmd" 2>&1)" in *PDKH_FILE_WINS=from-env-file*) pass "runs again once repaired" ;; *) fail "runs again once repaired" ;; esac

echo "== the agent's state where a sandbox can see it"
# Under /opt (read-only in every sandbox) one user's agent would read another's state: refused.
sed "s|^state_dir = .*|state_dir = \"/opt/paddock-host-test/$agent\"|" "$T/host.toml" > "$L/host-opt.toml"
chmod 644 "$L/host-opt.toml"
out=$("$P" host install --dry-run --config "$L/host-opt.toml" 2>&1) && fail "install accepted a state_dir under /opt" || true
contains "a state_dir under /opt is refused, with where" "host-opt.toml:10:13: state_dir \"/opt/paddock-host-test/$agent\" lies under /opt, which every sandbox can read" "$out"
[ ! -e /opt/paddock-host-test ] && pass "nothing made under /opt" || fail "something made under /opt"
sed "s|^state_dir = .*|state_dir = \"/home/pdkh-alice/src/agent-state\"|" "$T/host.toml" > "$L/host-root.toml"
chmod 644 "$L/host-root.toml"
out=$("$P" host install --dry-run --config "$L/host-root.toml" 2>&1) && fail "install accepted a state_dir in a project root" || true
contains "a state_dir in a user's project root is refused" "lies under the project root ~/src of pdkh-alice" "$out"
# A profile that shows the whole state (here: read-only, as /opt would): every run still sees its
# own user's part only, masked around it. Bob's part exists (his run above); alice's agent looks.
printf 'extends = "default"\n[filesystem]\nread = ["%s"]\n' "$T/state" > "$L/peek.toml"
chmod 644 "$L/peek.toml"
cp "$T/host.toml" "$L/host.toml.orig"
sed -i "s|^profile = \"default\"|profile = \"$L/peek.toml\"|" "$T/host.toml"
out=$(as pdkh-alice /home/pdkh-alice/src/proj "$cmd" 2>&1) || fail "alice's run under the profile that shows the state exited $?"
contains "  (the run worked: its own HOME)" "home=$T/state/$agent/users/pdkh-alice" "$out"
lacks "another user's part stays hidden when a profile shows the state" "PEEKED pdkh-bob" "$out"
cp "$L/host.toml.orig" "$T/host.toml"
chmod 644 "$T/host.toml"

echo "== explain"
out=$(as pdkh-alice /home/pdkh-alice/src/proj "$P" host explain --config "$T/host.toml" 2>&1) || fail "explain exited $?"
contains "explain: roots" "  ~/src  (/home/pdkh-alice/src)" "$out"
contains "explain: here" "here (/home/pdkh-alice/src/proj): allowed, under ~/src" "$out"
contains "explain: env with its source" "PDKH_OVERRIDE=managed    [managed: $T/host.toml:18:1]" "$out"
contains "explain: what it overrides" "overrides synced PDKH_OVERRIDE=from-user [/home/pdkh-alice/.pi-test/agent/paddock.env:2]" "$out"

echo "== uninstall"
mid=$(snapshot)
out=$("$P" host uninstall --dry-run --config "$T/host.toml")
contains "uninstall --dry-run lists the user" "would: - user $agent-agent" "$out"
contains "uninstall --dry-run lists the restored mode" "would: - owner and mode of $T/agent back to 0:0 0755" "$out"
expect "uninstall --dry-run changes nothing" "$mid" "$(snapshot)"
"$P" host uninstall --config "$T/host.toml" > "$L/uninstall.log" || { fail "uninstall"; cat "$L/uninstall.log"; }
rm -f /home/pdkh-alice/src/proj/agent-wrote.txt "$T/projects/bob/api/agent-wrote.txt"
expect "uninstall leaves users, groups, sudoers and files as before install" "$before" "$(snapshot)"
out=$("$P" host check --config "$T/host.toml" 2>&1) && fail "check passes after uninstall" || pass "check fails after uninstall"

trap - EXIT
cleanup
expect "the test's users are gone again" "$before_all" "$(cat /etc/passwd /etc/group | sha256sum)"
if [ "$fails" -ne 0 ]; then
  echo "host suite: $fails failure(s)"
  exit 1
fi
echo "host suite: all passed"
