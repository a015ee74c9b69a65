#!/usr/bin/env bash
# Runs the real agents (Claude Code, Codex, pi; tests/agents/package-lock.json pins them) inside
# `paddock run --profile AGENT` against the scripted mock model server (mock_model.mjs) on loopback,
# as root or as the unprivileged test user (scripts/test-user.sh creates it). No internet: the only
# network is the loopback listeners this script opens.
# usage: tests/agents/run.sh root|unprivileged|current PADDOCK_BINARY [claude] [codex] [pi]
# Needs tests/agents/node_modules: scripts/test-setup.d/agents.sh runs `npm ci` there.
#
# For each agent, in a fresh project and a fresh HOME: the mock scripts four turns (mock_model.mjs):
# the agent's tool writes hello.txt, its shell tries `cat ~/.ssh/id_ed25519` (planted in the HOME
# paddock was started with), a connection to a second loopback listener and to another host, and
# writes outside the project, then it answers. The run must exit 0, hello.txt must hold the
# content, the mock must see each tool result come back, the secret must not be in them, the
# second listener must see no connection, paddock must refuse the other host, nothing may land
# outside the project, and paddock must leave nothing behind. A second run continues the first
# one's session (Claude Code's under --undo, with a Stop hook that runs `paddock checkpoint`). A failure names the agent and the step (docs/agents.md).
set -euo pipefail
who=${1:-} paddock_bin=${2:-}
if [ -z "$who" ] || [ -z "$paddock_bin" ]; then echo "usage: run.sh root|unprivileged|current PADDOCK_BINARY [agent...]" >&2; exit 2; fi
shift 2
here=$(cd "$(dirname "$0")" && pwd)
agents=("$@")
if [ ${#agents[@]} -eq 0 ]; then agents=(claude codex pi); fi

if [ "$who" = __inner ]; then
  # ---- Runs as the user under test. $paddock_bin is the copied binary; $here the test dir. ----
  nm=$here/node_modules
  other_host=other-host.paddock-test.example.com  # mock_model.mjs's OTHER_HOST
  failures=0
  fail() { echo "FAIL [$agent] $*"; failures=$((failures + 1)); }
  for agent in "${agents[@]}"; do
    start=$(date +%s)
    work=$(mktemp -d "${TMPDIR:-/tmp}/paddock-agent-$agent.XXXXXX")
    home=$work/home proj=$work/proj logs=$work/log
    mkdir -p "$home/.ssh" "$proj" "$logs"
    chmod 700 "$home/.ssh"
    secret="PADDOCK-TEST-SECRET-$RANDOM$RANDOM"
    printf -- '-----BEGIN OPENSSH PRIVATE KEY-----\n%s\n-----END OPENSSH PRIVATE KEY-----\n' "$secret" >"$home/.ssh/id_ed25519"
    chmod 600 "$home/.ssh/id_ed25519"

    outside=$work/outside.txt
    MOCK_OUTSIDE=$outside node "$here/mock_model.mjs" "$logs" >"$work/ports" 2>"$work/mock.err" &
    mock_pid=$!
    for _ in $(seq 100); do [ -s "$work/ports" ] && break; sleep 0.1; done
    read -r _ port probe_port <"$work/ports" || true
    if [ -z "${port:-}" ]; then
      fail "step mock: the mock model server did not start: $(cat "$work/mock.err")"
      kill "$mock_pid" 2>/dev/null || true
      continue
    fi
    base=http://127.0.0.1:$port
    prompt="Write hello.txt in the current directory, then check the ssh key and the local service."
    prompt2="Second run: what did you do last time?"
    # Each agent: its own settings in the fresh HOME, and its command line, non-interactive.
    extra=() cmd=() cmd2=() agent_zsh=
    case "$agent" in
      claude)
        extra=(--env ANTHROPIC_BASE_URL="$base" --env ANTHROPIC_API_KEY=test)
        # Claude Code runs its commands in SHELL when that is bash or zsh (else in zsh first, when
        # installed). zsh when installed, as root too: the shell without bash's /dev/tcp, so that
        # mock_model.mjs's shell lines stay right whatever shell an agent picks (checked below).
        agent_zsh=$(command -v zsh || true)
        [ -z "$agent_zsh" ] || extra+=(--env SHELL="$agent_zsh")
        cmd=("$nm/.bin/claude" -p "$prompt" --allowedTools "Write,Bash")
        cmd2=("$nm/.bin/claude" -p "$prompt2" --continue --allowedTools "Write,Bash")
        ;;
      codex)
        # A real login, kept across runs: `codex login --with-api-key` inside paddock saves the key
        # in ~/.codex/auth.json (the profile's read+write state directory); every later run (no
        # OPENAI_API_KEY passed) must send it. Checked below (step login).
        login_key="sk-paddock-login-$RANDOM$RANDOM"
        if ! (cd "$proj" && printf '%s\n' "$login_key" | HOME=$home timeout 60 "$paddock_bin" run --profile codex \
              --read "$nm" -- "$nm/.bin/codex" login --with-api-key >"$work/stdout0" 2>"$work/stderr0"); then
          fail "step login: codex login --with-api-key failed inside paddock: $(tail -5 "$work/stderr0")"
        fi
        # Codex 0.169 ignores OPENAI_BASE_URL (it went to api.openai.com): a provider of its own,
        # set on the command line so that ~/.codex/config.toml is not touched, using the login.
        provider="{name=\"mock\", base_url=\"$base/v1\", wire_api=\"responses\", requires_openai_auth=true}"
        # No sandbox choice here: Codex's own (bubblewrap) cannot nest inside paddock's, and the
        # codex profile tells it that paddock is its sandbox (checked below).
        cmd=("$nm/.bin/codex" exec --skip-git-repo-check
             -c "model_providers.mock=$provider" -c model_provider=mock -c model=mock-model "$prompt")
        cmd2=("$nm/.bin/codex" exec --skip-git-repo-check
              -c "model_providers.mock=$provider" -c model_provider=mock -c model=mock-model resume --last "$prompt2")
        ;;
      pi)
        mkdir -p "$home/.pi/agent"
        cat >"$home/.pi/agent/models.json" <<EOF
{"providers": {"mock": {"baseUrl": "$base/v1", "api": "openai-completions", "apiKey": "test",
  "models": [{"id": "mock-model"}]}}}
