#!/usr/bin/env python3
"""Checks that the code the README and the manual show is the code the tests compile and run.

Usage: check_snippets.py REPOSITORY_ROOT

- A fenced code block right after a line `<!-- snippet: PATH -->` (README.md, docs/**/*.md) must equal
  the file PATH (relative to the repository root) exactly, but for the final newline. The README is
  read on GitHub, where pymdownx.snippets does not run, so it carries copies, checked here.
- Every `--8<-- "PATH"` inclusion in docs/ must name an existing file under examples/, so that what the
  site shows is a program the tests build and run (tests/docs/CMakeLists.txt, examples/docs/).
- Every program under examples/docs/ must be shown somewhere (README.md or docs/), or it is dead weight.
Exit status 1 with one line per problem.
"""
import pathlib
import re
import sys

SNIPPET_MARK = re.compile(r"^<!--\s*snippet:\s*(\S+)\s*-->\s*$")
INCLUDE = re.compile(r'^\s*--8<--\s+"([^"]+)"\s*$')
FENCE = re.compile(r"^(```+|~~~+)")


def fenced_block(lines, start):
    """The body of the fenced block opening at lines[start], or None."""
    m = FENCE.match(lines[start]) if start < len(lines) else None
    if not m:
        return None
    fence = m.group(1)
    body = []
    for line in lines[start + 1:]:
        if line.startswith(fence) and line.strip() == fence:
            return "\n".join(body)
        body.append(line)
    return None


def main():
    root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else ".").resolve()
    pages = [root / "README.md"] + sorted((root / "docs").rglob("*.md"))
    problems = []
    shown = set()
    for page in pages:
        rel = page.relative_to(root)
        lines = page.read_text(encoding="utf-8").split("\n")
        for i, line in enumerate(lines):
            m = SNIPPET_MARK.match(line)
            if m:
                path = root / m.group(1)
                block = fenced_block(lines, i + 1)
                if block is None:
                    problems.append(f"{rel}:{i + 1}: snippet mark for {m.group(1)} not followed by a code block")
                elif not path.is_file():
                    problems.append(f"{rel}:{i + 1}: snippet file {m.group(1)} does not exist")
                elif block != path.read_text(encoding="utf-8").rstrip("\n"):
                    problems.append(f"{rel}:{i + 1}: the block differs from {m.group(1)}: copy the file again")
                shown.add(path.resolve())
            m = INCLUDE.match(line)
            if m and page != root / "README.md":
                path = (root / m.group(1)).resolve()
                if not path.is_file():
                    problems.append(f"{rel}:{i + 1}: included file {m.group(1)} does not exist")
                elif not str(path).startswith(str(root / "examples") + "/"):
                    problems.append(f"{rel}:{i + 1}: included file {m.group(1)} is not under examples/")
                shown.add(path)
    for program in sorted((root / "examples" / "docs").glob("*")):
        if program.suffix in (".cpp", ".py") and program.resolve() not in shown:
            problems.append(f"examples/docs/{program.name}: shown on no page")
    for p in problems:
        print(p)
    checked = len(shown)
    print(f"{len(pages)} pages, {checked} files shown, {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
