#!/usr/bin/env bash
# The main job on the default profile, end to end: a write in the project succeeds, and a read of
# a planted ~/.ssh key is refused with the [paddock] footer. Uses a throwaway HOME and project.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
paddock=$PWD/build/paddock

demo=$(mktemp -d /tmp/paddock-demo.XXXXXX)
trap 'rm -rf "$demo"' EXIT
mkdir -p "$demo/home/.ssh" "$demo/home/src/myproject"
echo "-----BEGIN OPENSSH PRIVATE KEY----- (demo key)" > "$demo/home/.ssh/id_ed25519"
chmod 700 "$demo/home/.ssh"; chmod 600 "$demo/home/.ssh/id_ed25519"
cd "$demo/home/src/myproject"
export HOME=$demo/home

echo "\$ paddock run -- sh -c 'echo hello > notes.txt && cat notes.txt'"
"$paddock" run -- sh -c 'echo hello > notes.txt && cat notes.txt'
echo
echo "\$ paddock run -- cat ~/.ssh/id_ed25519"
if "$paddock" run -- cat "$HOME/.ssh/id_ed25519"; then
  echo "demo: FAILED — the key was readable" >&2
  exit 1
fi
echo
echo "\$ paddock why --path ~/.ssh/id_ed25519 --op read"
# why exits 1 for "not allowed", which is the answer we expect here.
if "$paddock" why --path "$HOME/.ssh/id_ed25519" --op read; then
  echo "demo: FAILED — why says the key is readable" >&2
  exit 1
fi
echo
echo "demo: ok — the project write succeeded and the key stayed unreadable"
