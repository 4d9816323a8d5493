// The files store: the loaded files, their verification by the worker pool, and the choices
// that verify them again. Everything else on the page reads files from here and changes them
// only through its actions.
import { rememberDropped } from '../rows/dropped';
import { useCallback, useEffect, useMemo, useRef, useState, type RefObject } from 'react';
import { PENDING } from '../pageview/PageMap';
import { mapsOf, namesOf, newEntry, structureFor, type FileEntry, type Fork } from '../files';
import { DETECT, type GeometryChoice } from '../lib/geometry';
import { headOf } from '../lib/head';
import { emptyCounts } from '../lib/status';
import { loadWasm } from '../core';
import { VerifyPool } from '../worker/pool';
import type { FromWorker } from '../worker/protocol';
import { checksumsFor, readControls, versionFor, type ClusterControl } from './control';
import { nameEntries, readCatalog, type ClusterCatalog } from './catalog';
import { afterDrawn, drawnCount } from '../lib/drawn';

/** A file as the pickers and drops hand it over. */
export interface ChosenFile {
  file: File;
  /** Relative path when a folder was chosen or dropped, else the name. */
  path: string;
  fromFolder: boolean;
  /** The same relation file as loaded before (the playground's previous snapshot), and the
   * blocks that differ from it: the new entry shows that file's geometry and, for the other
   * blocks, its statuses (same bytes, same status) until its own verification reaches them. */
  earlier?: { entry: FileEntry; changedBlocks: readonly number[] };
}

/** The store's actions: stable across renders, so memoized rows can take them. */
export interface FilesActions {
  /** Adds files and starts verifying them; returns the new entries (in path order) and what
   * to tell the user (skipped files, nothing usable), with the paths of the files skipped. A
   * data directory's pg_control (or one dropped beside the files) is decoded, and says whether
   * its files have checksums. */
  add(list: ChosenFile[]): Promise<{ added: FileEntry[]; notice: string | null; skipped: string[] }>;
  cancel(f: FileEntry): void;
  segment(f: FileEntry, segment: number): void;
  choice(f: FileEntry, c: GeometryChoice): void;
  fork(f: FileEntry, fork: Fork): void;
  /** Chooses the geometry of every file, loaded and to come. */
  chooseForAll(c: GeometryChoice): void;
  /** Runs amcheck's per-page checks on the files to come (on: also on those verified
   * without them). */
  amcheck(on: boolean): void;
}

export interface FilesStore {
  files: FileEntry[];
  /** The latest files, for callbacks that run between a change and its render. */
  filesRef: RefObject<FileEntry[]>;
  allChoice: GeometryChoice;
  /** amcheck's per-page checks are on (about 15 us of worker time a page). */
  amcheck: boolean;
  /** The pg_control files of the drops so far. */
  controls: ClusterControl[];
  /** The catalogs of the data directories dropped so far, as they are read. */
  catalogs: ClusterCatalog[];
  actions: FilesActions;
}

/** Progress of the files renders at most this often (ms): 4 times a second is steady to the
 * eye, and half the renders of the workers' 100 ms messages. */
const PROGRESS_RENDER_MS = 250;
/** The longest the workers wait for the page view to draw the page a drop or a statement opened. */
const DRAW_WAIT_MS = 300;
/** Where the amcheck switch is kept between visits. */
const AMCHECK_KEY = 'pgpage-amcheck';
// One collator: localeCompare with options builds one per call, and a data directory sorts
// thousands of pairs.
const byPath = new Intl.Collator(undefined, { numeric: true });

/**
 * @param onReplace called when verifying again replaces an entry by a fresh one (a new id, so
 *   late messages of the cancelled run are ignored): whatever refers to the old id follows.
 */
