// Which files the report covers, and its worker: the last data directory dropped (the
// folder holding PG_VERSION and global/pg_control), else the relation files dropped loose.
// A new drop ends the report under way and starts another.
import { useEffect, useMemo, useRef, useState } from 'react';
import type { FileEntry } from '../files';
import { droppedFiles } from '../rows/dropped';
import { rememberRowHints } from '../rows/hints';
import { workerForJob } from '../worker/bridge';
import type { FromReport, ReportFile, ReportJson, ToReport } from './protocol';

export interface ReportSource {
  /** The data directory's path prefix as dropped (`pgdata/`), '' for loose files. */
  root: string;
  files: ReportFile[];
  /** The other data directories of the drop (a base backup beside the damaged one): not
   * reported on, and said so. */
  others?: string[];
  /** One of `others` chosen as the base backup whose pages the damaged blocks are held
   * against, as `pgpage report --from BACKUP` does, with its files. */
  backup?: { root: string; files: ReportFile[] };
  /** WAL files dropped outside every data directory (an archive), by their paths as dropped. */
  archive?: ReportFile[];
}

/** A WAL segment (or its `.partial`) or timeline history file name, as an archive holds them. */
const WAL_NAME = /^(?:[0-9A-F]{24}(?:\.partial)?|[0-9A-F]{8}\.history)$/;

/** Which of the dropped data directories the report is of, and which one is its base backup:
 * by default the last one dropped, and none. */
export interface ReportChoice {
  root?: string;
  backup?: string;
}

export type ReportState =
  | { state: 'idle' }
  | { state: 'running'; read: number; total: number }
  | {
      state: 'done';
      report: ReportJson;
      /** Without row data: what an export with "Redact row data" on says instead. */
      redacted: ReportJson;
      markdown: string;
      markdownRedacted: string;
      summary: string;
      summaryRedacted: string;
      damaged: boolean;
      storage: string | null;
      effects: Record<string, string>;
    }
  | { state: 'error'; message: string };

/** Files handed to the worker per message, and how long one task of the page may post
 * messages before it yields: cloning a File for the worker costs about 0.1 ms, so 500 in one
 * message held the main thread for 50-120 ms. */
/** A report has a worker of its own: its one job. */
const JOB = 1;
const CHUNK = 50;
const SLICE_MS = 10;

/** The playground's snapshots are the playground's own, not a drop to report on. */
const ours = (path: string) => !path.startsWith('playground/');

export function reportSource(files: readonly FileEntry[], choice: ReportChoice = {}): ReportSource | null {
  const dropped = droppedFiles().filter((d) => ours(d.path));
  const paths = new Set(dropped.map((d) => d.path));
  const roots: string[] = [];
  for (const d of dropped) {
    if (d.path !== 'PG_VERSION' && !d.path.endsWith('/PG_VERSION')) continue;
    const r = d.path.slice(0, d.path.length - 'PG_VERSION'.length);
    if (paths.has(`${r}global/pg_control`) && !roots.includes(r)) roots.push(r);
  }
  if (roots.length > 0) {
    // A directory with a backup_label is a base backup not yet recovered: the damaged
    // directory is the other one, and, until the user chooses, the backup is its --from.
    const isBackup = (root: string) => paths.has(`${root}backup_label`);
    const live = roots.filter((x) => !isBackup(x));
    const chosen = choice.root !== undefined && roots.includes(choice.root);
    const r = chosen ? (choice.root as string) : (live[live.length - 1] ?? roots[roots.length - 1]);
    const others = roots.filter((x) => x !== r);
    const backups = others.filter(isBackup);
    const b = chosen ? choice.backup : backups.length === 1 ? backups[0] : undefined;
    // A directory nested in another (a backup kept inside the dropped folder) is not the
    // outer one's files.
    const inside = (path: string, root: string) => path.startsWith(root) && !roots.some((o) => o !== root && o.startsWith(root) && path.startsWith(o));
    const filesOf = (root: string) => dropped.filter((d) => inside(d.path, root)).map((d) => ({ path: d.path.slice(root.length), file: d.file }));
    const archive = dropped
      .filter((d) => !roots.some((root) => d.path.startsWith(root)) && WAL_NAME.test(d.path.slice(d.path.lastIndexOf('/') + 1)))
      .map((d) => ({ path: d.path, file: d.file, wal: true }));
    return {
      root: r,
      files: filesOf(r),
      ...(others.length > 0 ? { others } : {}),
      ...(b !== undefined && others.includes(b) ? { backup: { root: b, files: filesOf(b) } } : {}),
      ...(archive.length > 0 ? { archive } : {}),
    };
  }
  const loose = files.filter((f) => f.rel !== null && ours(f.path)).map((f) => ({ path: f.path, file: f.file }));
  return loose.length > 0 ? { root: '', files: loose } : null;
}

