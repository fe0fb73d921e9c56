#!/bin/sh
# The network transport opens the interface asked for, also after asking
# the provider again for a larger inject size (ofi_setup.c widen_inject):
# libfabric 1.17's tcp offers one entry per IP network of an interface
# (eth0: 192.0.2.0/24, fe80::/64, fd00::/64), all of one provider and
# domain, so matching the second answer by provider and domain alone took
# the domain's first network whatever was chosen. For every (domain,
# fabric) that fi_info lists for tcp;ofi_rxm here: a 2-rank network job
# with TERN_OFI_DOMAIN and TERN_OFI_FABRIC set reports that domain and
# fabric with unacknowledged writes of 128 B (the widened inject size), and
# for a domain's second fabric the collectives' records of up to 112 B run
# over it (mp_coll). A fabric that is not offered is refused, listing those
# that are. Usage: ofi_iface.sh TERNRUN HELLO COLL
ternrun=$1 hello=$2 coll=$3
prov='tcp;ofi_rxm'
fail() { echo "ofi_iface: FAIL: $*"; exit 1; }
command -v fi_info >/dev/null || { echo "ofi_iface: SKIP: no fi_info (libfabric-bin)"; exit 77; }
pairs=$(fi_info -p "$prov" -t FI_EP_RDM 2>/dev/null |
  awk '/^ *fabric:/ {f=$2} /^ *domain:/ {print $2 " " f}' | awk '!seen[$0]++')
[ -n "$pairs" ] || { echo "ofi_iface: SKIP: fi_info lists no $prov entry"; exit 77; }
echo "$pairs" | {
  prev='' n=0 second=0
  while read -r dom fab; do
    out=$(TERN_SHM=off TERN_OFI_PROVIDER="$prov" TERN_OFI_DOMAIN="$dom" \
      TERN_OFI_FABRIC="$fab" TERN_VERBOSE=1 timeout 30 "$ternrun" -n 2 "$hello" 2>&1) ||
      fail "domain $dom fabric $fab: job failed: $out"
    line=$(echo "$out" | grep -m1 'ofi: provider')
    echo "$line" | grep -q "domain $dom, fabric $fab, .*unacknowledged writes 128 B" ||
      fail "domain $dom fabric $fab asked for, opened: $line"
    echo "ok: $dom $fab: $(echo "$line" | cut -c1-110)"
    n=$((n + 1))
    if [ "$dom" = "$prev" ] && [ $second = 0 ]; then
      second=1 # a domain's second fabric: the records over it
      out=$(TERN_SHM=off TERN_OFI_PROVIDER="$prov" TERN_OFI_DOMAIN="$dom" \
        TERN_OFI_FABRIC="$fab" timeout 60 "$ternrun" -n 2 "$coll" 2>&1) ||
        fail "domain $dom fabric $fab: collectives failed: $out"
      echo "ok: collectives over $dom $fab"
    fi
    prev=$dom
  done
  echo "ofi_iface: $n interface(s) checked"
} || exit 1

out=$(TERN_SHM=off TERN_OFI_PROVIDER="$prov" TERN_OFI_FABRIC=10.99.99.0/24 timeout 30 \
  "$ternrun" -n 2 "$hello" 2>&1); rc=$?
[ $rc -eq 124 ] && fail "unknown fabric: job hung"
[ $rc -eq 0 ] && fail "unknown fabric: job succeeded: $out"
echo "$out" | grep -q "fabric '10.99.99.0/24' is not offered.*set TERN_OFI_FABRIC to one of: " ||
  fail "unknown fabric: no clear message listing the fabrics: $out"
echo "ok: $(echo "$out" | grep -m1 '10.99.99')"
echo "ofi_iface: PASS"
