#!/bin/sh
# Every C file is formatted by the committed .clang-format (STYLE.md 14).
cd "$(dirname "$0")/../.." || exit 1
command -v clang-format >/dev/null 2>&1 || { echo "format: SKIP: no clang-format"; exit 77; }
files=$(git ls-files '*.c' '*.h' 2>/dev/null)
[ -n "$files" ] || { echo "format: SKIP: not a git checkout"; exit 77; }
if ! clang-format --dry-run -Werror $files 2>/tmp/tern-format.$$; then
  head -20 /tmp/tern-format.$$; rm -f /tmp/tern-format.$$
  echo "format: FAIL: run clang-format -i \$(git ls-files '*.c' '*.h')"; exit 1
fi
rm -f /tmp/tern-format.$$
# .clang-format does not reflow comments, so it lets a comment line run past
# the column limit; this catches it.
long=$(awk 'length > 100 { print FILENAME ":" FNR ": " length " columns" }' $files)
if [ -n "$long" ]; then
  echo "$long" | head -20
  echo "format: FAIL: lines over 100 columns (wrap the comment)"; exit 1
fi
echo "format: PASS"
