#!/bin/sh
# docs/configuration.md is generated from the TERN_* table: fails when the
# committed page differs from what `tern-info --markdown` writes now.
#   test_docs_config.sh <tern-info> <docs/configuration.md>
info=$1
doc=$2
if [ ! -x "$info" ] || [ -z "$doc" ]; then
    echo "usage: test_docs_config.sh <tern-info> <docs/configuration.md>" >&2
    exit 1
fi
tmp=$(mktemp) || exit 1
trap 'rm -f "$tmp"' EXIT
if ! "$info" --markdown >"$tmp"; then
    echo "FAIL: '$info --markdown' failed" >&2
    exit 1
fi
if [ ! -f "$doc" ]; then
    echo "FAIL: $doc is missing; create it with:" >&2
    echo "  $info --markdown > $doc" >&2
    exit 1
fi
if ! diff -u "$doc" "$tmp" >&2; then
    echo "FAIL: $doc is out of date with the TERN_* table" \
         "(src/base/cfg_vars.h); regenerate it with:" >&2
    echo "  $info --markdown > $doc" >&2
    exit 1
fi
echo "PASS: $doc matches tern-info --markdown"
exit 0
