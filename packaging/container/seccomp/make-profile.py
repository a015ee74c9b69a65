#!/usr/bin/env python3
"""paddock's seccomp profile for containers: a runtime's default profile plus exactly what
paddock needs to build its sandboxes (docs/scale.md#containers), nothing else.

usage: make-profile.py BASE.json [--without NAME] > paddock.json
  --without NAME: leave that one addition out (tests/container/run.sh: each one is needed).
  BASE: moby's default profile, which Docker and containerd's RuntimeDefault apply (Debian:
  golang-github-docker-docker-dev, profiles/seccomp/default.json), or podman/CRI-O's
  (/usr/share/containers/seccomp.json, Debian's golang-github-containers-common).

Each added syscall is allowed unconditionally: it is taken out of the base's rules that allow it
only with CAP_SYS_ADMIN (which paddock's container does not have), or refuse it without, or allow
it only with some arguments, and allowed by one rule of its own. Everything else in the base is
kept as it is. tests/container/run.sh shows that each addition is needed (without it, paddock
falls back to Landlock + seccomp only) and that the profile is exactly BASE plus ADDITIONS.
"""
import copy
import json
import sys

# What paddock's sandbox does (src/engine), and why each is safe to allow here: every one of
# them acts only inside the user namespace paddock creates, where the container's own
# capabilities do not reach the host's resources.
ADDITIONS = {
    "unshare": "the sandbox's cgroup namespace (clone makes the others), all of them with run --exec",
    "clone": "the same, at the sandbox's creation (flags with CLONE_NEW*)",
    "mount": "the sandbox's tmpfs root, bind mounts of allowed paths, its own /proc (inside its "
             "mount namespace only)",
    "umount2": "detaching the old root after pivot_root",
    "pivot_root": "entering the sandbox's root",
    "mount_setattr": "making bind mounts read-only recursively (MOUNT_ATTR_RDONLY)",
    "sethostname": "naming the sandbox's own UTS namespace",
}


def build(base, additions):
    profile = copy.deepcopy(base)
    kept = []
    for rule in profile["syscalls"]:
        names = [n for n in rule["names"] if n not in additions]
        if names:
            rule["names"] = names
            kept.append(rule)
    kept.append({
        "names": sorted(additions),
        "action": "SCMP_ACT_ALLOW",
        "comment": "paddock: " + "; ".join(f"{n}: {why}" for n, why in sorted(additions.items())),
    })
    profile["syscalls"] = kept
    return profile


def main():
    args = sys.argv[1:]
    additions = dict(ADDITIONS)
    if len(args) == 3 and args[1] == "--without" and args[2] in additions:
        del additions[args[2]]
    elif len(args) != 1:
        sys.exit(__doc__)
    with open(args[0]) as f:
        base = json.load(f)
    json.dump(build(base, additions), sys.stdout, indent=2, sort_keys=True)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
