// A relation's Rows view: its rows as the server's COPY would print them, read in the rows
// worker (progress as it goes), shown virtualized, exported as CSV or COPY text with a
// salvage summary beside the download. Columns from the catalogs of a dropped data
// directory, else from a type list the user types. "All versions" shows every tuple
// version led by ctid, xmin, xmax and state, as `pgpage rows --all-versions` prints them.
import { useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState } from 'react';
import type { FileEntry } from '../files';
import { copyTextFields } from './copyText';
import { salvageText, type ColumnInfo, type RowsFormat, type Salvage } from './drive';
import { acquire, discard, listen, release, send, type RowsWorker } from './pool';
import { SHOWN_MAX, type FromRows, type Progress } from './protocol';
import { catalogSource, typesSource, type RelationFiles } from './source';
import { shownReport } from '../report/shown';
import { useDamageState, type KitPage } from '../damage/store';
import { spliceEdits } from '../lab/splice';
import type { ReportJson } from '../core';
import './rows.css';

type State = 'idle' | 'running' | 'done' | 'error';

/** Every row is one line of this height, so the rows in view follow from the scroll
 * position alone: no per-row measurements, whose rebuild for 200,000 rows on every run
 * that arrives cost the page tens of ms. */
const ROW_PX = 28;
const OVERSCAN = 10;

/** Rows as the worker sent them: COPY text lines in UTF-8, `first` the index of the run's first. */
interface Lines {
  first: number;
  bytes: Uint8Array;
  starts: Uint32Array;
}

const decoder = new TextDecoder();

/** Row `i`'s cells, split from its line only when the view draws it. */
function rowAt(runs: readonly Lines[], i: number): (string | null)[] {
  let lo = 0;
  let hi = runs.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (runs[mid].first <= i) lo = mid;
    else hi = mid - 1;
  }
  const run = runs[lo];
  const j = i - (run?.first ?? 0);
  if (!run || j >= run.starts.length) return [];
  const end = j + 1 < run.starts.length ? run.starts[j + 1] - 1 : run.bytes.length - 1;
  return copyTextFields(decoder.decode(run.bytes.subarray(run.starts[j], end)));
}

