#!/usr/bin/env python3
"""The house rules that a script can check (issue 55; docs/design.md):

  public-api   no public header (include/broadphase/*.hpp) aliases a detail::
               class, and no detail:: type stands in a public declaration: a
               namespace-scope function or alias, or a public or protected
               member. Function bodies, private members, base-class lists and
               namespace detail are the implementation's.
  lengths      no file over 600 lines in include/, src/, mpi/, python/src/,
               tools/ (the generated single header aside).
  intrinsics   no SIMD intrinsic header or target(...) attribute outside src/simd/
               (the rest of src/, python/, tools/, sim/, bench/, include/ ...).
  no-errors    no include-order #error in include/ or src/.
  src-share    src/ holds at least 60% of the library's lines (include/broadphase
               and src/).
  macros       the BROADPHASE_ macros defined in include/ and src/ (counted and
               listed; --max-macros N makes it a check).

  python3 scripts/check_layout.py [CHECK ...] [--max-macros N]

With no CHECK, runs them all. Prints what it found; exits 1 when a check
failed.
"""
import argparse
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def rel(path):
    return os.path.relpath(path, ROOT).replace(os.sep, "/")


def files_under(*folders, exts=(".hpp", ".cpp", ".ipp", ".h", ".cc", ".cu", ".cuh")):
    for folder in folders:
        base = os.path.join(ROOT, folder)
        if os.path.isfile(base):
            yield base
            continue
        for d, _, names in os.walk(base):
            for n in sorted(names):
                if n.endswith(exts):
                    yield os.path.join(d, n)


