#!/usr/bin/env bash
# CTest build.order_file: src/cli/paddock.order must still name the code paddock runs. Fails
# when fewer than 80% of its symbols exist in the binary (regenerate with
# scripts/gen-order-file.sh); the link ignores the missing ones, so this is about memory and
# start-up, not correctness.
set -euo pipefail
bin=$1 order=$2
total=$(grep -vc '^#' "$order")
present=$(comm -12 <(grep -v '^#' "$order" | sort -u) <(nm --defined-only "$bin" | awk '{print $3}' | sort -u) | wc -l)
pct=$((100 * present / total))
echo "order file: $present of $total symbols present ($pct%)"
if [ "$pct" -lt 80 ]; then
  echo "src/cli/paddock.order is stale: run scripts/gen-order-file.sh $bin" >&2
  exit 1
fi
