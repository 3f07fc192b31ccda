# restore vs fio sequential read at queue depth 1: psync, O_DIRECT, 1 MiB blocks, one read at a time per
# stream (no queue for the verification to hide in), 2 streams (2 readers, fanout 1: each reads one 1 GiB
# shard front to back, iofab verifying every byte with xxh3, one block behind the reads on a thread of its
# own). The checkpoint is written once (a --keep run); every round iofab restores it with `from` and fio
# reads the same two shard files (2 jobs, psync, iodepth 1), so both read exactly the same bytes.
RESTORE_ENGINE=psync RESTORE_QD=1 source "$(dirname "$0")/restore.job.sh"
