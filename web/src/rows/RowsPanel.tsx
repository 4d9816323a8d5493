// A relation's Rows view: its rows as the server's COPY would print them, read in the rows
// worker (progress as it goes), shown virtualized, exported as CSV or COPY text with a
// salvage summary beside the download. Columns from the catalogs of a dropped data
// directory, else from a type list the user types.
import { useVirtualizer } from '@tanstack/react-virtual';
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import type { FileEntry } from '../files';
import { salvageText, type ColumnInfo, type RowsFormat, type Salvage } from './drive';
import { SHOWN_MAX, type ColumnsFrom, type FromRows, type RowsFile } from './protocol';
import { catalogSource, typesSource } from './source';
import './rows.css';

type State = 'idle' | 'running' | 'done' | 'error';

function newWorker(): Worker {
  return new Worker(new URL('./rows.worker.ts', import.meta.url), { type: 'module' });
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

export function RowsPanel(p: { entry: FileEntry; files: readonly FileEntry[] }) {
  const catalog = useMemo(() => catalogSource(p.entry), [p.entry]);
  const [types, setTypes] = useState('');
  const [state, setState] = useState<State>('idle');
  const [error, setError] = useState<string | null>(null);
  const [title, setTitle] = useState('');
  const [columns, setColumns] = useState<ColumnInfo[]>([]);
  const [salvage, setSalvage] = useState<Salvage | null>(null);
  const [count, setCount] = useState(0);
  const [exporting, setExporting] = useState<RowsFormat | null>(null);
  const [exported, setExported] = useState<{ summaryUrl: string; summary: string; name: string } | null>(null);
  const rows = useRef<(string | null)[][]>([]);
  const workers = useRef<Worker[]>([]);
  const summaryUrl = useRef<string | null>(null);
  const scroller = useRef<HTMLDivElement>(null);

  useEffect(
    () => () => {
      for (const w of workers.current) w.terminate();
      if (summaryUrl.current) URL.revokeObjectURL(summaryUrl.current);
    },
    [],
  );

  const source = useCallback((): { files: RowsFile[]; from: ColumnsFrom } | null => catalog ?? (types.trim() ? typesSource(p.entry, p.files, types.trim()) : null), [catalog, types, p.entry, p.files]);

  const start = () => {
    const s = source();
    if (!s) return;
    for (const w of workers.current) w.terminate();
    const w = newWorker();
    workers.current = [w];
    rows.current = [];
    setCount(0);
    setSalvage(null);
    setError(null);
    setExported(null);
    setState('running');
    w.onmessage = (e: MessageEvent<FromRows>) => {
      const m = e.data;
      if (m.type === 'opened') {
        setTitle(m.title);
        setColumns(m.columns.filter((c) => !c.dropped));
      } else if (m.type === 'rows') {
        for (const r of m.rows) rows.current.push(r);
        setCount(rows.current.length);
        setSalvage(m.salvage);
      } else if (m.type === 'done') {
        setSalvage(m.salvage);
        setState('done');
      } else if (m.type === 'error') {
        setError(m.message);
        setState('error');
      }
    };
    w.postMessage({ type: 'open', job: 1, ...s });
  };

  const doExport = (format: RowsFormat) => {
    const s = source();
    if (!s) return;
    const w = newWorker();
    workers.current.push(w);
    setExporting(format);
    const base = (title || p.entry.name).replace(/[^A-Za-z0-9._-]+/g, '_');
    w.onmessage = (e: MessageEvent<FromRows>) => {
      const m = e.data;
      if (m.type === 'exported') {
        const name = `${base}.${format === 'csv' ? 'csv' : 'copy.txt'}`;
        download(m.blob, name);
        if (summaryUrl.current) URL.revokeObjectURL(summaryUrl.current);
        summaryUrl.current = URL.createObjectURL(new Blob([m.summary], { type: 'text/plain' }));
        setExported({ summaryUrl: summaryUrl.current, summary: m.summary, name: `${base}.salvage.txt` });
        setSalvage(m.salvage);
        setExporting(null);
        w.terminate();
      } else if (m.type === 'error') {
        setError(m.message);
        setExporting(null);
        w.terminate();
      }
    };
    w.postMessage({ type: 'export', job: 2, format, ...s });
  };

  const virtual = useVirtualizer({ count, getScrollElement: () => scroller.current, estimateSize: () => 28, overscan: 10 });
  const grid = { gridTemplateColumns: `repeat(${Math.max(columns.length, 1)}, minmax(8rem, 1fr))` };
  const ready = catalog !== null || types.trim() !== '';

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
        <button type="button" data-testid="rows-open" disabled={!ready || state === 'running'} onClick={start}>
          Show rows
        </button>
        <button type="button" data-testid="rows-export-csv" disabled={!ready || exporting !== null} onClick={() => doExport('csv')}>
          {exporting === 'csv' ? 'Exporting CSV…' : 'Export CSV'}
        </button>
        <button type="button" data-testid="rows-export-text" disabled={!ready || exporting !== null} onClick={() => doExport('text')}>
          {exporting === 'text' ? 'Exporting COPY text…' : 'Export COPY text'}
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
      {salvage && (
        <p className="rows-progress" aria-live="polite" data-testid="rows-progress">
          {salvage.rows.toLocaleString('en-US')} rows from {salvage.pagesRead.toLocaleString('en-US')} of {salvage.pagesTotal.toLocaleString('en-US')} pages
          {salvage.pagesLost.length > 0 && `; ${salvage.pagesLost.length} pages lost`}
          {salvage.rows > count && count >= SHOWN_MAX && `; the first ${SHOWN_MAX.toLocaleString('en-US')} shown, every row exported`}
        </p>
      )}
      {count > 0 && (
        <div className="rows-table" role="table" aria-label={`Rows${title ? ` of ${title}` : ''}`} aria-rowcount={count + 1}>
          <div role="rowgroup">
            <div role="row" className="rows-row rows-head" style={grid}>
              {columns.map((c) => (
                <div role="columnheader" key={c.name} title={c.type}>
                  {c.name} <span className="rows-type">{c.type}</span>
                </div>
              ))}
            </div>
          </div>
          <div ref={scroller} className="rows-scroll" tabIndex={0} role="rowgroup" aria-label="Rows, scrollable">
            <div style={{ height: virtual.getTotalSize(), position: 'relative' }}>
              {virtual.getVirtualItems().map((v) => (
                <div
                  role="row"
                  aria-rowindex={v.index + 2}
                  key={v.key}
                  className="rows-row"
                  data-testid="rows-row"
                  style={{ ...grid, position: 'absolute', top: 0, left: 0, right: 0, transform: `translateY(${v.start}px)`, height: v.size }}
                >
                  {(rows.current[v.index] ?? []).map((t, i) => (
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
        <details className="rows-salvage" open={salvage.pagesLost.length > 0 || salvage.tuples.length > 0}>
          <summary>Salvage summary</summary>
          <pre data-testid="rows-salvage">{exported?.summary ?? salvageText(title, salvage)}</pre>
        </details>
      )}
    </section>
  );
}
