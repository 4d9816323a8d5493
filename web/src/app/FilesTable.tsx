// The files table: one row per loaded file with its choices (segment, fork, block size, byte
// order), progress and counts, its messages beneath, and a totals row. Only the rows in view
// are rendered: a data directory is hundreds of files, each re-rendering as it verifies.
import { memo, useEffect, useRef, useState } from 'react';
import { useVirtualizer } from '@tanstack/react-virtual';
import { FORKS, type FileEntry, type Fork } from '../files';
import { loadWasm } from '../wasm';
import { BYTE_ORDER_CHOICES, orderName, type ByteOrderChoice } from '../lib/geometry';
import { addCounts, emptyCounts, STATUS_NAMES, STATUS_WORDS } from '../lib/status';
import type { FilesActions } from './useFiles';
import './lists.css';

/** Estimated height of a file's rows before they are measured (px); measuring corrects it. */
const ROW_ESTIMATE = 30;
/** Rows rendered beyond each edge of the box, so scrolling shows rows before they are measured. */
const OVERSCAN = 10;
const COLUMNS = 7 + STATUS_NAMES.length + 1;

type RowActions = Pick<FilesActions, 'cancel' | 'segment' | 'choice' | 'fork'> & { select(f: FileEntry): void };

export function FilesTable(p: { files: readonly FileEntry[]; selectedId: number | null; actions: RowActions }) {
  const box = useRef<HTMLDivElement>(null);
  const v = useVirtualizer({
    count: p.files.length,
    getScrollElement: () => box.current,
    estimateSize: () => ROW_ESTIMATE,
    getItemKey: (i) => p.files[i].id,
    overscan: OVERSCAN,
  });
  const items = v.getVirtualItems();
  const before = items.length > 0 ? items[0].start : 0;
  const after = items.length > 0 ? v.getTotalSize() - items[items.length - 1].end : 0;
  const total = emptyCounts();
  for (const f of p.files) addCounts(total, f.counts);
  const waiting = p.files.filter((f) => f.state === 'queued' || f.state === 'running').length;
  return (
    <div className="list-scroll" ref={box} data-testid="files-scroll">
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
        {before > 0 && <Spacer height={before} />}
        {items.map((it) => {
          const f = p.files[it.index];
          return <FileRows key={f.id} f={f} version={f.version} index={it.index} measure={v.measureElement} selected={p.selectedId === f.id} actions={p.actions} />;
        })}
        {after > 0 && <Spacer height={after} />}
        {p.files.length > 1 && (
          <tfoot>
            <tr className="total">
              <td colSpan={7}>
                all {p.files.length} files{waiting > 0 && `, ${waiting} still verifying`}
              </td>
              {STATUS_NAMES.map((s) => (
                <td key={s} data-count={s}>
                  {total[s]}
                </td>
              ))}
              <td />
            </tr>
          </tfoot>
        )}
      </table>
    </div>
  );
}

/** The height of the rows not rendered, so the box scrolls as if they were there. */
function Spacer(p: { height: number }) {
  return (
    <tbody aria-hidden="true">
      <tr className="spacer" style={{ height: p.height }}>
        <td colSpan={COLUMNS} />
      </tr>
    </tbody>
  );
}

/** A file's row and its messages, re-rendered only when its entry's version (or the selection) changes. */
const FileRows = memo(function FileRows(p: {
  f: FileEntry;
  version: number;
  index: number;
  measure(el: Element | null): void;
  selected: boolean;
  actions: RowActions;
}) {
  const { f, actions: a } = p;
  const done = f.state === 'done';
  const total = f.blocks * (f.blockSize ?? 0);
  const frac = total > 0 ? f.bytesDone / total : done ? 1 : 0;
  const secs = (performance.now() - f.startedAt) / 1000;
  const pagesPerSec = done ? (f.blocks / Math.max(f.elapsedMs, 1)) * 1000 : secs > 0 ? f.bytesDone / (f.blockSize ?? 8192) / secs : 0;
  const eta = !done && frac > 0 ? (secs * (1 - frac)) / frac : 0;
  return (
    <tbody ref={p.measure} data-index={p.index}>
      <tr className={p.selected ? 'current' : undefined} data-testid="file" data-file={f.name} data-state={f.state} data-elapsed-ms={done ? Math.round(f.elapsedMs) : undefined}>
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
      <FileMessages f={f} />
    </tbody>
  );
});

function FileMessages({ f }: { f: FileEntry }) {
  const done = f.state === 'done';
  if (!(f.message || f.checksumsDisabled || f.trailingBytes > 0 || !f.rel || f.blockSizeAssumed || f.byteOrderDetected || (done && f.size === 0))) return null;
  const short = f.findings.find((x) => x.block !== undefined);
  return (
    <tr className="file-messages">
      <td colSpan={COLUMNS}>
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
            {f.name}: no sane page header at its start in {f.choice.byteOrder === 'detect' ? 'either byte order' : `${orderName(f.choice.byteOrder === 'big')} order`}, so the block size could not be
            detected: read as 8 kB pages, as pg_checksums does. Choose a block size or a byte order if that is wrong.
          </p>
        )}
        {f.byteOrderDetected && (
          <p className="note" data-testid="byte-order-detected">
            {f.name}: its pages are big-endian (a big-endian server wrote them), detected from their headers; checksums are computed on big-endian words, as that server does.
          </p>
        )}
        {f.checksumsDisabled && (
          <p className="warn" data-testid="checksums-disabled">
            {f.name}:{' '}
            {f.checksums === 2
              ? 'checksums are off in this cluster (pg_control)'
              : 'every page stores checksum 0 — data checksums appear to be disabled on this cluster'}
            : pages are verified by their headers only, as the server reads them.
          </p>
        )}
        {f.trailingBytes > 0 && (
          <p className="warn" data-testid="trailing">
            {short ? `${f.name}: ${short.message}` : `${f.name}: ${f.trailingBytes} bytes past the last whole page`} (a truncated or torn file):{' '}
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
  );
}

/** The block size chosen, or 'detect'; `found` is what detection settled on, shown in that option. */
export function BlockSizeSelect(p: { label: string; value: number | null; found?: number | null; onChange(v: number | null): void }) {
  const sizes = useBlockSizes();
  return (
    <select
      aria-label={p.label}
      data-testid="block-size"
      data-effective={p.found ?? undefined}
      value={p.value ?? 'auto'}
      onChange={(e) => p.onChange(e.target.value === 'auto' ? null : Number(e.target.value))}
    >
      <option value="auto">{p.found ? `detect: ${p.found / 1024} kB` : 'detect'}</option>
      {sizes.map((b) => (
        <option key={b} value={b}>
          {b / 1024} kB
        </option>
      ))}
    </select>
  );
}

// The block sizes PostgreSQL can be built with, as the core lists them (once loaded).
let blockSizes: number[] = [];
function useBlockSizes(): readonly number[] {
  const [sizes, setSizes] = useState(blockSizes);
  useEffect(() => {
    if (sizes.length > 0) return;
    let live = true;
    void loadWasm().then((w) => {
      blockSizes = Array.from(w.block_sizes());
      if (live) setSizes(blockSizes);
    });
    return () => {
      live = false;
    };
  }, [sizes]);
  return sizes;
}

export function ByteOrderSelect(p: { label: string; value: ByteOrderChoice; found?: boolean | null; onChange(v: ByteOrderChoice): void }) {
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