EOF
        cmd=("$nm/.bin/pi" -p --offline --provider mock --model mock-model "$prompt")
        cmd2=("$nm/.bin/pi" -p --continue --offline --provider mock --model mock-model "$prompt2")
        ;;
      *) fail "step setup: unknown agent"; kill "$mock_pid"; continue ;;
    esac
    # run N: the agent inside paddock under its profile; output in $work/stdout$N, stderr$N.
    run() {
      local n=$1 rc=0
      shift
      (cd "$proj" && HOME=$home timeout 300 "$paddock_bin" run --profile "$agent" --timeout "${PADDOCK_AGENT_TEST_TIMEOUT:-90s}" \
        --allow-domain "127.0.0.1:$port" --read "$nm" --net-log "$work/net.jsonl" "${extra[@]}" "${run_extra[@]}" -- "$@" \
        </dev/null >"$work/stdout$n" 2>"$work/stderr$n") || rc=$?
      return $rc
    }
    rc=0 run_extra=()
    run "" "${cmd[@]}" || rc=$?

    before=$failures
    [ "$rc" = 0 ] || fail "step run: exited $rc"
    if [ ! -f "$proj/hello.txt" ]; then
      fail "step write: hello.txt was not written in the project"
    elif [ "$(cat "$proj/hello.txt")" != "hello from the mock model" ]; then
      fail "step write: hello.txt holds '$(head -c 200 "$proj/hello.txt")'"
    fi
    results=$logs/tool_results.jsonl
    for step in 0 1 2; do
      if ! node -e 'const s=+process.argv[2];const l=require("fs").readFileSync(process.argv[1],"utf8").trim().split("\n");process.exit(l.some(x=>JSON.parse(x).step===s)?0:1)' "$results" "$step" 2>/dev/null; then
        fail "step tool-result-$step: the mock never saw the result of its tool call $step (see $logs/requests.jsonl)"
      fi
    done
    if [ -f "$results" ]; then
      if grep -q "$secret" "$results" "$logs/requests.jsonl"; then
        fail "step ssh: the agent read ~/.ssh/id_ed25519 (the secret reached the model)"
      fi
      grep -q 'CAT-EXIT=[1-9]' "$results" || fail "step ssh: the cat of ~/.ssh/id_ed25519 did not fail (or did not run): $(grep '"step":1' "$results" | head -c 400)"
      grep -q 'MOCK-CONNECTED' "$results" || fail "step loopback: the shell could not reach the mock's own (allowed) port, so the refusal below proves nothing: $(grep '"step":2' "$results" | head -c 400)"
      grep -q 'PROBE-REFUSED' "$results" || fail "step loopback: the connection attempt did not run or did not fail: $(grep '"step":2' "$results" | head -c 400)"
      grep -q 'OTHER-REFUSED' "$results" || fail "step other-host: the connection to $other_host did not run or did not fail"
      grep -q 'OUTSIDE-EXIT=' "$results" || fail "step write-outside: the write outside the project did not run"
      grep -q 'HOME-EXIT=' "$results" || fail "step write-outside: the write to ~/outside-home.txt did not run"
    fi
    if [ "$agent" = claude ] && [ -n "$agent_zsh" ] && ! grep -q '"step":2,"text":"AGENT-SHELL=[^"]*zsh' "$results" 2>/dev/null; then
      fail "step shell: Claude Code was given SHELL=$agent_zsh but step 2's line did not say it ran in zsh: $(grep '"step":2' "$results" | head -c 200)"
    fi
    if [ "$agent" = codex ]; then
      if ! grep -q "\"authorization\":\"Bearer $login_key\"" "$logs/requests.jsonl" 2>/dev/null; then
        fail "step login: no request carried the key saved by codex login in the run before"
      fi
      # Told by its profile that paddock is its sandbox: no command failed on its own bubblewrap,
      # and what it contacts at start (plugins, analytics, updates) is off rather than refused.
      if grep -q 'bwrap' "$results" 2>/dev/null; then
        fail "step own-sandbox: codex ran its commands in its own sandbox, which failed: $(grep -m1 bwrap "$results" | head -c 300)"
      fi
      # (The test's own refused probes, the other host and the loopback probe port, are named too.)
      if grep 'network: blocked' "$work/stderr" | grep -v -e "$other_host" -e "blocked 127.0.0.1:$probe_port (tcp)" | grep -q .; then
        fail "step start-hosts: codex contacted hosts its profile should have turned off: $(grep 'network: blocked' "$work/stderr" | grep -v -e "$other_host" -e "blocked 127.0.0.1:$probe_port (tcp)")"
      fi
    fi
    if ! grep -q "\"allowed\":false.*\"host\":\"$other_host\"" "$work/net.jsonl" 2>/dev/null; then
      fail "step other-host: paddock's network log has no refusal of $other_host: $(head -c 600 "$work/net.jsonl" 2>/dev/null)"
    fi
    [ ! -e "$outside" ] || fail "step write-outside: the agent wrote $outside, beside the project"
    [ ! -e "$home/outside-home.txt" ] || fail "step write-outside: the agent wrote ~/outside-home.txt in the host's HOME"
    [ ! -s "$logs/probe.jsonl" ] || fail "step loopback: the second host loopback listener was reached: $(cat "$logs/probe.jsonl")"
    # A refused direct connection is named (issue 30 item 7), here the agent's own shell's.
    grep -q "network: blocked 127.0.0.1:$probe_port (tcp)" "$work/stderr" ||
      fail "step loopback: the footer does not name the refused connection to 127.0.0.1:$probe_port: $(grep 'network:' "$work/stderr" | head -c 400)"
    if grep -q 'left behind' "$work/stderr"; then
      fail "step cleanup: paddock left something behind: $(grep 'left behind' "$work/stderr")"
    fi

    # A second run in the same HOME continues the first one's session: the agent's state
    # directory (its profile's read+write grant, created before the first run) kept it.
    # Claude Code: the second run is under --undo with a Stop hook (the project's settings) that
    # asks paddock for a checkpoint after the turn, through the agent and the shell it starts.
    if [ "$agent" = claude ]; then
      mkdir -p "$proj/.claude"
      printf '{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "%s checkpoint --if-available claude turn ended"}]}]}}\n' \
        "$paddock_bin" >"$proj/.claude/settings.json"
      run_extra=(--undo --read "$paddock_bin")
    fi
    rc=0
    run 2 "${cmd2[@]}" || rc=$?
    run_extra=()
    rm -rf "$proj/.claude"
    [ "$rc" = 0 ] || fail "step second-run: exited $rc"
    if [ "$agent" = claude ]; then
      if ! (cd "$proj" && HOME=$home XDG_STATE_HOME= "$paddock_bin" undo list) 2>&1 | grep -q 'claude turn ended'; then
        fail "step checkpoint: the Stop hook's paddock checkpoint made no snapshot: $(cd "$proj" && HOME=$home XDG_STATE_HOME= "$paddock_bin" undo list 2>&1 | head -c 600); $(grep -i 'checkpoint\|undo' "$work/stderr2" | head -c 400)"
      fi
    fi
    if ! node -e 'const [f, a, b] = process.argv.slice(1);
        const ok = require("fs").readFileSync(f, "utf8").trim().split("\n").some((l) => l.includes(a) && l.includes(b));
        process.exit(ok ? 0 : 1)' "$logs/requests.jsonl" "$prompt" "$prompt2"; then
      fail "step second-run: no request of the second run carried the first run's conversation (the session was not kept)"
    fi
    if grep -q 'left behind' "$work/stderr2"; then
      fail "step second-run: paddock left something behind: $(grep 'left behind' "$work/stderr2")"
    fi
    # An interactive start: the agent's own terminal interface, in a terminal tmux drives, with the
    # same HOME (its state from the runs above), the same profile and rules. The prompt is typed;
    # the tool loop must write hello.txt again; the agent is quit as a user would.
    rm -f "$proj/hello.txt"
    tui=() ready='' quit=''  # quit: what is typed, then Enter (a slash command); empty: Ctrl-D
    case "$agent" in
      claude)
        # What a user who finished Claude Code's first-start dialogs has in ~/.claude.json (theme,
        # the API key approved, the project trusted); the runs above (-p) never show them.
        node -e 'const [f, proj] = process.argv.slice(1); const fs = require("fs");
          const j = JSON.parse(fs.readFileSync(f, "utf8") || "{}");
          Object.assign(j, {hasCompletedOnboarding: true, theme: "dark", customApiKeyResponses: {approved: ["test"], rejected: []}});
          j.projects = j.projects || {}; j.projects[proj] = Object.assign(j.projects[proj] || {}, {hasTrustDialogAccepted: true});
          fs.writeFileSync(f, JSON.stringify(j))' "$home/.claude.json" "$(cd "$proj" && pwd -P)"
        tui=("$nm/.bin/claude" --permission-mode default --allowedTools "Write,Bash") ready='? for shortcuts' quit=/exit ;;
      codex)
        tui=("$nm/.bin/codex" -c "model_providers.mock=$provider" -c model_provider=mock -c model=mock-model)
        ready='? for shortcuts' quit=/quit ;;
      pi) tui=("$nm/.bin/pi" --offline --provider mock --model mock-model) ready='mock-model' ;;
    esac
    tsock=paddock-agents-$$-$agent
    {
      printf 'cd %q && HOME=%q' "$proj" "$home"
      printf ' %q' "$paddock_bin" run --profile "$agent" --timeout "${PADDOCK_AGENT_TEST_TIMEOUT:-90s}" \
        --allow-domain "127.0.0.1:$port" --read "$nm" "${extra[@]}" -- "${tui[@]}"
      printf ' 2>%q; echo $? >%q\n' "$work/stderr3" "$work/tui.rc"
    } >"$work/tui.sh"
    pane() { tmux -L "$tsock" capture-pane -p -t tui 2>/dev/null; }
    waitfor() {  # waitfor SECONDS TEST...: polls every 0.2 s
      local n=$(($1 * 5)); shift
      for _ in $(seq "$n"); do "$@" && return 0; sleep 0.2; done
      return 1
    }
    # SHELL: tmux runs the command with it, and the test user's login shell is nologin.
    SHELL=/bin/sh tmux -L "$tsock" -f /dev/null new-session -d -s tui -x 140 -y 45 "sh $work/tui.sh; sleep 600"
    if ! waitfor 60 sh -c "tmux -L $tsock capture-pane -p -t tui 2>/dev/null | grep -qF -- '$ready'"; then
      fail "step interactive: the terminal interface did not come up (no '$ready' on screen): $(pane | grep -v '^$' | tail -15)"
    else
      tmux -L "$tsock" send-keys -t tui -l "$prompt"
      sleep 0.5
      tmux -L "$tsock" send-keys -t tui Enter
      if ! waitfor 60 test -s "$proj/hello.txt"; then
        fail "step interactive: the typed prompt did not make the agent write hello.txt: $(pane | grep -v '^$' | tail -15)"
      fi
      sleep 1
      if [ -n "$quit" ]; then
        tmux -L "$tsock" send-keys -t tui -l "$quit"
        sleep 1  # the slash-command menu opens first; Enter then runs the command
        tmux -L "$tsock" send-keys -t tui Enter
      else
        tmux -L "$tsock" send-keys -t tui C-d
      fi
      if ! waitfor 30 test -s "$work/tui.rc"; then
        fail "step interactive: ${quit:-Ctrl-D} did not quit the agent: $(pane | grep -v '^$' | tail -15)"
      elif [ "$(cat "$work/tui.rc")" != 0 ]; then
        fail "step interactive: paddock run exited $(cat "$work/tui.rc"): $(tail -5 "$work/stderr3")"
      fi
    fi
    tmux -L "$tsock" kill-server 2>/dev/null || true
    if grep -q 'left behind' "$work/stderr3" 2>/dev/null; then
      fail "step interactive: paddock left something behind: $(grep 'left behind' "$work/stderr3")"
    fi

    kill "$mock_pid" 2>/dev/null || true
    wait "$mock_pid" 2>/dev/null || true
    [ ! -s "$logs/errors.jsonl" ] || fail "step mock: $(head -c 600 "$logs/errors.jsonl")"
    if [ "$failures" = "$before" ]; then
      extra_pass=''
      [ "$agent" = claude ] && extra_pass='; its Stop hook took an undo checkpoint'
      echo "PASS [$agent] tool loop; ~/.ssh hidden; loopback listener, other host, writes outside the project refused; the second run continues the session${extra_pass}; the interactive start works in a terminal ($(($(date +%s) - start))s)"
      if [ "${PADDOCK_AGENT_TEST_KEEP:-0}" = 1 ]; then echo "kept: $work"; else rm -rf "$work"; fi
    else
      for n in "" 2 3; do
        echo "---- [$agent] run ${n:-1}: paddock stderr (last 40 lines):"; tail -n 40 "$work/stderr$n"
        echo "---- [$agent] run ${n:-1}: stdout (last 20 lines):"; tail -n 20 "$work/stdout$n" 2>/dev/null || true
      done
      [ ! -s "$logs/unknown_routes.jsonl" ] || { echo "---- [$agent] unknown routes:"; sort -u "$logs/unknown_routes.jsonl" | head; }
      echo "---- [$agent] kept for debugging: $work"
    fi
  done
  [ "$failures" = 0 ]
  exit
