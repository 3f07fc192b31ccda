# restore vs IOR -r: each rank reads one shard of a checkpoint written once (a --keep run) front to back
# in 1 MiB transfers, one at a time; iofab verifies every byte (xxh3, beside the reads), IOR checks none.
# IOR reads the very same files through links named as its -F files are (NAME.00000000, ...). Buffered:
# both sides start with the files' pages dropped (iofab's restore drops them itself; for IOR,
# posix_fadvise DONTNEED on each file before its run).
source "$(dirname "${BASH_SOURCE[0]}")/ior.sh"

cat >"$BENCH_WORK/write.json" <<JSON
{"phases": [{"kind": "checkpoint", "engine": "io_uring", "direct": true, "workers": $ranks,
  "checkpoint_size": "$((ranks * block_mib))MiB", "count": 1, "gap": 0, "block_size": "1MiB", "queue_depth": 16}]}
JSON
"$IOFAB" run "$BENCH_WORK/write.json" --target "$BENCH_TARGET" --out "$BENCH_WORK/write-report.json" --quiet --keep >/dev/null
step="$(jq -r '.target.run_folder' "$BENCH_WORK/write-report.json")/checkpoint/step-1"
shards=("$step"/shard-*.bin)
for ((k = 0; k < ranks; k++)); do ln -s "${shards[$k]}" "$(printf '%s/ior.%08d' "$BENCH_WORK" "$k")"; done

drop_pages() {
  python3 -c 'import os, sys
for p in sys.argv[1:]:
    fd = os.open(p, os.O_RDONLY); os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED); os.close(fd)' "${shards[@]}"
}

run_ior() {
  drop_pages
  run_ior_with -r -E -k -o "$BENCH_WORK/ior"
}

# Ranks 2, workers 1, fanout 1: each rank reads the one shard the writer of its number wrote.
run_iofab() {
  cat >"$BENCH_WORK/suite.json" <<JSON
{"phases": [{"kind": "restore", "from": "$step", "engine": "psync", "direct": $iofab_direct, "workers": 1,
  "fanout": 1, "block_size": "1MiB", "queue_depth": 1}]}
JSON
  # The seconds spent hashing, after the figures: compare_rounds shows the CPU per GB without them.
  echo "$(run_iofab_suite read) $(jq '.phases[0].result.details.verify_seconds' "$BENCH_WORK/iofab.json")"
}

compare_rounds "bytes/s"
