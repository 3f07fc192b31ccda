# Shared by ci/bench/*.job.sh. A job defines run_fio and run_iofab, each
# printing "RATE AMOUNT CPU_SECONDS" (bytes/s, bytes, user+sys seconds; or
# IOPS, I/Os, seconds), then calls compare_rounds LABEL.
set -euo pipefail
BENCH_WORK="$(mktemp -d)"
trap 'rm -rf "$BENCH_WORK" "$BENCH_TARGET"/fio-bench "$BENCH_TARGET"/iofab-*' EXIT

# cpu_of FILE: user+sys seconds recorded by /usr/bin/time -f "%U %S" -o FILE
cpu_of() { awk '{print $1+$2}' "$1"; }

compare_rounds() {
  local label="$1" f o
  : >"$BENCH_WORK/ratios"
  printf "%-6s %14s %14s %8s %14s %14s %8s\n" round "fio $label" "iofab $label" ratio "fio cpu s/G" "iofab cpu s/G" ratio
  for ((i = 1; i <= BENCH_ROUNDS; i++)); do
    # Alternate which tool goes first so neither always meets a warmer device.
    if ((i % 2)); then f=$(run_fio); o=$(run_iofab); else o=$(run_iofab); f=$(run_fio); fi
    awk -v f="$f" -v o="$o" -v r="$i" -v out="$BENCH_WORK/ratios" 'BEGIN {
      split(f, a, " "); split(o, b, " ");
      fcg = a[3] / (a[2] / 1e9); ocg = b[3] / (b[2] / 1e9);
      rate = b[1] / a[1]; cpu = (fcg > 0 ? ocg / fcg : 0);
      printf "%-6d %14.4g %14.4g %8.3f %14.4f %14.4f %8.3f\n", r, a[1], b[1], rate, fcg, ocg, cpu;
      printf "%f %f\n", rate, cpu >> out }'
  done
  awk -v l="$label" '{ r += $1; c += $2; n++ } END {
    printf "mean iofab/fio: %s %.3fx (goal >= 1.00), CPU per G %.3fx (goal <= 1.00)\n", l, r / n, c / n }' \
    "$BENCH_WORK/ratios"
}