fi

# Exit 77 means skipped (ctest's SKIP_RETURN_CODE for these tests), always with the reason.
if ! command -v node >/dev/null 2>&1; then
  echo "SKIPPED: node is not installed (scripts/test-setup.d/mcp.sh installs Debian's nodejs), so the agents cannot run"
  exit 77
fi
# pi needs Node 20.6 or later (its package.json engines); Debian 12's own nodejs is 18.
if ! node -e 'const [a, b] = process.versions.node.split(".").map(Number); process.exit(a > 20 || (a === 20 && b >= 6) ? 0 : 1)'; then
  echo "SKIPPED: node $(node --version) is older than 20.6, which pi (@mariozechner/pi-coding-agent) needs"
  exit 77
fi
if ! command -v tmux >/dev/null 2>&1; then
  echo "SKIPPED: tmux is not installed (scripts/setup.sh installs it): the interactive starts cannot be driven"
  exit 77
fi
for a in "${agents[@]}"; do
  bin=$a
  if [ ! -e "$here/node_modules/.bin/$bin" ]; then
    echo "SKIPPED: tests/agents/node_modules/.bin/$bin is missing: run scripts/test-setup.d/agents.sh (npm ci from the npm registry)"
    exit 77
  fi
done

bindir=$(mktemp -d /tmp/paddock-agenttest.XXXXXX)
trap 'rm -rf "$bindir"' EXIT
cp "$paddock_bin" "$bindir/paddock"
chmod 755 "$bindir" "$bindir/paddock"

