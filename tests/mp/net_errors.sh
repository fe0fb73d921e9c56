#!/bin/sh
# Network transport failures: a provider or domain that does not exist, and
# a peer that dies in the middle of transfers. Usage: net_errors.sh TERNRUN HELLO PINGPONG
ternrun=$1 hello=$2 pingpong=$3
fail() { echo "net_errors: FAIL: $*"; exit 1; }

out=$(TERN_SHM=off TERN_OFI_PROVIDER=nonexistent timeout 30 "$ternrun" -n 2 "$hello" 2>&1); rc=$?
[ $rc -eq 124 ] && fail "unknown provider: job hung"
[ $rc -eq 0 ] && fail "unknown provider: job succeeded"
echo "$out" | grep -q "provider 'nonexistent' is not available.*set TERN_OFI_PROVIDER to one of: .*tcp" \
  || fail "unknown provider: no clear message listing the providers: $out"
echo "ok: $(echo "$out" | grep -m1 nonexistent)"

# A domain that does not exist stops start-up with the list of those that
# do (it used to run on the provider's first interface and exit 0)...
out=$(TERN_SHM=off TERN_OFI_DOMAIN=nope0 timeout 30 "$ternrun" -n 2 "$hello" 2>&1); rc=$?
[ $rc -eq 124 ] && fail "unknown domain: job hung"
[ $rc -eq 0 ] && fail "unknown domain: job succeeded: $out"
echo "$out" | grep -q "domain 'nope0' is not offered.*set TERN_OFI_DOMAIN to one of: .*lo" \
  || fail "unknown domain: no clear message listing the domains: $out"
echo "ok: $(echo "$out" | grep -m1 nope0)"
# ... and one that exists is the one opened, not the provider's first.
out=$(TERN_SHM=off TERN_OFI_DOMAIN=lo TERN_VERBOSE=1 timeout 30 "$ternrun" -n 2 "$hello" 2>&1) \
  || fail "domain lo: job failed: $out"
echo "$out" | grep -q "ofi: provider .*, domain lo," || fail "domain lo not the one opened: $out"
echo "ok: $(echo "$out" | grep -m1 'ofi: provider')"

# A test fault naming no atomic op is refused with the forms it takes.
out=$(TERN_SHM=off TERN_TEST_FAULT=noamo:fmul timeout 30 "$ternrun" -n 2 "$hello" 2>&1); rc=$?
[ $rc -eq 124 ] && fail "bad noamo: job hung"
[ $rc -eq 0 ] && fail "bad noamo: job succeeded: $out"
echo "$out" | grep -q "TERN_TEST_FAULT='noamo:fmul' is not .*noamo:OP" \
  || fail "bad noamo: no clear message: $out"
echo "ok: $(echo "$out" | grep -m1 noamo)"

# A rank killed while the other is in the middle of put/flag exchanges
# over the network: the job ends within seconds and names it.
start=$(date +%s)
out=$(TERN_SHM=off MP_DIE_RANK=1 MP_DIE_AFTER=300 timeout 30 "$ternrun" -n 2 "$pingpong" 2>&1); rc=$?
end=$(date +%s)
[ $rc -eq 124 ] && fail "dead peer: job hung"
[ $rc -eq 0 ] && fail "dead peer: job succeeded"
echo "$out" | grep -q "rank 1 .*killed by signal 9" || fail "dead peer not named: $out"
[ $((end - start)) -le 10 ] || fail "dead peer: job took $((end - start)) s to end"
echo "ok: $(echo "$out" | grep -m1 'rank 1')"
echo "net_errors: PASS"
