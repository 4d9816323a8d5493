// Reading WAL segment files into a WalScanner, for the WAL worker and the report worker alike:
// the order the core plans (along the newest timeline history given), chunk by chunk, so a
// large pg_wal is never held whole.
import type { loadWasm } from '../core';
import type { WalSegmentFile } from './walProtocol';

const CHUNK_BYTES = 4 << 20;

/** The name of a data directory's own WAL file (a segment or history file) at `path`, relative
 * to the directory (`pg_wal/NAME`), as `pgpage report DIR` reads DIR/pg_wal; undefined for any
 * other path. */
export function ownWalName(w: Wasm, path: string): string | undefined {
  const m = /^pg_wal\/([^/]+)$/.exec(path);
  return m && w.wal_file_kind(m[1]) !== undefined ? m[1] : undefined;
}

type Wasm = Awaited<ReturnType<typeof loadWasm>>;
export type Scanner = InstanceType<Wasm['WalScanner']>;

/** `files` (segments and history files) read into a new scanner watching `watch`; `progress`
 * is told the bytes read so far after each chunk. With `recover`, the same records also
 * rebuild those blocks (the scanner's `recover`); the core's refusal of the pg_control given
 * is returned, and the scan goes on without them. The caller frees the scanner. */
export async function scanWal(
  w: Wasm,
  files: readonly WalSegmentFile[],
  systemIdentifier: string,
  blockSize: number,
  watch: Uint32Array,
  progress: (done: number, total: number) => void,
  recover?: { control: Uint8Array; blocks: Uint32Array },
  flushed?: { control: Uint8Array; backupLabel: boolean },
): Promise<{ scanner: Scanner; order: WalSegmentFile[]; recoverRefused: string | null; flushed: boolean }> {
  const histories = files.filter((s) => w.wal_file_kind(s.name) === 'history');
  const segments = files.filter((s) => w.wal_file_kind(s.name) !== 'history');
  const texts = await Promise.all(histories.map((h) => h.file.text()));
  const first = segments[0];
  const segSize = first && first.file.size >= 40 ? new DataView(await first.file.slice(32, 36).arrayBuffer()).getUint32(0, true) : 0;
  const scanner = new w.WalScanner(systemIdentifier, blockSize);
  try {
    const flushedOn = flushed ? scanner.flushed(flushed.control, flushed.backupLabel) : false;
    const order = Array.from(
      scanner.plan(
        segments.map((s) => s.name),
        histories.map((h) => h.name),
        texts,
        segSize,
      ),
      (i) => segments[i],
    );
    scanner.watch(watch);
    let recoverRefused: string | null = null;
    if (recover) {
      try {
        scanner.recover(recover.control, recover.blocks);
      } catch (e) {
        recoverRefused = e instanceof Error ? e.message : String(e);
      }
    }
    const total = order.reduce((n, s) => n + s.file.size, 0);
    let done = 0;
    for (const s of order) {
      scanner.begin_segment(s.name);
      for (let off = 0; off < s.file.size; off += CHUNK_BYTES) {
        const chunk = new Uint8Array(await s.file.slice(off, off + CHUNK_BYTES).arrayBuffer());
        scanner.feed(chunk);
        done += chunk.length;
        progress(done, total);
      }
      scanner.end_segment();
    }
    scanner.finish();
    return { scanner, order, recoverRefused, flushed: flushedOn };
  } catch (e) {
    scanner.free();
    throw e;
  }
}
