// The report worker: drives the core's ReportReader (wasm) over the dropped files. The core
// says which byte ranges it needs next; they are read with File.slice and given back until
// it has what it needs, and its report (JSON and Markdown) goes to the page. With the data
// directory's pg_wal/ among the files, the WAL is read for the damaged blocks' full-page images,
// as `pgpage report --wal DIR/pg_wal DIR` does; with a base backup's files, each damaged
// block's page there is judged as `pgpage report --from BACKUP DIR` does. The page ends a report it no longer wants by
// ending the worker.
import { loadWasm, redactedReportOf, reportOf, reportWanted, rowEffectWords, type ReportOutput } from '../core';
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
    await run(
      held.filter((f) => !f.backup && !f.wal),
      first.shown,
      job,
      first.backup !== undefined ? { shown: first.backup, files: held.filter((f) => f.backup) } : undefined,
      held.filter((f) => f.wal),
    );
  },
  (job, message) => ({ type: 'error', job, message }),
);

async function run(
  held: ReportFile[],
  shown: string,
  { job, post }: Job<ToReport, FromReport>,
  backup?: { shown: string; files: ReportFile[] },
  archive: ReportFile[] = [],
): Promise<void> {
  const w = await loadWasm();
  const byPath = new Map(held.map((f) => [f.path, f.file]));
  const lengths = held.map((f) => f.file.size);
  // The directory's own WAL (`pg_wal/NAME`), as `pgpage report DIR` reads DIR/pg_wal.
  // With WAL dropped beside the directory (an archive), as `pgpage report --wal ARCHIVE DIR`
  // reads both: after a clean stop pg_wal holds little more than the last checkpoint.
  const walFiles = [
    ...archive.flatMap((f) => {
      const name = f.path.slice(f.path.lastIndexOf('/') + 1);
      return w.wal_file_kind(name) === undefined ? [] : [{ name, path: f.path, file: f.file }];
    }),
    ...held.flatMap((f) => {
      const name = ownWalName(w, f.path);
      return name === undefined ? [] : [{ name, path: f.path, file: f.file }];
    }),
  ];
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
    if (backup) await setBackup(out, backup);
    const watch = out.wal_blocks();
    if (walFiles.length > 0 && watch.length > 0) {
      const first = reportOf(out);
      const { scanner } = await scanWal(w, walFiles, first.cluster.system_identifier ?? '', first.cluster.block_size ?? 8192, watch, (done) =>
        post({ type: 'progress', job, read: read + done, total }),
      );
      try {
        // The archive's folders, as `pgpage report --wal` names what it was given.
        const folders = [...new Set(archive.map((f) => f.path.slice(0, f.path.lastIndexOf('/') + 1) || './'))];
        if (folders.length > 0) out.set_wal_given(folders.map((d) => d.replace(/\/$/, '')));
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

/** The base backup's page of each damaged block, by the block's path in the backup's data
 * directory, given to the report as `pgpage report --from BACKUP` reads them. */
async function setBackup(out: ReportOutput, backup: { shown: string; files: ReportFile[] }): Promise<void> {
  const byPath = new Map(backup.files.map((f) => [f.path, f.file]));
  const size = reportOf(out).cluster.block_size ?? 8192;
  const blocks = JSON.parse(out.backup_blocks()) as [string, number][];
  const pages: Uint8Array[] = [];
  const found = await Promise.all(
    blocks.map(async ([file, block]) => {
      const shown = `${backup.shown}${file}`;
      const f = byPath.get(file);
      const at = { file, block_in_file: block, shown };
      if (!f) return { ...at, state: 'absent' };
      try {
        const bytes = new Uint8Array(await f.slice(block * size, (block + 1) * size).arrayBuffer());
        return bytes.length === size ? { ...at, state: 'page', bytes } : { ...at, state: 'short' };
      } catch (e) {
        return { ...at, state: 'error', error: `could not read file "${shown}": ${e instanceof Error ? e.message : String(e)}` };
      }
    }),
  );
  const listed = found.map(({ bytes, ...rest }: { bytes?: Uint8Array } & Record<string, unknown>) => {
    if (bytes) pages.push(bytes);
    return rest;
  });
  const all = new Uint8Array(pages.length * size);
  pages.forEach((p, i) => all.set(p, i * size));
  out.set_backup(JSON.stringify(listed), all);
}
