#!/usr/bin/env bash
# Validates packaging/k8s offline (validate.mjs: the Kubernetes API's schemas from the npm
# registry), and shows the validator fails on broken copies: an unknown field, a wrong type, a
# missing required field. Exit 77 (skipped) without node or tests/k8s/node_modules
# (scripts/test-setup.d/fleet.sh runs npm ci).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
k8s=$here/../../packaging/k8s
command -v node >/dev/null || { echo "SKIPPED: node is not installed"; exit 77; }
[ -d "$here/node_modules/kubernetes-models" ] ||
  { echo "SKIPPED: tests/k8s/node_modules is missing (scripts/test-setup.d/fleet.sh runs npm ci)"; exit 77; }
cd "$here"
node validate.mjs "$k8s"/*.yaml "$k8s"/agent-sandbox/*.yaml
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
broken() {  # broken NAME FILE SED-EXPRESSION EXPECTED-TEXT
  sed "$3" "$2" > "$tmp/$1.yaml"
  if cmp -s "$2" "$tmp/$1.yaml"; then echo "FAIL - $1: the edit changed nothing"; fail=1; return; fi
  if out=$(node validate.mjs "$tmp/$1.yaml" 2>&1); then
    echo "FAIL - $1: accepted"; fail=1
  elif [[ $out != *"$4"* ]]; then
    echo "FAIL - $1: refused, but not for $4: $out"; fail=1
  else
    echo "ok   - $1 refused"
  fi
}
broken unknown-field "$k8s/deployment.yaml" 's/hostUsers: false/hostUser: false/' "hostUser"
broken wrong-type "$k8s/deployment.yaml" 's/procMount: Unmasked/procMount: [Unmasked]/' "procMount"
broken missing-required "$k8s/hpa.yaml" 's/target: {type: AverageValue, averageValue: 1500m}/target: {averageValue: 1500m}/' "type"
broken pod-template-field "$k8s/agent-sandbox/sandbox-template.yaml" 's/automountServiceAccountToken: false/automountServiceAccountTokens: false/' "automountServiceAccountTokens"
exit $fail