export function useFiles(onReplace: (old: FileEntry, fresh: FileEntry) => void): FilesStore {
  const [files, setFiles] = useState<FileEntry[]>([]);
  const filesRef = useRef<FileEntry[]>([]);
  filesRef.current = files;
  const [allChoice, setAllChoice] = useState<GeometryChoice>(DETECT);
  const [controls, setControls] = useState<ClusterControl[]>([]);
  const [catalogs, setCatalogs] = useState<ClusterCatalog[]>([]);
  const [amcheck, setAmcheck] = useState(() => localStorage.getItem(AMCHECK_KEY) !== 'off');
  const amcheckRef = useRef(amcheck);
  amcheckRef.current = amcheck;
  const allChoiceRef = useRef(allChoice);
  const controlsRef = useRef<ClusterControl[]>([]);
  allChoiceRef.current = allChoice;
  const onReplaceRef = useRef(onReplace);
  onReplaceRef.current = onReplace;
  // The next render of the files (when it is due, its timer) and when the last one ran.
  const renderAt = useRef<number | null>(null);
  const renderTimer = useRef<ReturnType<typeof setTimeout> | null>(null);
  const lastRender = useRef(0);
  const pool = useRef<VerifyPool | null>(null);

  const deliver = useCallback((m: FromWorker) => {
    const f = filesRef.current.find((x) => x.id === m.job);
    if (!f) return;
    applyMessage(f, m);
    // The verdict is in: a new object, so what shows one of its pages (memoized) reads it again.
    if (m.type === 'done') filesRef.current = filesRef.current.map((x) => (x === f ? { ...f } : x));
    // A data directory's messages come in bursts: one render for a burst, in a task of its
    // own rather than in an animation frame, where it would lengthen the frame's layout and
    // paint. Progress renders less often still: rendering shares the two cores with the
    // workers and the browser's file reading, and every render repaints the page map.
    const now = performance.now();
    const due = m.type === 'progress' ? Math.max(now, lastRender.current + PROGRESS_RENDER_MS) : now;
    if (renderAt.current !== null && renderAt.current <= due) return;
    if (renderTimer.current !== null) clearTimeout(renderTimer.current);
    renderAt.current = due;
    renderTimer.current = setTimeout(() => {
      renderTimer.current = null;
      renderAt.current = null;
      lastRender.current = performance.now();
      setFiles(filesRef.current.slice());
    }, due - now);
  }, []);
  useEffect(
    () => () => {
      if (renderTimer.current !== null) clearTimeout(renderTimer.current);
    },
    [],
  );

  const ensurePool = useCallback((): VerifyPool => {
    // Two workers: Chromium serves concurrent File reads faster than one stream, so two files
    // of a data directory verify side by side.
    const n = Math.max(1, Math.min(2, navigator.hardwareConcurrency || 1));
    pool.current ??= new VerifyPool(
      Array.from({ length: n }, () => new Worker(new URL('../worker/verify.worker.ts', import.meta.url), { type: 'module' })),
      deliver,
    );
    return pool.current;
  }, [deliver]);

  // While the page waits for files, load the wasm module here and start the workers (each
  // loads its own): the first drop then costs a page read and a render, not compilation.
  useEffect(() => {
    const warm = () => {
      void loadWasm();
      ensurePool();
    };
    if ('requestIdleCallback' in window) {
      const h = requestIdleCallback(warm, { timeout: 1000 });
      return () => cancelIdleCallback(h);
    }
    const h = setTimeout(warm, 200);
    return () => clearTimeout(h);
  }, [ensurePool]);

  const start = useCallback(
    (f: FileEntry) => {
      f.version++;
      f.state = 'queued';
      f.problems = [];
      f.findings = [];
      f.pageFindings = [];
      f.structure = null;
      f.amcheckUnlisted = 0;
      f.chance = null;
      f.problem = false;
      f.counts = emptyCounts();
      f.message = null;
      f.bytesDone = 0;
      f.checksumsDisabled = false;
      f.checksumsInProgress = false;
      f.checksumCounts = null;
      // The core names the file in its messages as the server would: base/5/16385.2.
      const path = f.relDir ? `${f.relDir}/${f.name}` : f.name;
      const maps = mapsOf(f, filesRef.current);
      // The structural checks' hints are taken when the file is handed over: a data
      // directory's catalogs may come while its first files verify.
      const late = () => {
        const structure = amcheckRef.current ? structureFor(f) : undefined;
        f.structure = structure ?? null;
        return structure ? { structure } : {};
      };
      ensurePool().verify(
        { type: 'verify', job: f.id, file: f.file, path, segment: f.segment, checksums: f.checksums, choice: f.choice, ...(maps ? { maps } : {}) },
        () => f.size,
        late,
      );
    },
    [ensurePool],
  );

  const replace = useCallback((fresh: FileEntry[]) => {
    filesRef.current = fresh;
    setFiles(fresh);
  }, []);

  // Verifies files again with other settings, each as a fresh entry.
  const rerun = useCallback(
    (which: (f: FileEntry) => boolean, change: (f: FileEntry) => Partial<FileEntry>) => {
      const old = filesRef.current;
      const fresh = old.map((f) => {
        if (!which(f)) return f;
        ensurePool().cancel(f.id);
        return Object.assign(
          newEntry(f.file, f.path, f.choice, f, f.checksums, f.pgVersion),
          { segment: f.segment, fork: f.fork, naming: f.naming },
          change(f),
        );
      });
      replace(fresh);
      fresh.forEach((f, i) => {
        if (f === old[i]) return;
        start(f);
        onReplaceRef.current(old[i], f);
      });
    },
    [ensurePool, start, replace],
  );

  const actions: FilesActions = useMemo(
    () => ({
      async add(list) {
        const w = await loadWasm();
        rememberDropped(list);
        const fresh = await readControls(w, list);
        const known = [...controlsRef.current, ...fresh];
        if (fresh.length > 0) {
          controlsRef.current = known;
          setControls(known);
        }
        // A data directory's catalogs are read in a worker beside the verifying: its files
        // are named when they come.
        for (const c of fresh.filter((x) => x.control && x.path === `${x.root}global/pg_control`)) {
          const reading: ClusterCatalog = { root: c.root, state: 'reading', relations: [], damage: [], error: null };
          setCatalogs((cs) => [...cs, reading]);
          void readCatalog(c.root, list).then(({ catalog, names }) => {
            // The workers have the hints before any file that names them is handed over.
            if (catalog.hints) ensurePool().hints(catalog.hints.set, catalog.hints.bytes);
            // Files handed over before the catalogs came had their pages' own checks only:
            // they are verified again with their relation's hints.
            const early = new Set(filesRef.current.filter((f) => f.structure?.set === null && names.get(f.path)?.relation).map((f) => f.id));
            catalog.again = early.size;
            setCatalogs((cs) => cs.map((x) => (x === reading ? catalog : x)));
            if (nameEntries(filesRef.current, names)) replace(filesRef.current.slice());
            if (early.size > 0)
              rerun(
                (f) => early.has(f.id),
                () => ({}),
              );
          });
        }
        const folder = list.filter((x) => x.fromFolder);
        const keep = w.folder_filter(folder.map((x) => x.path));
        const skip = new Set(folder.filter((_, i) => keep[i] === 0));
        // A pg_control or PG_VERSION dropped loose was read above, not a relation file.
        const isControl = (x: ChosenFile) => x.path.endsWith('pg_control') || x.path.endsWith('PG_VERSION');
        const kept = list.filter((x) => !skip.has(x) && !(fresh.length > 0 && isControl(x)));
        if (kept.length === 0) {
          // A control file alone is what was asked for: its panel says the rest.
          if (fresh.some((c) => c.control)) return { added: [], notice: null, skipped: [] };
          return {
            added: [],
            skipped: list.map((x) => x.path),
            notice:
              list.length === 0
                ? 'No files were chosen.'
                : list.length === 1
                  ? 'The file chosen is not a relation file.'
                  : `None of the ${list.length} files is a relation file.`,
          };
        }
        const keptSet = new Set(kept);
        const skippedPaths = list.filter((x) => !keptSet.has(x)).map((x) => x.path);
        const skipped = skippedPaths.length;
        kept.sort((a, b) => byPath.compare(a.path, b.path));
        const added = kept.map((x) => {
          const e = newEntry(x.file, x.path, allChoiceRef.current, namesOf(w, x.path), checksumsFor(known, x.path), versionFor(known, x.path));
          if (x.earlier) fromEarlier(e, x.earlier.entry, x.earlier.changedBlocks);
          return e;
        });
        replace([...filesRef.current, ...added]);
        // The first file's head is read, and the page view drawn, before the workers start
        // streaming: the page view's first render would otherwise share the two cores with
        // both workers and the browser's reading.
        const seen = drawnCount();
        void headOf(added[0])
          .catch(() => undefined)
          .then(() => afterDrawn(seen, DRAW_WAIT_MS))
          .then(() => added.filter((e) => filesRef.current.includes(e)).forEach(start));
        return {
          added,
          notice: skipped === 1 ? 'Skipped 1 file that is not a relation file.' : skipped > 0 ? `Skipped ${skipped} files that are not relation files.` : null,
          skipped: skippedPaths,
        };
      },
      cancel: (f) => ensurePool().cancel(f.id),
      segment: (f, segment) =>
        rerun(
          (x) => x.id === f.id,
          () => ({ segment }),
        ),
      choice: (f, choice) =>
        rerun(
          (x) => x.id === f.id,
          () => ({ choice }),
        ),
      // The checksum does not depend on the fork, only how pages decode: no verifying again.
      fork: (f, fork) => replace(filesRef.current.map((x) => (x.id === f.id ? { ...x, fork } : x))),
      chooseForAll(c) {
        setAllChoice(c);
        allChoiceRef.current = c;
        rerun(
          () => true,
          () => ({ choice: c }),
        );
      },
      amcheck(on) {
        setAmcheck(on);
        amcheckRef.current = on;
        localStorage.setItem(AMCHECK_KEY, on ? 'on' : 'off');
        if (on)
          rerun(
            (f) => f.structure === null && structureFor(f) !== undefined,
            () => ({}),
          );
      },
    }),
    [ensurePool, rerun, replace, start],
  );

  return { files, filesRef, allChoice, amcheck, controls, catalogs, actions };
}