/** Starts a download of a Blob; its URL is freed once the browser has had time to read it. */
function download(blob: Blob, name: string): void {
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

/** The rows the incident report counts lost on the pages of the relation whose file is `path`
 * (a dropped path, `root` the report's data directory): the core's counts, added up; null
 * when the report names no block of it; `unknown` pages whose count the core does not know. */
export function reportedLost(shown: { root: string; report: ReportJson } | null, path: string): { lost: number; upTo: boolean; unknown: number } | null {
  if (!shown || !path.startsWith(shown.root)) return null;
  // Every segment of the relation: its blocks are named by the file that holds them.
  const file = path.slice(shown.root.length).replace(/\.\d+$/, '');
  const rel = shown.report.relations.find((r) => r.path === file);
  if (!rel) return null;
  let lost = 0;
  let unknown = 0;
  let upTo = false;
  for (const b of rel.blocks) {
    if (!b.rows) continue;
    if (b.rows.lost === null) unknown += 1;
    else lost += b.rows.lost;
    if (b.rows.upper_bound) upTo = true;
  }
  return { lost, upTo, unknown };
}

/** What the pages left out hold, in the incident report's terms: "left out" is this read's
 * doing, "lost" the report's count (a page left out may hold rows that are not lost). */
function leftOutWords(salvage: Salvage | null, left: number, lost: ReturnType<typeof reportedLost>): string {
  const parts: string[] = [];
  if (salvage) {
    const readable = salvage.pagesLost.reduce((n, x) => n + (x.rows ?? 0), 0);
    // Counted only for pages left out that the option would read (a copy of another block it leaves out too).
    if (readable > 0) parts.push(`'Rows of damaged pages' reads ${readable.toLocaleString('en-US')} of them`);
  }
  if (lost === null) parts.push('rows lost: see the incident report once it is in');
  else {
    const n = `${lost.upTo ? 'up to ' : ''}${lost.lost.toLocaleString('en-US')}`;
    parts.push(`${n} rows lost, as the incident report counts${lost.unknown > 0 ? ` (on ${lost.unknown} more pages it cannot count them)` : ''}`);
  }
  return `; ${left} ${left === 1 ? 'page' : 'pages'} left out (their rows: ${parts.join('; ')})`;
}

/** A number per staged kit (a new Map at every change): a worker holds the files it was
 * given, so a read of other staged pages is another worker's. */
const kitIds = new WeakMap<ReadonlyMap<number, KitPage>, number>();
let nextKitId = 1;

/** `files` with the Repair kit's staged pages in place of the file's damaged ones: the rows
 * as they read after the repair. */
function withKit(files: RelationFiles, entry: FileEntry, kit: ReadonlyMap<number, KitPage>): RelationFiles {
  let id = kitIds.get(kit);
  if (id === undefined) {
    id = nextKitId++;
    kitIds.set(kit, id);
  }
  const pages = new Map([...kit].map(([b, k]) => [b, k.page]));
  const repaired = new File([spliceEdits(entry.file, pages, entry.blockSize ?? 8192)], entry.name);
  return { ...files, key: `${files.key}|kit ${id}`, file: (q) => (files.file(q) === entry.file ? repaired : files.file(q)) };
}

export function RowsPanel(p: { entry: FileEntry; files: readonly FileEntry[] }) {
  const report = shownReport.use();
  const kit = useDamageState().kits.get(p.entry.id);
  /** The staged blocks the last read took from the Repair kit. */
  const [staged, setStaged] = useState<number[]>([]);
  const catalog = useMemo(() => catalogSource(p.entry), [p.entry]);
  const [types, setTypes] = useState('');
  const [state, setState] = useState<State>('idle');
  const [error, setError] = useState<string | null>(null);
  const [title, setTitle] = useState('');
  const [columns, setColumns] = useState<ColumnInfo[]>([]);
  const [progress, setProgress] = useState<Progress | null>(null);
  const [salvage, setSalvage] = useState<Salvage | null>(null);
  const [count, setCount] = useState(0);
  const [allVersions, setAllVersions] = useState(false);
  const [includeDamaged, setIncludeDamaged] = useState(false);
  const [header, setHeader] = useState(false);
  const [exporting, setExporting] = useState<{ format: RowsFormat; progress: Progress | null } | null>(null);
  const [exported, setExported] = useState<{ summaryUrl: string; summary: string; name: string } | null>(null);
  const runs = useRef<Lines[]>([]);
  /** The view's read and the exports under way: given up when the panel goes. */
  const busy = useRef(new Set<RowsWorker>());
  const viewing = useRef<RowsWorker | null>(null);
  const summaryUrl = useRef<string | null>(null);
  const scroller = useRef<HTMLDivElement>(null);

  useEffect(
    () => () => {
      for (const w of busy.current) discard(w);
      if (summaryUrl.current) URL.revokeObjectURL(summaryUrl.current);
    },
    [],
  );

  const source = useCallback((): RelationFiles | null => {
    const s = catalog ?? (types.trim() ? typesSource(p.entry, p.files, types.trim()) : null);
    return s && kit && kit.size > 0 ? withKit(s, p.entry, kit) : s;
  }, [catalog, types, p.entry, p.files, kit]);

  /** A worker of the relation for one request; `answer` returns true once it is done. */
  const run = (s: RelationFiles, answer: (m: FromRows) => boolean): RowsWorker => {
    const w = acquire(s.key);
    busy.current.add(w);
    listen(w, (m) => {
      const failed = m.type === 'error';
      if (!answer(m) && !failed) return;
      busy.current.delete(w);
      if (failed) discard(w);
      else release(w);
    });
    return w;
  };

  const start = (versions = allVersions, damaged = includeDamaged) => {
    const s = source();
    if (!s) return;
    if (viewing.current) {
      busy.current.delete(viewing.current);
      discard(viewing.current);
    }
    setStaged(kit ? [...kit.keys()].sort((a, b) => a - b) : []);
    runs.current = [];
    setCount(0);
    setScrollTop(0);
    setProgress(null);
    setSalvage(null);
    setError(null);
    setExported(null);
    setState('running');
    const w = run(s, (m) => {
      if (m.type === 'opened') {
        setTitle(m.title);
        setColumns(m.columns.filter((c) => !c.dropped));
      } else if (m.type === 'rows') {
        if (m.starts.length > 0) {
          const last = runs.current[runs.current.length - 1];
          runs.current.push({ first: last ? last.first + last.starts.length : 0, bytes: m.bytes, starts: m.starts });
          setCount((n) => n + m.starts.length);
        }
        setProgress(m.progress);
      } else if (m.type === 'done') {
        setSalvage(m.salvage);
        setState('done');
      } else if (m.type === 'error') {
        setError(m.message);
        setState('error');
      }
      const over = m.type === 'done' || m.type === 'error';
      if (over) viewing.current = null;
      return over;
    });
    viewing.current = w;
    send(w, { type: 'open', job: 1, from: s.from, allVersions: versions, includeDamaged: damaged }, s);
  };

  const doExport = (format: RowsFormat) => {
    const s = source();
    if (!s) return;
    setExporting({ format, progress: null });
    const base = (title || p.entry.name).replace(/[^A-Za-z0-9._-]+/g, '_') + (allVersions ? '.all-versions' : '');
    const w = run(s, (m) => {
      if (m.type === 'progress') {
        setExporting({ format, progress: m.progress });
        return false;
      }
      if (m.type === 'exported') {
        const name = `${base}.${format === 'csv' ? 'csv' : 'copy.txt'}`;
        download(m.blob, name);
        if (summaryUrl.current) URL.revokeObjectURL(summaryUrl.current);
        summaryUrl.current = URL.createObjectURL(new Blob([m.summary], { type: 'text/plain' }));
        setExported({ summaryUrl: summaryUrl.current, summary: m.summary, name: `${base}.salvage.txt` });
        setSalvage(m.salvage);
        setExporting(null);
        return true;
      }
      if (m.type === 'error') {
        setError(m.message);
        setExporting(null);
        return true;
      }
      return false;
    });
    send(w, { type: 'export', job: 2, from: s.from, format, allVersions, includeDamaged, header }, s);
  };
  const exportLabel = (format: RowsFormat, what: string) => {
    if (exporting?.format !== format) return `Export ${what}`;
    const pr = exporting.progress;
    return pr && pr.pagesTotal > 0 ? `Exporting ${what}… ${Math.floor((100 * pr.pagesRead) / pr.pagesTotal)}%` : `Exporting ${what}…`;
  };

  const [scrollTop, setScrollTop] = useState(0);
  const [viewHeight, setViewHeight] = useState(0);
  const hasRows = count > 0;
  // The height from the observer (its first call comes once the scroller is laid out), not
  // read in the effect: reading clientHeight there forced a layout of the whole document,
  // the longest task of the first rows (a Chromium trace of the 10,000-relation bench).
  useLayoutEffect(() => {
    const el = scroller.current;
    if (!el) return;
    const ro = new ResizeObserver((entries) => setViewHeight(entries[entries.length - 1]?.contentRect.height ?? 0));
    ro.observe(el);
    return () => ro.disconnect();
  }, [hasRows]);
  const firstInView = Math.max(0, Math.floor(scrollTop / ROW_PX) - OVERSCAN);
  const endInView = Math.min(count, Math.ceil((scrollTop + viewHeight) / ROW_PX) + OVERSCAN);
  const inView = Array.from({ length: Math.max(0, endInView - firstInView) }, (_, k) => firstInView + k);
  // One set of fixed column widths for the header and every row: a row's own content (a
  // NULL, a long value) never moves a column, and a long value is cut with an ellipsis.
  // Types whose values run long (text, arrays, documents) get room for a phrase.
  const long = (type: string) => /text|char|json|bytea|\[\]|xml|range/.test(type);
  const widths = columns.map((c) => Math.min(40, Math.max(long(c.type) ? 24 : 12, c.name.length + 2, c.type.length + 2)));
  const totalCh = widths.reduce((a, b) => a + b, 0);
  const grid = { gridTemplateColumns: widths.map((w) => `${w}ch`).join(' ') || '1fr', width: `${totalCh}ch` };
  const ready = catalog !== null || types.trim() !== '';
  const shownProgress: Progress | null = salvage
    ? { rows: salvage.rows, pagesRead: salvage.pagesRead, pagesGiven: salvage.pagesGiven, pagesTotal: salvage.pagesTotal, pagesLost: salvage.pagesLost.length }
    : progress;

  return (
    <section className="rows-view" data-testid="rows-view" data-state={state} data-rows={count} aria-labelledby="rows-heading">
      <h2 id="rows-heading">Rows{title ? ` of ${title}` : ''}</h2>
      {catalog ? (
        <p>Columns, visibility (pg_xact) and TOAST from the data directory's catalogs.</p>
      ) : (
        <label className="rows-types">
          Column types, in order (as <code>pg_filedump -D</code> takes them)
          <input
            type="text"
            data-testid="rows-types"
            value={types}
            placeholder="int4,text,timestamptz"
            spellCheck={false}
            onChange={(e) => setTypes(e.target.value)}
          />
        </label>
      )}
      <div className="rows-actions">
        <button type="button" data-testid="rows-open" disabled={!ready || state === 'running'} onClick={() => start()}>
          Show rows
        </button>
        <label className="rows-versions" title="Dead, aborted and updated-away tuple versions too, each led by ctid, xmin, xmax and its state">
          <input
            type="checkbox"
            data-testid="rows-all-versions"
            checked={allVersions}
            onChange={(e) => {
              setAllVersions(e.target.checked);
              if (state !== 'idle') start(e.target.checked);
            }}
          />
          All versions
        </label>
        <label
          className="rows-versions"
          title="Also the rows of pages whose checksum fails but whose header and structure are sound, as SET ignore_checksum_failure = on lets the server read them; the salvage summary lists them by ctid"
        >
          <input
            type="checkbox"
            data-testid="rows-include-damaged"
            checked={includeDamaged}
            onChange={(e) => {
              setIncludeDamaged(e.target.checked);
              if (state !== 'idle') start(allVersions, e.target.checked);
            }}
          />
          Rows of damaged pages
        </label>
        <label className="rows-versions" title="A first line with the column names, as COPY's HEADER option prints it">
          <input type="checkbox" data-testid="rows-header" checked={header} onChange={(e) => setHeader(e.target.checked)} />
          Header line
        </label>
        <button type="button" data-testid="rows-export-csv" disabled={!ready || exporting !== null} onClick={() => doExport('csv')}>
          {exportLabel('csv', 'CSV')}
        </button>
        <button type="button" data-testid="rows-export-text" disabled={!ready || exporting !== null} onClick={() => doExport('text')}>
          {exportLabel('text', 'COPY text')}
        </button>
        {exported && (
          <a href={exported.summaryUrl} download={exported.name} data-testid="rows-summary-link">
            Salvage summary
          </a>
        )}
      </div>
      {error && (
        <p className="rows-error" role="alert" data-testid="rows-error">
          {error}
        </p>
      )}
      {shownProgress && (
        <p className="rows-progress" aria-live="polite" data-testid="rows-progress">
          {shownProgress.rows.toLocaleString('en-US')} rows from {shownProgress.pagesGiven.toLocaleString('en-US')} of{' '}
          {shownProgress.pagesTotal.toLocaleString('en-US')} pages
          {shownProgress.pagesLost > 0 && leftOutWords(salvage, shownProgress.pagesLost, reportedLost(report, p.entry.path))}
          {staged.length > 0 &&
            `; ${staged.length === 1 ? 'block' : 'blocks'} ${staged.join(', ')} of ${p.entry.name} read as staged in the Repair kit, not as on disk`}
          {shownProgress.rows > count && count >= SHOWN_MAX && `; the first ${SHOWN_MAX.toLocaleString('en-US')} shown, every row exported`}
        </p>
      )}
      {count > 0 && (
        <div className="rows-table" role="table" aria-label={`Rows${title ? ` of ${title}` : ''}`} aria-rowcount={count + 1}>
          <div role="rowgroup">
            <div role="row" className="rows-row rows-head" style={grid}>
              {columns.map((c) => (
                <div role="columnheader" key={c.name} title={`${c.name} ${c.type}`}>
                  <span className="rows-name">{c.name}</span>
                  <span className="rows-type">{c.type}</span>
                </div>
              ))}
            </div>
          </div>
          <div
            ref={scroller}
            className="rows-scroll"
            style={{ width: grid.width }}
            tabIndex={0}
            role="rowgroup"
            aria-label="Rows, scrollable"
            onScroll={(e) => setScrollTop(e.currentTarget.scrollTop)}
          >
            <div style={{ height: count * ROW_PX, position: 'relative' }}>
              {inView.map((index) => (
                <div
                  role="row"
                  aria-rowindex={index + 2}
                  key={index}
                  className="rows-row"
                  data-testid="rows-row"
                  style={{ ...grid, position: 'absolute', top: 0, left: 0, transform: `translateY(${index * ROW_PX}px)`, height: ROW_PX }}
                >
                  {rowAt(runs.current, index).map((t, i) => (
                    <div role="cell" key={i} className={t === null ? 'rows-null' : undefined}>
                      {t ?? 'NULL'}
                    </div>
                  ))}
                </div>
              ))}
            </div>
          </div>
        </div>
      )}
      {state === 'done' && salvage && (
        <details className="rows-salvage" open={salvage.pagesLost.length > 0 || salvage.pagesDamaged.length > 0 || salvage.tuples.length > 0}>
          <summary>Salvage summary</summary>
          <pre data-testid="rows-salvage">{exported?.summary ?? salvageText(title, salvage)}</pre>
        </details>
      )}
    </section>
  );
}