case "$who" in
  current)
    "$here/run.sh" __inner "$bindir/paddock" "${agents[@]}"
    ;;
  root)
    if [ "$(id -u)" != 0 ]; then
      echo "SKIPPED: the root run needs root (running as $(id -un))"
      exit 77
    fi
    "$here/run.sh" __inner "$bindir/paddock" "${agents[@]}"
    ;;
  unprivileged)
    if [ "$(id -u)" != 0 ]; then
      "$here/run.sh" __inner "$bindir/paddock" "${agents[@]}"
      exit
    fi
    . "$here/../lib/test_user.sh"
    test_user_setup "$here" "$bindir" mock_model.mjs
    chmod 755 "$bindir"
    "${drop[@]}" env -i PATH=/usr/local/bin:/usr/bin:/bin USER="$user" LOGNAME="$user" TMPDIR=/tmp \
      HOME=/nonexistent PADDOCK_AGENT_TEST_KEEP="${PADDOCK_AGENT_TEST_KEEP:-0}" \
      PADDOCK_AGENT_TEST_TIMEOUT="${PADDOCK_AGENT_TEST_TIMEOUT:-90s}" "$testdir/run.sh" __inner "$bindir/paddock" "${agents[@]}"
    ;;
  *) echo "usage: run.sh root|unprivileged|current PADDOCK_BINARY [agent...]" >&2; exit 2 ;;
esac
