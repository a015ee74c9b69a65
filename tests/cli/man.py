#!/usr/bin/env python3
"""cli.man: the man pages say what --help says (issue 32).

usage: man.py PADDOCK_BINARY MAN_DIR

For every command `paddock --help` lists there is a page paddock-CMD.1 (and paddock.1,
paddock-profile.5). Each page is rendered by man(1) itself; every option and positional of the
command and of each of its subcommands (from `paddock CMD [SUB] --help`) must appear there with
its description, and every option the page's roff lists (.TP tags) must be one --help knows.
"""
import os
import re
import shutil
import subprocess
import sys


def run(args, env=None):
    return subprocess.run(args, capture_output=True, text=True, env=env, check=False)


def norm(text):
    # man renders some ASCII as typographic characters; compare words, not typography.
    for a, b in (("\u2010", "-"), ("\u2212", "-"), ("\u2019", "'"), ("\u2018", "'"), ("\u201c", '"'),
                 ("\u201d", '"'), ("\u00a0", " ")):
        text = text.replace(a, b)
    return re.sub(r"\s+", " ", text).strip()


def help_entries(paddock, path):
    """(names, description) of each option and positional in `paddock PATH --help`, and its subcommands."""
    out = run([paddock] + path + ["--help"]).stdout
    entries, subs, section, last = [], [], None, None
    for line in out.splitlines():
        if re.match(r"^[A-Za-z].*:$", line):
            section = line[:-1]
            continue
        if not line.startswith("  ") or section is None:
            continue
        body = line.strip()
        if section == "Subcommands":
            subs.append(re.split(r"\s{2,}", body)[0])
            continue
        if line.startswith("   ") and last is not None and last[1] == "":
            last[1] = body  # a description on the line after a long name
            continue
        parts = re.split(r"\s{2,}", body, maxsplit=1)
        head = parts[0].split(" ")[0]
        names = head.split(",")
        last = [names, parts[1] if len(parts) > 1 else "", section]
        entries.append(last)
    return entries, subs


def main():
    paddock, mandir = sys.argv[1], sys.argv[2]
    if shutil.which("man") is None:
        print("SKIPPED: man is not installed (Debian: apt-get install man-db)")
        return 77
    failures = []
    env = dict(os.environ, MANWIDTH="240", MANPAGER="cat", PAGER="cat", LC_ALL="C.UTF-8")
    _, commands = help_entries(paddock, [])
    pages = ["paddock"] + ["paddock-" + c for c in commands]
    for page in pages:
        path = os.path.join(mandir, page + ".1")
        if not os.path.exists(path):
            failures.append(f"no man page {page}.1")
            continue
        rendered = run(["man", "-l", path], env=env)
        if rendered.returncode != 0 or not rendered.stdout:
            failures.append(f"man -l {path} failed: {rendered.stderr}")
            continue
        text = norm(re.sub(".\b", "", rendered.stdout))
        cmd = [] if page == "paddock" else [page.split("-", 1)[1]]
        entries, subs = help_entries(paddock, cmd)
        known = set()
        for sub in ([[]] if page == "paddock" else [[]] + [[s] for s in subs]):
            ents = entries if not sub else help_entries(paddock, cmd + sub)[0]
            for names, desc, section in ents:
                if section == "Positionals":
                    names = []  # the page shows its placeholder (JAIL), --help CLI11's name
                known.update(names)
                for n in names:
                    if n not in text:
                        failures.append(f"{page}: {' '.join(cmd + sub)} {n} is in --help, not in the page")
                if desc and norm(desc) not in text:
                    failures.append(f"{page}: the description of {' '.join(cmd + sub)} {(names or ['a positional'])[0]} differs: "
                                    f"--help says \"{norm(desc)}\"")
        if page != "paddock":
            for sub in subs:
                if f"paddock {cmd[0]} {sub}" not in text:
                    failures.append(f"{page}: no section for paddock {cmd[0]} {sub}")
        roff = open(path, encoding="utf-8").read()
        for tag in re.findall(r"^\.TP\n\\fB(\\-[^\\]*(?:\\-[^\\]*)*)\\fR", roff, re.M):
            name = tag.replace("\\-", "-")
            if name not in known:
                failures.append(f"{page}: lists {name}, which --help does not know")
    profile = os.path.join(mandir, "paddock-profile.5")
    if not os.path.exists(profile):
        failures.append("no man page paddock-profile.5")
    for f in failures:
        print("FAIL:", f)
    if failures:
        print(f"man: {len(failures)} failures")
        return 1
    print(f"man: {len(pages)} pages and paddock-profile.5 say what --help says")
    return 0


if __name__ == "__main__":
    sys.exit(main())
