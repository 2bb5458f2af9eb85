// Blocking the thread for the lab's "slow disk" fault. A slow fdatasync blocks etcd's raft loop; our WAL
// syncs synchronously on the member's main thread, so the injected delay blocks it the same way.

const cell = new Int32Array(new SharedArrayBuffer(4));

/** sleepSync blocks the calling thread for `ms` milliseconds (no-op for ms <= 0). */
export function sleepSync(ms: number): void {
  if (ms > 0) Atomics.wait(cell, 0, 0, ms);
}