/** A worker's news, written into its file's entry (whose version then changes, so its row renders). */
function applyMessage(f: FileEntry, m: FromWorker): void {
  switch (m.type) {
    case 'start': {
      f.state = 'running';
      // Statuses taken from an earlier copy of the file (fromEarlier) stay until the
      // verification's own come.
      const earlier = f.statuses.length === m.blocks && f.blockSize === m.geometry.blockSize && f.bigEndian === m.geometry.bigEndian;
      f.blockSize = m.geometry.blockSize;
      f.bigEndian = m.geometry.bigEndian;
      f.blockSizeAssumed = m.geometry.blockSizeAssumed;
      f.byteOrderDetected = m.geometry.byteOrderDetected;
      f.blocks = m.blocks;
      f.trailingBytes = m.trailingBytes;
      f.trailing = m.trailing;
      if (!earlier) f.statuses = new Uint8Array(m.blocks).fill(PENDING);
      f.startedAt = performance.now();
      break;
    }
    case 'progress':
      for (const r of m.runs) f.statuses.set(r.statuses, r.firstBlock);
      f.bytesDone = m.bytesDone;
      break;
    case 'done': {
      f.state = 'done';
      f.elapsedMs = m.elapsedMs;
      const r = m.result;
      if (!r) break;
      f.counts = r.counts;
      f.checksumsDisabled = r.checksumsDisabled;
      f.checksumsInProgress = r.checksumsInProgress;
      f.checksumCounts = r.checksumCounts;
      f.problems = r.pages;
      f.findings = r.findings;
      // amcheck's messages quote the relation's name (`index "%s"`): the catalogs', else the file's.
      const quoted = f.naming?.relation?.name ?? f.path.replace(/\.\d+$/, '');
      f.pageFindings = r.pageFindings.map((x) => (x.amcheck ? { ...x, message: x.message.replace('%s', quoted) } : x));
      f.amcheckUnlisted = r.amcheckUnlisted;
      f.chance = r.chance;
      f.problem = r.problem;
      // The page map shows the verdict: with checksums off a mismatch is no problem, and
      // the pages the verdict lists have its status.
      for (const [from, to] of r.remap) f.statuses = f.statuses.map((c) => (c === from ? to : c));
      for (const p of r.pages) f.statuses[p.block] = p.code;
      break;
    }
    case 'error':
      f.state = 'error';
      f.message = m.message;
      break;
    case 'cancelled':
      f.state = 'cancelled';
      break;
  }
  f.version++;
}

/** Gives `e` the lineage of `earlier` (the same file before a change of `changed` blocks),
 * its geometry and its statuses for the blocks that did not change: the page map draws at once. */
function fromEarlier(e: FileEntry, earlier: FileEntry, changed: readonly number[]): void {
  e.lineage = earlier.lineage;
  if (earlier.blockSize === null || earlier.bigEndian === null || earlier.state !== 'done' || earlier.choice !== e.choice) return;
  const blocks = Math.floor(e.size / earlier.blockSize);
  e.blockSize = earlier.blockSize;
  e.bigEndian = earlier.bigEndian;
  e.blockSizeAssumed = earlier.blockSizeAssumed;
  e.byteOrderDetected = earlier.byteOrderDetected;
  e.blocks = blocks;
  e.statuses = new Uint8Array(blocks).fill(PENDING);
  e.statuses.set(earlier.statuses.subarray(0, Math.min(blocks, earlier.statuses.length)));
  for (const b of changed) if (b < blocks) e.statuses[b] = PENDING;
}
