# Shared by ci/bench/ior-*.job.sh (ci/bench-vs-ior): IOR beside iofab at queue depth 1, as IOR's POSIX
# backend reads and writes: one 1 MiB transfer at a time per rank, psync, 2 ranks under mpirun, a file per
# rank (IOR -F). IOR_DIRECT=1: O_DIRECT on both sides (IOR --posix.odirect); else buffered. $IOR: IOR's
# binary, built outside this repository. Each run prints "RATE BYTES CPU_SECONDS" for compare_rounds.
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
BENCH_PEERS=ior
ranks=2; block_mib="${IOR_BLOCK_MIB:-512}"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
launch=(mpirun -np "$ranks" --oversubscribe --bind-to none)
ior_direct=(); [ "${IOR_DIRECT:-0}" = 1 ] && ior_direct=(--posix.odirect)
iofab_direct=false; [ "${IOR_DIRECT:-0}" = 1 ] && iofab_direct=true

# run_ior_with ARGS...: IOR's mean bandwidth and bytes moved from its JSON summary, and the CPU of the run.
run_ior_with() {
  /usr/bin/time -f "%U %S" -o "$BENCH_WORK/ior.time" "${launch[@]}" "$IOR" -a POSIX "${ior_direct[@]}" -t 1m \
    -b "${block_mib}m" -F "$@" -O summaryFormat=JSON -O summaryFile="$BENCH_WORK/ior.json" >/dev/null 2>&1
  echo "$(jq '.summary[0].bwMeanMIB * 1048576' "$BENCH_WORK/ior.json") $(jq '.summary[0].xsizeMiB * 1048576' "$BENCH_WORK/ior.json") $(cpu_of "$BENCH_WORK/ior.time")"
}

# run_iofab_suite METRIC: iofab on $BENCH_WORK/suite.json under the same launcher; METRIC's rate and bytes.
run_iofab_suite() {
  /usr/bin/time -f "%U %S" -o "$BENCH_WORK/iofab.time" "${launch[@]}" "$IOFAB" run "$BENCH_WORK/suite.json" \
    --target "$BENCH_TARGET" --out "$BENCH_WORK/iofab.json" --quiet >/dev/null
  echo "$(jq ".phases[0].result.metrics.${1}_bytes_per_s" "$BENCH_WORK/iofab.json") $(jq ".phases[0].result.metrics.${1}_bytes" "$BENCH_WORK/iofab.json") $(cpu_of "$BENCH_WORK/iofab.time")"
}
