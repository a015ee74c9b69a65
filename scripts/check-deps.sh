#!/usr/bin/env bash
# Checks libpaddock's folder graph (issue 27 item 6): every paddock symbol a folder's objects use
# is defined in that folder or in a folder it names (PADDOCK_DEPS_<folder> in CMakeLists.txt),
# directly or through them. A folder that reaches into one it does not name fails, with the
# symbols; so does a cycle. Run by ctest (deps.graph) on the built static libraries.
#
# usage: scripts/check-deps.sh BUILD_DIR
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
build=${1:?usage: scripts/check-deps.sh BUILD_DIR}
exec python3 - "$src/CMakeLists.txt" "$build" <<'PY'
import re, subprocess, sys
cmake, build = sys.argv[1], sys.argv[2]
text = open(cmake).read()
folders = re.search(r'set\(PADDOCK_SUBSYSTEMS ([^)]*)\)', text).group(1).split()
deps = {f: [] for f in folders}
for f, d in re.findall(r'set\(PADDOCK_DEPS_(\w+)((?: [\w]+)*)\)', text):
    deps[f] = d.split()
bad = [f for f in folders if any(d not in deps for d in deps[f])]
if bad:
    sys.exit(f"check-deps: {cmake}: PADDOCK_DEPS_ of {bad} name a folder that is not a subsystem")

def closure(f, seen=()):
    if f in seen:
        sys.exit("check-deps: the folders' graph has a cycle: " + " -> ".join(seen + (f,)))
    out = {f}
    for d in deps[f]:
        out |= closure(d, seen + (f,))
    return out

def nm(lib, *flags):
    return subprocess.run(['nm', '-C', *flags, lib], check=True, capture_output=True, text=True).stdout

defined, used = {}, {}
for f in folders:
    lib = f'{build}/libpaddock_{f}.a'
    defined[f] = {l.split(' ', 2)[2] for l in nm(lib, '--defined-only').splitlines()
                  if re.match(r'^[0-9a-f]+ [TWVDBRu] ', l)}
    used[f] = {l.strip()[2:] for l in nm(lib, '-u').splitlines()
               if l.strip().startswith('U ') and 'paddock::' in l}

failed = False
for f in folders:
    reach = set().union(*(defined[d] for d in closure(f)))
    for other in folders:
        if other in closure(f):
            continue
        missing = sorted(u for u in used[f] - reach if u in defined[other])
        if missing:
            failed = True
            print(f"check-deps: src/{f} uses src/{other}, which PADDOCK_DEPS_{f} does not reach "
                  f"({len(missing)} symbols, e.g. {missing[0]})")
if failed:
    sys.exit(1)
print(f"check-deps: {len(folders)} folders, every use within the declared graph")
PY
