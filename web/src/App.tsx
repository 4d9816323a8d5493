// The inspector: load files, verify them in a worker, summarise, map, list problems and
// show one page at a time as an annotated hex dump with decoded panels.
import { memo, startTransition, useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { PageMap } from './components/PageMap';
import { PageView } from './components/PageView';
import { SamplesPicker, useSampleLoader } from './components/Samples';
import { PngButton, ProblemsReport } from './components/Share';
import { Tour, type TourView } from './tour/Tour';
import { folderFilter, mergeByBlock, newEntry, summaryState, type FileEntry } from './files';
import { FORKS, type Fork } from './lib/filename';
import { BLOCK_SIZES, BYTE_ORDER_CHOICES, DETECT, orderName, type ByteOrderChoice, type GeometryChoice } from './lib/geometry';
import { checksumWords } from './lib/messages';
import { addCounts, emptyCounts, STATUS_NAMES, STATUS_WORDS, type StatusCounts } from './lib/status';
import type { FromWorker, ProblemPage } from './worker/protocol';
import { VerifyPool } from './worker/pool';
import { loadWasm } from './wasm';
import { headOf } from './lib/head';
import { PENDING } from './components/PageMap';

type Theme = 'auto' | 'light' | 'dark';
export interface Selection {
  fileId: number;
  block: number;
  offset: number;
}
const PROBLEM_PAGE = 1000;
// A data directory is hundreds of files: a table of them all took 0.5 s to lay out and
// 100-200 ms again at every frame of progress. The totals row counts every file.
const FILE_PAGE = 100;
/** Progress of the files renders at most this often (ms): 4 times a second is steady to the
 * eye, and half the renders of the workers' 100 ms messages. */
const PROGRESS_RENDER_MS = 250;
// One collator: localeCompare with options builds one per call (a data directory sorts ~10,000 pairs).
const byPath = new Intl.Collator(undefined, { numeric: true });

function readHash(): { file: string; block: number; offset: number } | null {
  const h = new URLSearchParams(location.hash.slice(1));
  const file = h.get('file');
  if (!file) return null;
  return { file, block: Number(h.get('block') ?? 0) || 0, offset: Number(h.get('off') ?? 0) || 0 };
}

async function entriesFromDrop(items: DataTransferItemList): Promise<{ file: File; path: string; fromFolder: boolean }[]> {
  const out: { file: File; path: string; fromFolder: boolean }[] = [];
  const walk = async (entry: FileSystemEntry, fromFolder: boolean): Promise<void> => {
    if (entry.isFile) {
      const file = await new Promise<File>((res, rej) => (entry as FileSystemFileEntry).file(res, rej));
      out.push({ file, path: entry.fullPath.replace(/^\//, ''), fromFolder });
    } else if (entry.isDirectory) {
      const reader = (entry as FileSystemDirectoryEntry).createReader();
      for (;;) {
        const batch = await new Promise<FileSystemEntry[]>((res, rej) => reader.readEntries(res, rej));
        if (batch.length === 0) break;
        for (const e of batch) await walk(e, true);
      }
    }
  };
  const roots = Array.from(items)
    .map((i) => i.webkitGetAsEntry?.())
    .filter((e): e is FileSystemEntry => !!e);
  for (const r of roots) await walk(r, false);
  return out;
}

export function App() {
  const [files, setFiles] = useState<FileEntry[]>([]);
  // The next render of the files (when it is due, its timer) and when the last one ran.
  const renderAt = useRef<number | null>(null);
  const renderTimer = useRef<ReturnType<typeof setTimeout> | null>(null);
  const lastRender = useRef(0);
  const [sel, setSel] = useState<Selection | null>(null);
  // What the header's selects chose for all files; each file's row can choose for itself.
  const [allChoice, setAllChoice] = useState<GeometryChoice>(DETECT);
  const [theme, setTheme] = useState<Theme>(() => (localStorage.getItem('pgpage-theme') as Theme) ?? 'auto');
  const [notice, setNotice] = useState<string | null>(null);
  const [shownProblems, setShownProblems] = useState(PROBLEM_PAGE);
  const [shownFiles, setShownFiles] = useState(FILE_PAGE);
  const [dragging, setDragging] = useState(false);
  const [tour, setTour] = useState<{ open: boolean; view: TourView | null }>({ open: false, view: null });
  // Two workers: Chromium serves concurrent File reads faster than one stream, so two files
  // of a data directory verify side by side.
  const pool = useRef<VerifyPool | null>(null);
  const filesRef = useRef<FileEntry[]>([]);
  filesRef.current = files;
  const pendingHash = useRef(readHash());

  useEffect(() => {
    document.documentElement.dataset.theme = theme;
    localStorage.setItem('pgpage-theme', theme);
  }, [theme]);

  const deliver = useCallback((m: FromWorker) => {
    const f = filesRef.current.find((x) => x.id === m.job);
    if (!f) return;
    switch (m.type) {
      case 'start':
        f.state = 'running';
        f.blockSize = m.geometry.blockSize;
        f.bigEndian = m.geometry.bigEndian;
        f.blockSizeAssumed = m.geometry.blockSizeAssumed;
        f.byteOrderDetected = m.geometry.byteOrderDetected;
        f.blocks = m.blocks;
        f.trailingBytes = m.trailingBytes;
        f.trailing = m.trailing;
        f.statuses = new Uint8Array(m.blocks).fill(PENDING);
        f.startedAt = performance.now();
        break;
      case 'progress':
        for (const r of m.runs) f.statuses.set(r.statuses, r.firstBlock);
        f.problems = mergeByBlock(f.problems, m.problems);
        f.bytesDone = m.bytesDone;
        break;
      case 'done':
        f.state = 'done';
        f.counts = m.counts;
        f.checksumsDisabled = m.checksumsDisabled;
        f.elapsedMs = m.elapsedMs;
        break;
      case 'error':
        f.state = 'error';
        f.message = m.message;
        break;
      case 'cancelled':
        f.state = 'cancelled';
        break;
    }
    f.version++;
    // Messages come in bursts (a data directory is hundreds of files): one render for a burst,
    // in a task of its own (in a requestAnimationFrame callback it ran in the frame with the
    // layout and paint, and made tasks of 50-116 ms while a 1 GB file verified). Progress
    // renders at most every PROGRESS_RENDER_MS: the page's rendering shares two cores with
    // the workers and the browser's file reading, and every render repaints the page map.
    const now = performance.now();
    const due = m.type === 'progress' ? Math.max(now, lastRender.current + PROGRESS_RENDER_MS) : now;
    if (renderAt.current !== null && renderAt.current <= due) return;
    if (renderTimer.current !== null) clearTimeout(renderTimer.current);
    renderAt.current = due;
    renderTimer.current = setTimeout(() => {
      renderTimer.current = null;
      renderAt.current = null;
      lastRender.current = performance.now();
      setFiles((prev) => prev.slice());
    }, due - now);
  }, []);

  const ensurePool = useCallback((): VerifyPool => {
    const n = Math.max(1, Math.min(2, navigator.hardwareConcurrency || 1));
    pool.current ??= new VerifyPool(
      Array.from({ length: n }, () => new Worker(new URL('./worker/verify.worker.ts', import.meta.url), { type: 'module' })),
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
      f.counts = emptyCounts();
      f.message = null;
      f.bytesDone = 0;
      f.checksumsDisabled = false;
      ensurePool().verify({ type: 'verify', job: f.id, file: f.file, segment: f.segment, choice: f.choice }, () => f.size);
    },
    [ensurePool],
  );

  const addFiles = useCallback(
    (list: { file: File; path: string; fromFolder: boolean }[]) => {
      const keep = folderFilter(list.filter((x) => x.fromFolder).map((x) => x.path));
      const kept = list.filter((x) => !x.fromFolder || keep(x.path));
      const skipped = list.length - kept.length;
      kept.sort((a, b) => byPath.compare(a.path, b.path));
      const entries = kept.map((x) => newEntry(x.file, x.path, allChoice));
      if (entries.length === 0) {
        setNotice(list.length === 0 ? 'No files were chosen.' : `None of the ${list.length} files is a relation file.`);
        return;
      }
      setNotice(skipped > 0 ? `Skipped ${skipped} files that are not relation files.` : null);
      // A data directory is hundreds of rows: rendered as a transition, React yields every
      // few ms instead of rendering them inside the change event (a 66 ms task).
      startTransition(() => setFiles((prev) => [...prev, ...entries]));
      filesRef.current = [...filesRef.current, ...entries];
      // The first file's head (and so its block 0) is read, and block 0 drawn, before the
      // workers start streaming: the page's first render of a page view (~100 ms of CPU)
      // otherwise shares the two cores with both workers and the browser's reading, and
      // made a 60 ms task.
      void headOf(entries[0])
        .catch(() => undefined)
        .then(afterPaint)
        .then(() => entries.filter((e) => filesRef.current.includes(e)).forEach(start));
      const h = pendingHash.current;
      const again = h ? entries.find((e) => e.name === h.file || e.path === h.file) : undefined;
      if (again && h) {
        pendingHash.current = null;
        setSel({ fileId: again.id, block: h.block, offset: h.offset });
      } else {
        setSel({ fileId: entries[0].id, block: 0, offset: 0 });
      }
    },
    [start, allChoice],
  );

  const loadSamples = useSampleLoader(filesRef, addFiles);
  const showTourView = useCallback((view: TourView) => {
    setTour({ open: true, view });
    setSel({ fileId: view.fileId, block: view.block, offset: view.highlight.start });
  }, []);

  // Verifies files again with other settings: each a new entry (a new id, so late messages
  // of the cancelled run are ignored), the selection following its file.
  const rerun = useCallback(
    (which: (f: FileEntry) => boolean, change: (f: FileEntry) => Partial<FileEntry>) => {
      const fresh = filesRef.current.map((f) => {
        if (!which(f)) return f;
        ensurePool().cancel(f.id);
        return Object.assign(newEntry(f.file, f.path, f.choice), { segment: f.segment, fork: f.fork }, change(f));
      });
      const old = filesRef.current;
      filesRef.current = fresh;
      setFiles(fresh);
      fresh.forEach((f, i) => f !== old[i] && start(f));
      if (sel) {
        const i = old.findIndex((f) => f.id === sel.fileId);
        if (i >= 0 && fresh[i] !== old[i]) setSel({ ...sel, fileId: fresh[i].id });
      }
    },
    [ensurePool, start, sel],
  );
  // One object for every row, the same across renders (rows are memoized); it reaches the
  // latest state through a ref.
  const rowState = useRef({ rerun, ensurePool });
  rowState.current = { rerun, ensurePool };
  const rowActions: RowActions = useMemo(
    () => ({
      select: (f) => setSel({ fileId: f.id, block: 0, offset: 0 }),
      cancel: (f) => rowState.current.ensurePool().cancel(f.id),
      segment: (f, segment) => rowState.current.rerun((x) => x.id === f.id, () => ({ segment })),
      choice: (f, choice) => rowState.current.rerun((x) => x.id === f.id, () => ({ choice })),
      fork: (f, fork) => {
        // The checksum does not depend on the fork, only how pages decode: no re-verify.
        filesRef.current = filesRef.current.map((x) => (x.id === f.id ? { ...x, fork } : x));
        setFiles(filesRef.current);
      },
    }),
    [],
  );
  const chooseForAll = (c: GeometryChoice) => {
    setAllChoice(c);
    rerun(() => true, () => ({ choice: c }));
  };

  // Stable, so the page view (memoized) skips the renders that progress messages cause.
  const setOffset = useCallback((offset: number) => setSel((s) => s && { ...s, offset }), []);
  const setBlock = useCallback((block: number) => setSel((s) => s && { ...s, block, offset: 0 }), []);

  const allProblems = useMemo(() => files.flatMap((f) => (f.checksumsDisabled ? [] : f.problems.map((p) => ({ f, p })))), [files]);

  const selFile = sel ? files.find((f) => f.id === sel.fileId) ?? null : null;

  // URL hash keeps file, block and offset.
  useEffect(() => {
    if (!sel || !selFile) return;
    history.replaceState(null, '', `#file=${encodeURIComponent(selFile.path)}&block=${sel.block}&off=${sel.offset}`);
  }, [sel, selFile]);

  const go = useCallback(
    (delta: number) => {
      if (!sel || !selFile) return;
      const max = Math.max(0, (selFile.blocks || Math.ceil(selFile.size / (selFile.blockSize ?? 8192))) - 1);
      setSel({ ...sel, block: Math.min(max, Math.max(0, sel.block + delta)) });
    },
    [sel, selFile],
  );
  const goProblem = useCallback(
    (dir: 1 | -1) => {
      if (allProblems.length === 0) return;
      const order = (x: { f: FileEntry; p: ProblemPage }) => [files.indexOf(x.f), x.p.block];
      const cur = sel && selFile ? [files.indexOf(selFile), sel.block] : [-1, -1];
      const cmp = (a: number[], b: number[]) => a[0] - b[0] || a[1] - b[1];
      const pick =
        dir === 1
          ? allProblems.find((x) => cmp(order(x), cur) > 0) ?? allProblems[0]
          : [...allProblems].reverse().find((x) => cmp(order(x), cur) < 0) ?? allProblems[allProblems.length - 1];
      setSel({ fileId: pick.f.id, block: pick.p.block, offset: 0 });
    },
    [allProblems, files, sel, selFile],
  );

  // One listener for the page's life, reading the latest state through a ref, so a key
  // pressed between a state change and the next render is never handled with stale state.
  const keyState = useRef({ go, goProblem, sel, selFile });
  keyState.current = { go, goProblem, sel, selFile };
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const { go, goProblem, sel, selFile } = keyState.current;
      const t = e.target as HTMLElement;
      // Typing in a field is not navigation; a focused file picker (after choosing files) is.
      if (t.closest('select, textarea, input:not([type=file])')) return;
      if ((e.ctrlKey || e.metaKey) && e.key.toLowerCase() === 'g') {
        e.preventDefault();
        const v = prompt('Go to block (or 0x offset in the file):');
        if (!v || !sel || !selFile) return;
        const bs = selFile.blockSize ?? 8192;
        if (/^0x/i.test(v.trim())) {
          const off = parseInt(v.trim(), 16);
          if (Number.isFinite(off)) setSel({ ...sel, block: Math.floor(off / bs), offset: off % bs });
        } else if (/^\d+$/.test(v.trim())) {
          setSel({ ...sel, block: Number(v.trim()), offset: 0 });
        }
        return;
      }
      if (e.ctrlKey || e.metaKey || e.altKey) return;
      if (e.key === '[') go(-1);
      else if (e.key === ']') go(1);
      else if (e.key === 'n') goProblem(1);
      else if (e.key === 'N') goProblem(-1);
      else return;
      e.preventDefault();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);

  const state = summaryState(files);
  const total: StatusCounts = emptyCounts();
  for (const f of files) addCounts(total, f.counts);

  const onDrop = async (e: React.DragEvent) => {
    e.preventDefault();
    setDragging(false);
    const list = await entriesFromDrop(e.dataTransfer.items);
    if (list.length === 0) {
      addFiles(Array.from(e.dataTransfer.files).map((file) => ({ file, path: file.name, fromFolder: false })));
    } else addFiles(list);
  };

  return (
    <div
      className={`app${dragging ? ' dragging' : ''}`}
      onDragOver={(e) => {
        e.preventDefault();
        setDragging(true);
      }}
      onDragLeave={() => setDragging(false)}
      onDrop={(e) => void onDrop(e)}
    >
      <header className="top">
        <h1>pgpage</h1>
        <span className="tagline">PostgreSQL page inspector — files stay on this machine</span>
        <label>
          Block size{' '}
          <BlockSizeSelect label="block size of all files" value={allChoice.blockSize} onChange={(blockSize) => chooseForAll({ ...allChoice, blockSize })} />
        </label>
        <label>
          Byte order{' '}
          <ByteOrderSelect label="byte order of all files" value={allChoice.byteOrder} onChange={(byteOrder) => chooseForAll({ ...allChoice, byteOrder })} />
        </label>
        <button type="button" data-testid="tour-start" onClick={() => setTour({ open: true, view: null })}>
          Tour
        </button>
        <button type="button" onClick={() => setTheme(theme === 'auto' ? 'dark' : theme === 'dark' ? 'light' : 'auto')} aria-label="switch theme">
          Theme: {theme}
        </button>
      </header>

      <section className="dropzone" data-testid="dropzone">
        <p>
          Drop relation files (<code>base/16384/16385</code>, <code>16385.2</code>, <code>16385_fsm</code>) or a whole data directory here, or{' '}
          <label className="button">
            choose files
            <input
              type="file"
              multiple
              data-testid="file-input"
              className="visually-hidden"
              onChange={(e) => {
                addFiles(Array.from(e.target.files ?? []).map((file) => ({ file, path: file.name, fromFolder: false })));
                e.target.value = '';
              }}
            />
          </label>{' '}
          <label className="button">
            choose a folder
            <input
              type="file"
              data-testid="folder-input"
              className="visually-hidden"
              // @ts-expect-error webkitdirectory is not in React's typings
              webkitdirectory=""
              onChange={(e) => {
                addFiles(Array.from(e.target.files ?? []).map((file) => ({ file, path: file.webkitRelativePath || file.name, fromFolder: true })));
                e.target.value = '';
              }}
            />
          </label>
        </p>
        <SamplesPicker load={loadSamples} />
        {notice && <p className="notice" role="status">{notice}</p>}
      </section>

      <section className="summary" data-testid="summary" data-state={state} aria-live="polite">
        <h2>Summary</h2>
        {state === 'idle' && <p>No files yet.</p>}
        {files.length > 0 && (
          <table className="files">
            <thead>
              <tr>
                <th>file</th>
                <th>segment</th>
                <th>fork</th>
                <th>block size</th>
                <th>byte order</th>
                <th>blocks</th>
                <th>progress</th>
                {STATUS_NAMES.map((s) => (
                  <th key={s} title={STATUS_WORDS[s]}>
                    {s}
                  </th>
                ))}
                <th />
              </tr>
            </thead>
            <tbody>
              {files.slice(0, shownFiles).map((f) => (
                <FileRow key={f.id} f={f} version={f.version} selected={selFile?.id === f.id} actions={rowActions} />
              ))}
              {files.length > shownFiles && (
                <tr>
                  <td colSpan={14}>
                    <button type="button" data-testid="more-files" onClick={() => setShownFiles(shownFiles + FILE_PAGE)}>
                      Show {Math.min(FILE_PAGE, files.length - shownFiles)} more of {files.length - shownFiles} files
                    </button>{' '}
                    ({files.filter((f) => f.state === 'done').length} of {files.length} verified)
                  </td>
                </tr>
              )}
              {files.length > 1 && (
                <tr className="total">
                  <td colSpan={7}>all {files.length} files</td>
                  {STATUS_NAMES.map((s) => (
                    <td key={s} data-count={s}>
                      {total[s]}
                    </td>
                  ))}
                  <td />
                </tr>
              )}
            </tbody>
          </table>
        )}
        {state === 'done' && (
          <p className="verdict" data-testid="verdict">
            {allProblems.length === 0
              ? `No problem pages in ${files.filter((f) => f.state === 'done').length} verified files.`
              : `${allProblems.length} problem pages: the server would refuse to read them.`}
          </p>
        )}
      </section>

      {selFile && selFile.blocks > 0 && (
        <section className="map">
          <h2>Page map of {selFile.path}</h2>
          {sel && <PngButton entry={selFile} block={sel.block} what="page map" suffix="-map" testid="png-map" />}
          <PageMap
            statuses={selFile.statuses}
            blocks={selFile.blocks}
            version={selFile.bytesDone}
            selected={sel?.block ?? null}
            checksumsDisabled={selFile.checksumsDisabled}
            onPick={(block) => sel && setSel({ ...sel, block, offset: 0 })}
          />
        </section>
      )}

      <section className="problems">
        <h2>Problem pages ({allProblems.length})</h2>
        {selFile && sel && allProblems.length > 0 && (
          <PngButton entry={selFile} block={sel.block} what="problem list" suffix="-problems" testid="png-problems" />
        )}
        {allProblems.length > 0 && <ProblemsReport problems={allProblems} />}
        {allProblems.length > 0 && (
          <table>
            <thead>
              <tr>
                <th>file</th>
                <th>block</th>
                <th>relation block</th>
                <th>status</th>
                <th>stored</th>
                <th>computed</th>
                <th>hint</th>
              </tr>
            </thead>
            <tbody>
              {allProblems.slice(0, shownProblems).map(({ f, p }) => (
                <tr
                  key={`${f.id}:${p.block}`}
                  data-testid="problem"
                  data-file={f.name}
                  data-block={p.block}
                  data-status={p.status}
                  data-stored={p.stored}
                  data-computed={p.computed ?? ''}
                  tabIndex={0}
                  className={sel?.fileId === f.id && sel.block === p.block ? 'current' : undefined}
                  onClick={() => setSel({ fileId: f.id, block: p.block, offset: 0 })}
                  onKeyDown={(e) => e.key === 'Enter' && setSel({ fileId: f.id, block: p.block, offset: 0 })}
                >
                  <td>{f.path}</td>
                  <td>{p.block}</td>
                  <td>{p.absoluteBlock}</td>
                  <td>{STATUS_WORDS[p.status]}</td>
                  <td>{checksumWords(p.stored)}</td>
                  <td>{p.computed === null ? '—' : checksumWords(p.computed)}</td>
                  <td>{p.matchesBlock !== null ? `this page's checksum is valid for block ${p.matchesBlock}` : ''}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
        {allProblems.length > shownProblems && (
          <button type="button" onClick={() => setShownProblems(shownProblems + PROBLEM_PAGE)}>
            Show {Math.min(PROBLEM_PAGE, allProblems.length - shownProblems)} more of {allProblems.length - shownProblems}
          </button>
        )}
      </section>

      {selFile && sel && (
        <PageView
          key={selFile.id}
          entry={selFile}
          block={sel.block}
          offset={sel.offset}
          onOffset={setOffset}
          onBlock={setBlock}
          hold={state === 'running'}
          {...(tour.view && tour.view.fileId === sel.fileId && tour.view.block === sel.block
            ? { highlight: tour.view.highlight, highlightItem: tour.view.item, highlightHeader: tour.view.header }
            : {})}
        />
      )}
      {tour.open && <Tour files={files} loadSamples={loadSamples} show={showTourView} onClose={() => setTour({ open: false, view: null })} />}
      <footer className="keys">
        Keys: <kbd>[</kbd> <kbd>]</kbd> previous/next page, <kbd>n</kbd>/<kbd>N</kbd> next/previous problem, <kbd>Ctrl</kbd>+<kbd>G</kbd> go to block, arrows in the hex view.
      </footer>
    </div>
  );
}

/** Resolves after the next frame is drawn (or after 150 ms, when no frame comes: a hidden tab). */
function afterPaint(): Promise<void> {
  return new Promise((resolve) => {
    const cap = setTimeout(resolve, 150);
    requestAnimationFrame(() =>
      setTimeout(() => {
        clearTimeout(cap);
        resolve();
      }, 0),
    );
  });
}

/** The block size chosen, or 'detect'; `found` is what detection settled on, shown in that option. */
function BlockSizeSelect(p: { label: string; value: number | null; found?: number | null; onChange(v: number | null): void }) {
  return (
    <select
      aria-label={p.label}
      data-testid="block-size"
      data-effective={p.found ?? undefined}
      value={p.value ?? 'auto'}
      onChange={(e) => p.onChange(e.target.value === 'auto' ? null : Number(e.target.value))}
    >
      <option value="auto">{p.found ? `detect: ${p.found / 1024} kB` : 'detect'}</option>
      {BLOCK_SIZES.map((b) => (
        <option key={b} value={b}>
          {b / 1024} kB
        </option>
      ))}
    </select>
  );
}

function ByteOrderSelect(p: { label: string; value: ByteOrderChoice; found?: boolean | null; onChange(v: ByteOrderChoice): void }) {
  const found = p.found === undefined || p.found === null ? null : p.found ? 'big' : 'little';
  return (
    <select aria-label={p.label} data-testid="byte-order" data-effective={found ?? undefined} value={p.value} onChange={(e) => p.onChange(e.target.value as ByteOrderChoice)}>
      {BYTE_ORDER_CHOICES.map((o) => (
        <option key={o} value={o}>
          {o !== 'detect' ? `${o}-endian` : found ? `detect: ${found}` : 'detect'}
        </option>
      ))}
    </select>
  );
}

interface RowActions {
  select(f: FileEntry): void;
  cancel(f: FileEntry): void;
  segment(f: FileEntry, segment: number): void;
  choice(f: FileEntry, c: GeometryChoice): void;
  fork(f: FileEntry, fork: Fork): void;
}

/** A file's row, re-rendered only when its entry's version (or the selection) changes. */
const FileRow = memo(function FileRow(p: { f: FileEntry; version: number; selected: boolean; actions: RowActions }) {
  const { f, actions: a } = p;
  const done = f.state === 'done';
  const total = f.blocks * (f.blockSize ?? 0);
  const frac = total > 0 ? f.bytesDone / total : done ? 1 : 0;
  const secs = (performance.now() - f.startedAt) / 1000;
  const pagesPerSec = done ? (f.blocks / Math.max(f.elapsedMs, 1)) * 1000 : secs > 0 ? f.bytesDone / (f.blockSize ?? 8192) / secs : 0;
  const eta = !done && frac > 0 ? (secs * (1 - frac)) / frac : 0;
  return (
    <>
      <tr className={p.selected ? "current" : undefined} data-testid="file" data-file={f.name} data-state={f.state} data-elapsed-ms={done ? Math.round(f.elapsedMs) : undefined}>
        <td>
          <button type="button" className="link" onClick={() => a.select(f)}>
            {f.path}
          </button>
        </td>
        <td>
          <input
            type="number"
            min={0}
            className="segment"
            aria-label={`segment number of ${f.name}`}
            defaultValue={f.segment}
            onKeyDown={(e) => {
              if (e.key === 'Enter') a.segment(f, Math.max(0, Number((e.target as HTMLInputElement).value) | 0));
            }}
            onBlur={(e) => {
              const v = Math.max(0, Number(e.target.value) | 0);
              if (v !== f.segment) a.segment(f, v);
            }}
          />
        </td>
        <td>
          <select aria-label={`fork of ${f.name}`} data-testid="fork" value={f.fork} onChange={(e) => a.fork(f, e.target.value as Fork)}>
            {FORKS.map((k) => (
              <option key={k} value={k}>
                {k}
              </option>
            ))}
          </select>
        </td>
        <td>
          <BlockSizeSelect label={`block size of ${f.name}`} value={f.choice.blockSize} found={f.blockSize} onChange={(blockSize) => a.choice(f, { ...f.choice, blockSize })} />
        </td>
        <td>
          <ByteOrderSelect label={`byte order of ${f.name}`} value={f.choice.byteOrder} found={f.bigEndian} onChange={(byteOrder) => a.choice(f, { ...f.choice, byteOrder })} />
        </td>
        <td data-testid="blocks">{f.blocks}</td>
        <td>
          <progress max={1} value={frac} aria-label="progress" /> {f.state}
          {f.state === 'running' && pagesPerSec > 0 && ` ${Math.round(pagesPerSec)} pages/s, ${eta.toFixed(1)} s left`}
          {done && ` in ${(f.elapsedMs / 1000).toFixed(2)} s (${Math.round(pagesPerSec)} pages/s)`}
        </td>
        {STATUS_NAMES.map((s) => (
          <td key={s} data-count={s}>
            {f.counts[s]}
          </td>
        ))}
        <td>
          {(f.state === 'running' || f.state === 'queued') && (
            <button type="button" onClick={() => a.cancel(f)}>
              Cancel
            </button>
          )}
        </td>
      </tr>
      {(f.message || f.checksumsDisabled || f.trailingBytes > 0 || !f.rel || f.blockSizeAssumed || f.byteOrderDetected || (done && f.size === 0)) && (
        <tr className="file-messages">
          <td colSpan={14}>
            {f.message && (
              <p className="error" role="alert" data-testid="file-error">
                {f.name}: {f.message}
              </p>
            )}
            {done && f.size === 0 && (
              <p className="note" data-testid="empty-file">
                {f.name}: empty file, no pages to verify (PostgreSQL leaves new and truncated relations empty).
              </p>
            )}
            {f.blockSizeAssumed && (
              <p className="warn" data-testid="assumed-block-size">
                {f.name}: no sane page header at its start in {f.choice.byteOrder === 'detect' ? 'either byte order' : `${orderName(f.choice.byteOrder === 'big')} order`}, so the block size could not be detected: read as 8 kB pages, as pg_checksums does. Choose a block size or a byte order if that is wrong.
              </p>
            )}
            {f.byteOrderDetected && (
              <p className="note" data-testid="byte-order-detected">
                {f.name}: its pages are big-endian (a big-endian server wrote them), detected from their headers; checksums are computed on big-endian words, as that server does.
              </p>
            )}
            {f.checksumsDisabled && (
              <p className="warn" data-testid="checksums-disabled">
                {f.name}: every page stores checksum 0 — data checksums appear to be disabled on this cluster, so its pages cannot be verified.
              </p>
            )}
            {f.trailingBytes > 0 && (
              <p className="warn" data-testid="trailing">
                {f.name}: the size is not a whole number of pages: {f.trailingBytes} trailing bytes past block {f.blocks - 1} (a truncated or torn file):{' '}
                <code>
                  {Array.from(f.trailing?.subarray(0, 32) ?? [])
                    .map((b) => b.toString(16).padStart(2, '0'))
                    .join(' ')}
                  {f.trailingBytes > 32 ? ' …' : ''}
                </code>
              </p>
            )}
            {!f.rel && (
              <p className="warn" data-testid="not-relation-name">
                {f.name}: not a relation file name (like 16385, 16385.2 or 16385_fsm); segment 0 and the main fork are assumed.
              </p>
            )}
          </td>
        </tr>
      )}
    </>
  );
});
