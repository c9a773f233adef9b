#!/usr/bin/env python3
"""Include cycles and long files in include/ (issue 47: no file includes the
file that includes it; no file over 600 lines).

Reads the #include lines of every file under the given root (default
include/), resolves "..." against the including file's folder and <...>
against the root, and prints each cycle (a mutual include is a cycle of two)
and each file over the line limit. Every #include counts, the header-only
include of a body file (detail/<name>-inl.hpp) included: the body file does
not include its header back, so it closes no cycle
(include/broadphase/detail/extern_templates.hpp). Exit status 1 when it
found something and --strict is given, else 0.

  python3 scripts/include_cycles.py [--strict] [--max-lines N] [root]
"""
import os
import re
import sys


def graph(root):
    g = {}
    inc = re.compile(r'\s*#\s*include\s*([<"])([^>"]+)[>"]')
    for d, _, files in os.walk(root):
        for f in files:
            p = os.path.normpath(os.path.join(d, f))
            g[p] = []
            with open(p, errors="replace") as fh:
                for line in fh:
                    m = inc.match(line)
                    if not m:
                        continue
                    near = [os.path.normpath(os.path.join(d, m.group(2)))] if m.group(1) == '"' else []
                    for c in near + [os.path.normpath(os.path.join(root, m.group(2)))]:
                        if os.path.isfile(c):
                            g[p].append(c)
                            break
    return g


def cycles(g):
    found, state, stack = [], {}, []

    def visit(u):
        state[u] = 1
        stack.append(u)
        for v in g.get(u, []):
            if state.get(v) == 1:
                found.append(stack[stack.index(v):] + [v])
            elif not state.get(v):
                visit(v)
        stack.pop()
        state[u] = 2

    sys.setrecursionlimit(10000)
    for u in sorted(g):
        if not state.get(u):
            visit(u)
    return found


def main(argv):
    strict = "--strict" in argv
    max_lines = 600
    args = [a for a in argv if a != "--strict"]
    if "--max-lines" in args:
        i = args.index("--max-lines")
        max_lines = int(args[i + 1])
        del args[i:i + 2]
    root = os.path.normpath(args[0] if args else "include")
    g = graph(root)
    problems = 0
    for c in cycles(g):
        print("cycle: " + " -> ".join(os.path.relpath(x, root) for x in c))
        problems += 1
    for p in sorted(g):
        with open(p, errors="replace") as fh:
            n = sum(1 for _ in fh)
        if n > max_lines:
            print(f"over {max_lines} lines: {os.path.relpath(p, root)} ({n})")
            problems += 1
    print(f"{problems} found in {len(g)} files under {root}")
    return 1 if strict and problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
