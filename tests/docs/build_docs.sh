#!/usr/bin/env bash
# Builds the manual as the docs test does: mkdocs build --strict into OUT,
# then doxygen (the repository's Doxyfile, warnings as errors) into OUT/api.
# Exits 77 (ctest: skipped) with a message when a tool is missing.
#   bash tests/docs/build_docs.sh SOURCE_DIR OUT
set -euo pipefail
src="$1"
out="$2"

skip() {
    echo "SKIP: $1 (Debian: apt-get install mkdocs python3-pymdownx doxygen; scripts/test.sh installs them)"
    exit 77
}
command -v mkdocs >/dev/null 2>&1 || skip "mkdocs not found"
command -v doxygen >/dev/null 2>&1 || skip "doxygen not found"
# mkdocs's own interpreter must have pymdownx (the snippets extension).
mkdocs_python="$(head -n 1 "$(command -v mkdocs)" | sed -n 's/^#![[:space:]]*//p' | awk '{print $1}')"
case "$mkdocs_python" in
    */env) mkdocs_python="$(head -n 1 "$(command -v mkdocs)" | awk '{print $2}')" ;;
esac
if [ -n "$mkdocs_python" ] && ! "$mkdocs_python" -c 'import pymdownx.snippets' >/dev/null 2>&1; then
    skip "pymdownx (python3-pymdownx) not importable by mkdocs ($mkdocs_python)"
fi

cd "$src"   # the snippets' base path is the repository root
rm -rf "$out"
echo "mkdocs build --strict -> $out"
mkdocs build --strict --quiet --config-file "$src/mkdocs.yml" --site-dir "$out"

echo "doxygen -> $out/api"
mkdir -p "$out/api"
log="$(mktemp)"
trap 'rm -f "$log"' EXIT
if ! { cat "$src/Doxyfile"; echo "OUTPUT_DIRECTORY = $out/api"; } | doxygen - >"$log" 2>&1; then
    cat "$log"
    echo "error: doxygen failed (warnings are errors: see above)" >&2
    exit 1
fi
if [ -s "$log" ]; then
    cat "$log"
    echo "error: doxygen printed warnings" >&2
    exit 1
fi

for f in index.html getting-started.html reference.html api/index.html; do
    [ -s "$out/$f" ] || { echo "error: $out/$f was not written" >&2; exit 1; }
done
echo "site: $out/index.html, API reference: $out/api/index.html"
