#!/bin/sh
# Runs a command that must fail with a sanitizer's finding in its output.
# Usage: expect_finding.sh NEEDLE COMMAND...
needle=$1
shift
out=$("$@" 2>&1)
rc=$?
echo "$out"
[ $rc -ne 0 ] || { echo "expect_finding: FAIL: '$*' exited with 0"; exit 1; }
echo "$out" | grep -q -- "$needle" || { echo "expect_finding: FAIL: no '$needle' in the output"; exit 1; }
echo "expect_finding: PASS: exit status $rc and '$needle'"