function sameFiles(a: readonly ReportFile[], b: readonly ReportFile[]): boolean {
  return a.length === b.length && a.every((f, i) => f.path === b[i].path && f.file === b[i].file);
}

function sameSource(a: ReportSource | null, b: ReportSource | null): boolean {
  if (a === null || b === null) return a === b;
  return (
    a.root === b.root &&
    a.backup?.root === b.backup?.root &&
    sameFiles(a.archive ?? [], b.archive ?? []) &&
    (a.others ?? []).join('\u0000') === (b.others ?? []).join('\u0000') &&
    sameFiles(a.files, b.files)
  );
}

export function useReport(files: readonly FileEntry[]): {
  source: ReportSource | null;
  report: ReportState;
  choose: (choice: ReportChoice) => void;
} {
  // A drop adds entries (ids only grow); a file's progress changes neither.
  const lastId = files.length > 0 ? files[files.length - 1].id : -1;
  const [choice, choose] = useState<ReportChoice>({});
  const computed = useMemo(() => reportSource(files, choice), [files.length, lastId, choice]);
  // The same files (the playground's snapshots added beside them): the report stands.
  const kept = useRef<ReportSource | null>(null);
  if (!sameSource(kept.current, computed)) kept.current = computed;
  const source = kept.current;
  const [report, setReport] = useState<ReportState>({ state: 'idle' });

  useEffect(() => {
    if (!source) {
      setReport({ state: 'idle' });
      return;
    }
    setReport({ state: 'running', read: 0, total: 0 });
    const worker = workerForJob<ToReport, FromReport>(
      () => new Worker(new URL('./report.worker.ts', import.meta.url), { type: 'module' }),
      (m) => {
        if (m.type === 'progress') setReport({ state: 'running', read: m.read, total: m.total });
      },
      (message) => ({ type: 'error', job: JOB, message }),
    );
    void worker.done.then((m) => {
      if (m.type === 'done') rememberRowHints(source.root, m.rowHints);
      setReport(
        m.type === 'done'
          ? {
              state: 'done',
              report: m.report,
              redacted: m.redacted,
              markdown: m.markdown,
              markdownRedacted: m.markdownRedacted,
              summary: m.summary,
              summaryRedacted: m.summaryRedacted,
              damaged: m.damaged,
              storage: m.storage,
              effects: m.effects,
            }
          : { state: 'error', message: m.message },
      );
    });
    let i = 0;
    let timer = 0;
    const shown = source.root;
    const all: ReportFile[] = [...source.files, ...(source.backup?.files.map((f) => ({ ...f, backup: true })) ?? []), ...(source.archive ?? [])];
    const backup = source.backup?.root;
    const next = () => {
      const start = performance.now();
      for (;;) {
        const part = all.slice(i, i + CHUNK);
        i += CHUNK;
        const last = i >= all.length;
        worker.post({ type: 'files', job: JOB, files: part, last, shown, ...(backup !== undefined ? { backup } : {}) });
        if (last) return;
        if (performance.now() - start > SLICE_MS) break;
      }
      timer = window.setTimeout(next, 0);
    };
    next();
    return () => {
      window.clearTimeout(timer);
      worker.stop();
    };
  }, [source]);

  return { source, report, choose };
}
