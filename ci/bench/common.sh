# Shared by ci/bench/*.job.sh. A job defines run_fio (or its BENCH_PEERS' run_PEER) and run_iofab, each
# printing "RATE AMOUNT CPU_SECONDS" (bytes/s, bytes, user+sys seconds; or
# IOPS, I/Os, seconds), then calls compare_rounds LABEL. A write job also
# defines run_fio_refill: fio with --refill_buffers (fresh data in every write,
# as iofab writes; fio's default reuses one buffer), a second peer column.
set -euo pipefail
BENCH_WORK="$(mktemp -d)"
trap 'rm -rf "$BENCH_WORK" "$BENCH_TARGET"/fio-bench "$BENCH_TARGET"/iofab-*' EXIT

# cpu_of FILE: user+sys seconds recorded by /usr/bin/time -f "%U %S" -o FILE
cpu_of() { awk '{print $1+$2}' "$1"; }

# The tools a round runs: the job's BENCH_PEERS (each with its run_PEER) when it names them, else fio and
# fio --refill_buffers where the job has it; then iofab.
bench_tools() {
  if [ -n "${BENCH_PEERS:-}" ]; then
    echo "$BENCH_PEERS iofab"
  elif declare -F run_fio_refill >/dev/null; then
    echo "fio fio_refill iofab"
  else
    echo "fio iofab"
  fi
}

# run_round I: every tool once, the order rotated each round so that none always meets a warmer (or
# cooler) device; writes "TOOL RATE AMOUNT CPU" lines to $BENCH_WORK/round.
run_round() {
  local -a tools
  read -r -a tools <<<"$(bench_tools)"
  local n=${#tools[@]} k t
  : >"$BENCH_WORK/round"
  for ((k = 0; k < n; k++)); do
    t="${tools[$(((k + $1) % n))]}"
    echo "$t $("run_$t")" >>"$BENCH_WORK/round"
  done
}

compare_rounds() {
  local label="$1" peer
  : >"$BENCH_WORK/ratios"
  printf "%-6s %-10s %14s %14s %8s %12s %12s %8s\n" round peer "peer $label" "iofab $label" ratio \
    "peer cpu s/G" "iofab cpu s/G" "cpu ratio"
  for ((i = 1; i <= BENCH_ROUNDS; i++)); do
    run_round "$i"
    # Each peer against the same round's iofab run.
    awk -v r="$i" -v out="$BENCH_WORK/ratios" -v tools="$(bench_tools)" '
      { rate[$1] = $2; amount[$1] = $3; cpu[$1] = $4; hash[$1] = $5 }
      END {
        ocg = cpu["iofab"] / (amount["iofab"] / 1e9)
        # A read job may add the seconds iofab spent verifying: its CPU per GB without them.
        vcg = hash["iofab"] == "" ? "" : (cpu["iofab"] - hash["iofab"]) / (amount["iofab"] / 1e9)
        n = split(tools, order, " ")
        for (k = 1; k <= n; k++) {
          p = order[k]; if (p == "iofab") continue
          pcg = cpu[p] / (amount[p] / 1e9)
          ratio = rate["iofab"] / rate[p]; cr = (pcg > 0 ? ocg / pcg : 0)
          printf "%-6d %-10s %14.4g %14.4g %8.3f %12.4f %12.4f %8.3f", r, p, rate[p], rate["iofab"], ratio, pcg, ocg, cr
          if (vcg != "") printf "   less the hash: %.4f s/G, %.3f", vcg, (pcg > 0 ? vcg / pcg : 0)
          printf "\n"
          printf "%s %f %f %s\n", p, ratio, cr, (vcg != "" && pcg > 0 ? vcg / pcg : "") >> out
        }
      }' "$BENCH_WORK/round"
  done
  for peer in $(bench_tools); do
    [ "$peer" = iofab ] && continue
    summarize "$label" "$peer"
  done
}

# summarize LABEL PEER: the median and range over rounds of iofab/PEER, rate and CPU per GB (and that CPU
# less the verification's, where the job measured it).
summarize() {
  local rates cpus hashless
  rates="$(awk -v p="$2" '$1 == p { print $2 }' "$BENCH_WORK/ratios" | sort -g | tr '\n' ' ')"
  cpus="$(awk -v p="$2" '$1 == p { print $3 }' "$BENCH_WORK/ratios" | sort -g | tr '\n' ' ')"
  hashless="$(awk -v p="$2" '$1 == p && $4 != "" { print $4 }' "$BENCH_WORK/ratios" | sort -g | tr '\n' ' ')"
  awk -v l="$1" -v p="$2" -v rs="$rates" -v cs="$cpus" -v hs="$hashless" '
    function median(a, n) { return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
    BEGIN {
      n = split(rs, r, " "); split(cs, c, " "); m = split(hs, h, " ")
      printf "iofab/%s over %d rounds: %s median %.3fx (%.3f to %.3f), CPU per GB median %.3fx (%.3f to %.3f; goal <= 1.00)",
        p, n, l, median(r, n), r[1], r[n], median(c, n), c[1], c[n]
      if (m > 0) printf "; less the hash %.3fx (%.3f to %.3f)", median(h, m), h[1], h[m]
      printf "\n" }'
}