def strip_comments(text):
    """The code without comments, string and character literals (each
    replaced by a space, or an empty literal), line breaks kept."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append("\n" * text.count("\n", i, j))
            i = j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            out.append(c + c)
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


class PublicScan:
    """Walks one header's code and collects the declarations a user sees:
    at namespace scope (outside namespace detail) and in the public and
    protected parts of classes; bodies of functions are skipped."""

    def __init__(self, path):
        self.path = path
        code = strip_comments(open(path, encoding="utf-8").read())
        # Preprocessor lines (with their continuations) say nothing here.
        code = re.sub(r"^[ \t]*#(?:[^\n]*\\\n)*[^\n]*", "", code, flags=re.M)
        self.code = code
        self.found = []

    def run(self):
        # Each stack entry: ("ns", public?) | ("class", access) | ("skip", None)
        stack = [("ns", True)]
        head_start = 0
        i, n, code = 0, len(self.code), self.code
        paren = 0
        while i < n:
            c = code[i]
            if c in "([":
                paren += 1
            elif c in ")]":
                paren -= 1
            if stack[-1][0] == "skip":
                if c == "{":
                    stack.append(("skip", None))
                elif c == "}":
                    stack.pop()
                    head_start = i + 1
                i += 1
                continue
            if c == ":" and stack[-1][0] == "class" and paren == 0:
                m = re.search(r"\b(public|private|protected)\s*$", code[head_start:i])
                if m and not code.startswith("::", i) and code[i - 1] != ":":
                    stack[-1] = ("class", m.group(1))
                    head_start = i + 1
            if c == ";" and paren == 0:
                self.declaration(stack, code[head_start:i])
                head_start = i + 1
            elif c == "{" and paren == 0:
                head = code[head_start:i]
                kind = self.opens(head)
                if kind == "namespace":
                    name = re.search(r"namespace\s*([\w:]*)\s*$", head).group(1)
                    public = stack[-1] == ("ns", True) and name != "detail"
                    stack.append(("ns", public) if public else ("skip", None))
                elif kind == "class":
                    self.declaration(stack, self.class_head(head))
                    struct = re.search(r"\b(struct|union)\b", head) is not None
                    visible = self.visible(stack)
                    stack.append(("class", "public" if struct else "private") if visible else ("skip", None))
                else:
                    if kind == "function":
                        self.declaration(stack, head)
                    stack.append(("skip", None))
                head_start = i + 1
            elif c == "}" and paren == 0:
                stack.pop()
                head_start = i + 1
            i += 1
        return self.found

    @staticmethod
    def opens(head):
        h = head.strip()
        if re.search(r"\bnamespace\s*[\w:]*$", h):
            return "namespace"
        if re.search(r"\benum\b", h):
            return "enum"
        if re.search(r"\b(class|struct|union)\b[^()]*$", re.sub(r"<[^<>]*>", "", re.sub(r"<[^<>]*>", "", h))):
            return "class"
        if h.endswith(")") or re.search(r"\)\s*(const|noexcept|override|final|->[^;]*|\s)*$", h) or ") :" in h:
            return "function"
        return "other"  # an initialiser, a lambda: the implementation's

    @staticmethod
    def class_head(head):
        """A class head without its base-class list."""
        m = re.search(r"\b(class|struct|union)\s+\w+(\s+final)?\s*:", head)
        return head[: m.end() - 1] if m else head

    @staticmethod
    def visible(stack):
        kind, what = stack[-1]
        return (kind == "ns" and what) or (kind == "class" and what in ("public", "protected"))

    def declaration(self, stack, text):
        if not self.visible(stack):
            return
        text = " ".join(text.split())
        if not text:
            return
        # A constructor's member initialisers are its body's.
        text = re.split(r"\)\s*:(?!:)", text)[0]
        if re.search(r"\bfriend\b", text):
            return
        if "detail::" in text:
            line = self.code.count("\n", 0, self.code.find(text.split()[0])) + 1
            alias = re.match(r"(template\s*<[^>]*>\s*)?using\s+\w+\s*=", text)
            what = "aliases a detail:: type" if alias else "has detail:: in a public declaration"
            self.found.append("%s: %s: %s" % (rel(self.path), what, text[:160]))


def check_public_api():
    problems = []
    public = os.path.join(ROOT, "include", "broadphase")
    for name in sorted(os.listdir(public)):
        if name.endswith(".hpp"):
            problems += PublicScan(os.path.join(public, name)).run()
    return problems


def check_lengths(limit=600):
    problems = []
    for path in files_under("include", "src", "mpi", os.path.join("python", "src"), "tools"):
        with open(path, encoding="utf-8", errors="replace") as f:
            lines = sum(1 for _ in f)
        if lines > limit:
            problems.append("%s: %d lines (limit %d)" % (rel(path), lines, limit))
    return problems


INTRINSICS = re.compile(r"#\s*include\s*<(immintrin|x86intrin|emmintrin|smmintrin|nmmintrin|arm_neon)\.h>"
                        r"|__attribute__\s*\(\(\s*target\s*\(|\b_mm(256|512)?_\w+\s*\(")


def check_intrinsics():
    problems = []
    simd = os.path.join(ROOT, "src", "simd") + os.sep
    for top in sorted(os.listdir(ROOT)):
        if top in ("single_include", "build", ".git") or top.startswith(("build", ".")):
            continue
        if not os.path.isdir(os.path.join(ROOT, top)):
            continue
        for path in files_under(top):
            if path.startswith(simd):
                continue
            code = strip_comments(open(path, encoding="utf-8", errors="replace").read())
            m = INTRINSICS.search(code)
            if m:
                line = code.count("\n", 0, m.start()) + 1
                problems.append("%s:%d: %s outside src/simd/" % (rel(path), line, m.group(0).strip()))
    return problems


def check_no_errors():
    problems = []
    for path in files_under("include", "src"):
        for i, line in enumerate(open(path, encoding="utf-8", errors="replace"), 1):
            if re.match(r"\s*#\s*error\s+\"include <", line):
                problems.append("%s:%d: an include-order #error" % (rel(path), i))
    return problems


def lines_of(*folders):
    return sum(sum(1 for _ in open(p, encoding="utf-8", errors="replace"))
               for p in files_under(*folders, exts=(".hpp", ".cpp", ".ipp", ".h")))


def check_src_share(minimum=0.60):
    inc, src = lines_of(os.path.join("include", "broadphase")), lines_of("src")
    share = src / float(inc + src)
    print("src-share: src/ %d lines, include/broadphase %d: %.1f%% in src/" % (src, inc, 100 * share))
    return [] if share >= minimum else ["src/ holds %.1f%% of the library's lines (at least %.0f%%)" % (100 * share, 100 * minimum)]


def macros():
    names = set()
    for path in files_under("include", "src"):
        for line in open(path, encoding="utf-8", errors="replace"):
            m = re.match(r"\s*#\s*define\s+(BROADPHASE_\w+)", line)
            if m:
                names.add(m.group(1))
    return sorted(names)


def main():
    checks = {"public-api": check_public_api, "lengths": check_lengths, "intrinsics": check_intrinsics,
              "no-errors": check_no_errors, "src-share": check_src_share}
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("checks", nargs="*", choices=sorted(list(checks) + ["macros"]) + [[]], default=[])
    parser.add_argument("--max-macros", type=int, default=None)
    args = parser.parse_args()
    chosen = args.checks or sorted(list(checks) + ["macros"])
    failed = False
    for name in chosen:
        if name == "macros":
            found = macros()
            print("macros: %d BROADPHASE_ macros defined in include/ and src/: %s" % (len(found), " ".join(found)))
            if args.max_macros is not None and len(found) > args.max_macros:
                print("macros: FAILED: more than %d" % args.max_macros)
                failed = True
            continue
        problems = checks[name]()
        for p in problems:
            print("%s: %s" % (name, p))
        print("%s: %s" % (name, "FAILED (%d)" % len(problems) if problems else "ok"))
        failed = failed or bool(problems)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
