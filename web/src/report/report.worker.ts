// The report worker: drives the core's ReportReader (wasm) over the dropped files. The core
// says which byte ranges it needs next; they are read with File.slice and given back until
// it has what it needs, and its report (JSON and Markdown) goes to the page. With the data
// directory's pg_wal/ among the files, the WAL is read for the damaged blocks' full-page images,
// as `pgpage report --wal DIR/pg_wal DIR` does. The page ends a report it no longer wants by
// ending the worker.
import { loadWasm, redactedReportOf, reportOf, reportWanted, rowEffectWords } from '../core';
import { ownWalName, scanWal } from '../damage/walScan';
import { serve, type Job } from '../worker/bridge';
import type { FromReport, ReportFile, ToReport } from './protocol';

serve<ToReport, FromReport>(
  async (first, job) => {
    const held: ReportFile[] = [...first.files];
    for (let m = first; !m.last;) {
      m = await job.next();
      held.push(...m.files);
    }
    await run(held, first.shown, job);
  },
  (job, message) => ({ type: 'error', job, message }),
);

async function run(held: ReportFile[], shown: string, { job, post }: Job<ToReport, FromReport>): Promise<void> {
  const w = await loadWasm();
  const byPath = new Map(held.map((f) => [f.path, f.file]));
  const lengths = held.map((f) => f.file.size);
  // The directory's own WAL (`pg_wal/NAME`), as `pgpage report DIR` reads DIR/pg_wal.
  const walFiles = held.flatMap((f) => {
    const name = ownWalName(w, f.path);
    return name === undefined ? [] : [{ name, path: f.path, file: f.file }];
  });
  const walBytes = walFiles.reduce((n, f) => n + f.file.size, 0);
  const control = byPath.get('global/pg_control');
  // Read twice: first for the pages the latest checkpoint wrote (older ones are lost writes),
  // then for the damaged blocks' images and records once the report knows which.
  const total = lengths.reduce((a, b) => a + b, 0) + (control ? walBytes : 0);
  const reader = new w.ReportReader(
    held.map((f) => f.path),
    lengths,
    undefined,
    shown,
  );
  let read = 0;
  try {
    if (walFiles.length > 0 && control) {
      const { scanner } = await scanWal(w, walFiles, '', 8192, new Uint32Array(), (done) => post({ type: 'progress', job, read: done, total }), undefined, {
        control: new Uint8Array(await control.arrayBuffer()),
        backupLabel: byPath.has('backup_label'),
      });
      try {
        reader.set_flushed(scanner);
      } finally {
        scanner.free();
      }
      read = walBytes;
    }
    for (;;) {
      const wanted = reportWanted(reader);
      if (wanted.length === 0) break;
      const got = await Promise.all(
        wanted.map(async ({ path, offset, len }) => {
          const f = byPath.get(path);
          if (!f) return { bytes: undefined, error: `could not read file "${shown}${path}": it was not dropped` };
          try {
            return { bytes: new Uint8Array(await f.slice(offset, offset + len).arrayBuffer()), error: undefined };
          } catch (e) {
            return { bytes: undefined, error: `could not read file "${shown}${path}": ${e instanceof Error ? e.message : String(e)}` };
          }
        }),
      );
      wanted.forEach(({ path, offset, len }, i) => {
        const g = got[i];
        read += g.bytes?.length ?? 0;
        reader.give(path, offset, len, g.bytes, g.error);
      });
      post({ type: 'progress', job, read, total });
    }
    const out = reader.finish();
    const watch = out.wal_blocks();
    if (walFiles.length > 0 && watch.length > 0) {
      const first = reportOf(out);
      const { scanner } = await scanWal(w, walFiles, first.cluster.system_identifier ?? '', first.cluster.block_size ?? 8192, watch, (done) =>
        post({ type: 'progress', job, read: read + done, total }),
      );
      try {
        out.set_wal(scanner);
      } finally {
        scanner.free();
      }
    }
    post({
      type: 'done',
      job,
      report: reportOf(out),
      redacted: redactedReportOf(out),
      markdown: out.markdown,
      markdownRedacted: out.markdown_redacted,
      summary: out.summary,
      summaryRedacted: out.summary_redacted,
      damaged: out.damaged,
      storage: out.storage_damage ?? null,
      effects: rowEffectWords(w),
      rowHints: out.row_hints,
    });
    out.free();
  } finally {
    reader.free();
  }
}
