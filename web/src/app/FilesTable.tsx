// The files table: the loaded files grouped by database and relation where a data
// directory's catalogs name them (a table's TOAST table and indexes under it), else by folder
// (the dropped path's) and relfilenode (segments and forks as one row that opens), each file's row with its kind
// (the core's), choices (segment, fork, block size, byte order), progress and counts, its
// messages beneath, and a totals row. Only the rows in view are rendered: a data directory is
// thousands of files, each re-rendering as it verifies.
import { memo, useEffect, useMemo, useRef, useState } from 'react';
import { useVirtualizer } from '@tanstack/react-virtual';
import { measureAfterLayout } from './virtual';
import { FORKS, type FileEntry, type Fork } from '../files';
import { loadWasm } from '../core';
import { BYTE_ORDER_CHOICES, orderName, type ByteOrderChoice } from '../lib/geometry';
import { STATUS_NAMES, STATUS_WORDS } from '../lib/status';
import { countsOf, folderOf, groupFiles, splitGroups, type FolderGroup, type RelationGroup } from './groups';
import { useFileKind } from './kind';
import type { FilesActions } from './useFiles';
import './lists.css';

/** Estimated height of a file's rows before they are measured (px); measuring corrects it. */
const ROW_ESTIMATE = 30;
/** Rows rendered beyond each edge of the box, so scrolling shows rows before they are measured. */
const OVERSCAN = 10;
const COLUMNS = 8 + STATUS_NAMES.length + 1;
/** Up to this many files, every relation shows its files open; a data directory's start closed. */
export const OPEN_UP_TO = 50;

type RowActions = Pick<FilesActions, 'cancel' | 'segment' | 'choice' | 'fork'> & { select(f: FileEntry): void };

/** One rendered row of the grouped table. `part`: '' for the relations listed first, `rest:`
 * for those behind the healthy files' line (a folder can have rows in both). */
type Row =
  | { type: 'folder'; d: FolderGroup; files: FileEntry[]; part: string }
  | { type: 'relation'; g: RelationGroup; open: boolean; part: string }
  | { type: 'file'; f: FileEntry; grouped: boolean; depth: number }
  | { type: 'rest'; groups: FolderGroup[]; open: boolean };

const rowKey = (r: Row): string =>
  r.type === 'folder' ? `d:${r.part}${r.d.folder}` : r.type === 'relation' ? `r:${r.part}${r.g.key}` : r.type === 'rest' ? 'rest' : `f:${r.f.id}`;
/** The key of the healthy files' line in `flipped`. */
const REST = 'rest';

export function FilesTable(p: { files: readonly FileEntry[]; selectedId: number | null; actions: RowActions }) {
  const box = useRef<HTMLDivElement>(null);
  // Relations (and folders) whose open state differs from the default.
  const [flipped, setFlipped] = useState<ReadonlySet<string>>(new Set());
  const flip = (key: string) =>
    setFlipped((s) => {
      const n = new Set(s);
      if (!n.delete(key)) n.add(key);
      return n;
    });
  const groups = useMemo(() => groupFiles(p.files), [p.files]);
  const openByDefault = p.files.length <= OPEN_UP_TO;
  const selected = p.files.find((f) => f.id === p.selectedId);
  // A data directory with damage: the damaged relations first; the healthy rest (the
  // catalogs, mostly) behind one line, closed.
  const split = useMemo(() => (openByDefault ? null : splitGroups(groups)), [groups, openByDefault]);
  const rows = useMemo(() => {
    const out: Row[] = [];
    const showFolders = groups.length > 1 || (groups[0] !== undefined && groups[0].folder !== '');
    const list = (part: string, ds: readonly FolderGroup[], openRelations: boolean) => {
      for (const d of ds) {
        const files = d.relations.flatMap((r) => r.files);
        if (showFolders) out.push({ type: 'folder', d, files, part });
        if (showFolders && flipped.has(`d:${part}${d.folder}`)) continue;
        // The selected file's relation shows it, whatever its default, and so do the tables it
        // is listed under.
        const holds = new Set(d.relations.filter((g) => g.files.some((f) => f === selected)).flatMap((g) => [g.key, ...g.ancestors]));
        const open = new Map<string, boolean>();
        for (const g of d.relations) {
          if (g.ancestors.some((a) => !open.get(a))) continue;
          // A named relation (or one no pg_class row claims) has its row, even with one file.
          if (g.files.length === 1 && !g.relation && !g.unclaimed) {
            out.push({ type: 'file', f: g.files[0], grouped: false, depth: 0 });
            continue;
          }
          const o = openRelations !== flipped.has(g.key) || holds.has(g.key);
          open.set(g.key, o);
          out.push({ type: 'relation', g, open: o, part });
          if (o) for (const f of g.files) out.push({ type: 'file', f, grouped: true, depth: g.depth });
        }
      }
    };
    if (!split) {
      list('', groups, openByDefault);
      return out;
    }
    // Closed as a data directory's relations are, but for the one shown (`holds`): the rows
    // count each relation's problem pages.
    list('', split.look, false);
    if (split.rest.length === 0) return out;
    // Open when asked, or when the selected file is behind it (a link, the tour).
    const open = flipped.has(REST) || split.rest.some((d) => d.relations.some((g) => g.files.some((f) => f === selected)));
    out.push({ type: 'rest', groups: split.rest, open });
    if (open) list('rest:', split.rest, false);
    return out;
  }, [groups, split, flipped, openByDefault, selected]);
  const v = useVirtualizer({
    count: rows.length,
    getScrollElement: () => box.current,
    estimateSize: () => ROW_ESTIMATE,
    getItemKey: (i) => rowKey(rows[i]),
    overscan: OVERSCAN,
    measureElement: measureAfterLayout,
  });
  const items = v.getVirtualItems();
  const before = items.length > 0 ? items[0].start : 0;
  const after = items.length > 0 ? v.getTotalSize() - items[items.length - 1].end : 0;
  const total = countsOf(p.files);
  const waiting = p.files.filter((f) => f.state === 'queued' || f.state === 'running').length;
  return (
    <div className="list-scroll" ref={box} data-testid="files-scroll">
      <table className="files">
        <thead>
          <tr>
            <th>file</th>
            <th title="the kind of its pages, as the core reads them: heap, btree, gin, gist, spgist, brin, hash, sequence, fsm, vm">kind</th>
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
            {/* The Cancel buttons' column: named for screen readers (axe's empty-table-header). */}
            <th>
              <span className="visually-hidden">cancel</span>
            </th>
          </tr>
        </thead>
        {before > 0 && <Spacer height={before} />}
        {items.map((it) => {
          const r = rows[it.index];
          const common = { index: it.index, measure: v.measureElement };
          if (r.type === 'folder')
            return (
              <FolderRow
                key={it.key}
                {...common}
                d={r.d}
                files={r.files}
                open={!flipped.has(`d:${r.part}${r.d.folder}`)}
                onToggle={() => flip(`d:${r.part}${r.d.folder}`)}
              />
            );
          if (r.type === 'rest') return <RestRow key={it.key} {...common} groups={r.groups} open={r.open} onToggle={() => flip(REST)} />;
          if (r.type === 'relation') return <RelationRow key={it.key} {...common} g={r.g} open={r.open} onToggle={() => flip(r.g.key)} />;
          return (
            <FileRows
              key={it.key}
              {...common}
              f={r.f}
              version={r.f.version}
              grouped={r.grouped}
              depth={r.depth}
              selected={p.selectedId === r.f.id}
              actions={p.actions}
            />
          );
        })}
        {after > 0 && <Spacer height={after} />}
        {p.files.length > 1 && (
          <tfoot>
            <tr className="total">
              <td colSpan={6}>
                all {p.files.length} files{waiting > 0 && `, ${waiting} still verifying`}
              </td>
              {/* Every block of every file, as pgpage verify's "Blocks scanned" counts them. */}
              <td data-count="blocks">{p.files.reduce((n, f) => n + f.blocks, 0)}</td>
              <td />
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

const plural = (n: number, one: string, many = `${one}s`) => `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`;

/** A folder of the drop (or a database of a data directory): how many files and problem
 * pages it holds; it opens and closes. */
function FolderRow(p: { d: FolderGroup; files: FileEntry[]; open: boolean; onToggle(): void; index: number; measure(el: Element | null): void }) {
  const problems = p.files.reduce((n, f) => n + f.problems.filter((x) => x.problem).length, 0);
  const { folder, title } = p.d;
  return (
    <tbody ref={p.measure} data-index={p.index}>
      <tr className="folder" data-testid="folder" data-folder={folder} data-database={p.d.database ?? undefined}>
        <td colSpan={COLUMNS}>
          <button type="button" className="disclosure" aria-expanded={p.open} onClick={p.onToggle}>
            {title ?? (folder === '' ? 'files chosen one by one' : `${folder}/`)}
          </button>{' '}
          <span className="group-counts">
            {plural(p.files.length, 'file')}
            {problems > 0 ? <strong className="error">, {plural(problems, 'problem page')}</strong> : ''}
          </span>
        </td>
      </tr>
    </tbody>
  );
}

/** The line the healthy relations are folded behind: how many files and relations (how many
 * of them system catalogs), and that none needs a look; while files are still being verified,
 * only that none has a problem so far. */
function RestRow(p: { groups: FolderGroup[]; open: boolean; onToggle(): void; index: number; measure(el: Element | null): void }) {
  const relations = p.groups.flatMap((d) => d.relations).filter((g) => g.files.length > 0);
  const files = relations.flatMap((g) => g.files);
  const waiting = files.filter((f) => f.state !== 'done').length;
  const catalogs = relations.filter((g) => g.relation && !g.relation.user).length;
  return (
    <tbody ref={p.measure} data-index={p.index}>
      <tr className="rest" data-testid="healthy-files" data-files={files.length} data-relations={relations.length} data-waiting={waiting}>
        <td colSpan={COLUMNS}>
          <button type="button" className="disclosure" aria-expanded={p.open} onClick={p.onToggle}>
            {plural(files.length, 'other file')} ({plural(relations.length, 'relation')}
            {catalogs === 0 ? '' : catalogs === relations.length ? ', all system catalogs' : `, ${catalogs.toLocaleString('en-US')} of them system catalogs`})
          </button>
          <span className="group-counts">
            {waiting > 0
              ? `: no problem found so far, ${waiting.toLocaleString('en-US')} still verifying`
              : ': healthy, every page verified and none to look at'}
          </span>
        </td>
      </tr>
    </tbody>
  );
}

/** A relation's files (segments and forks) as one row: its kind (its main fork's), forks,
 * blocks and counts added. */
function RelationRow(p: { g: RelationGroup; open: boolean; onToggle(): void; index: number; measure(el: Element | null): void }) {
  const { files } = p.g;
  const main: FileEntry | undefined = files.find((f) => f.fork === 'main') ?? files[0];
  const kind = useFileKind(main ?? null);
  const counts = countsOf(files);
  const forks = [...new Set(files.map((f) => f.fork))];
  const segments = files.filter((f) => f.fork === 'main').length;
  const blocks = files.reduce((n, f) => n + f.blocks, 0);
  const waiting = files.filter((f) => f.state === 'queued' || f.state === 'running').length;
  const problems = files.reduce((n, f) => n + f.problems.filter((x) => x.problem).length, 0);
  const rel = p.g.relation;
  const what = rel ? rel.kind : p.g.unclaimed ? 'not in pg_class' : null;
  return (
    <tbody ref={p.measure} data-index={p.index}>
      <tr
        className={`relation${problems > 0 ? ' has-problems' : ''}`}
        data-testid="relation"
        data-relation={p.g.label}
        data-relkind={rel?.relkind}
        data-depth={p.g.depth}
        data-parent={p.g.parent ?? undefined}
        data-folder={files.length > 0 ? folderOf(files[0].path) : undefined}
        data-files={files.length}
        data-problems={problems}
      >
        <td style={p.g.depth > 0 ? { paddingLeft: `${p.g.depth * 1.25}rem` } : undefined}>
          <button
            type="button"
            className="disclosure"
            aria-expanded={p.open}
            aria-label={`${p.open ? 'close' : 'open'} ${what ?? 'relation'} ${p.g.label} (${files.length} files)`}
            onClick={p.onToggle}
          >
            {p.g.label}
          </button>
          {what && (
            <span className="relkind" data-testid="relkind">
              {' '}
              {what}
            </span>
          )}
          {problems > 0 && <strong className="error"> {plural(problems, 'problem page')}</strong>}
        </td>
        <td data-testid="kind">{kind ?? ''}</td>
        <td>{segments > 1 ? `0–${segments - 1}` : ''}</td>
        <td>{forks.join(', ')}</td>
        <td colSpan={2}>{plural(files.length, 'file')}</td>
        <td>{blocks}</td>
        <td>{waiting > 0 ? `${waiting} verifying` : 'done'}</td>
        {STATUS_NAMES.map((s) => (
          <td key={s} data-count={s}>
            {counts[s]}
          </td>
        ))}
        <td />
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
  /** Under its relation's row. */
  grouped: boolean;
  /** Its relation's depth under its table. */
  depth: number;
  actions: RowActions;
}) {
  const { f, actions: a } = p;
  const kind = useFileKind(f);
  const dir = folderOf(f.path);
  const done = f.state === 'done';
  const total = f.blocks * (f.blockSize ?? 0);
  const frac = total > 0 ? f.bytesDone / total : done ? 1 : 0;
  const secs = (performance.now() - f.startedAt) / 1000;
  const pagesPerSec = done ? (f.blocks / Math.max(f.elapsedMs, 1)) * 1000 : secs > 0 ? f.bytesDone / (f.blockSize ?? 8192) / secs : 0;
  const eta = !done && frac > 0 ? (secs * (1 - frac)) / frac : 0;
  return (
    <tbody ref={p.measure} data-index={p.index}>
      <tr
        className={[p.selected ? 'current' : '', p.grouped ? 'grouped' : ''].filter(Boolean).join(' ') || undefined}
        data-testid="file"
        data-file={f.name}
        data-path={f.path}
        data-state={f.state}
        data-elapsed-ms={done ? Math.round(f.elapsedMs) : undefined}
      >
        <td style={p.depth > 0 ? { paddingLeft: `${p.depth * 1.25 + 1}rem` } : undefined}>
          <button type="button" className="link" onClick={() => a.select(f)}>
            {dir && <span className="dir">{dir}/</span>}
            {f.name}
          </button>
        </td>
        <td data-testid="kind">{done && f.size === 0 ? 'empty' : (kind ?? '')}</td>
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
          <BlockSizeSelect
            label={`block size of ${f.name}`}
            value={f.choice.blockSize}
            found={f.blockSize}
            onChange={(blockSize) => a.choice(f, { ...f.choice, blockSize })}
          />
        </td>
        <td>
          <ByteOrderSelect
            label={`byte order of ${f.name}`}
            value={f.choice.byteOrder}
            found={f.bigEndian}
            onChange={(byteOrder) => a.choice(f, { ...f.choice, byteOrder })}
          />
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
  const short = f.findings.find((x) => x.code === 'read_short');
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
            {f.name}: empty file, no pages: a normal state, as for an unlogged table's init fork or a relation never written to (or truncated).
          </p>
        )}
        {f.blockSizeAssumed && (
          <p className="warn" data-testid="assumed-block-size">
            {f.name}: no sane page header at its start in{' '}
            {f.choice.byteOrder === 'detect' ? 'either byte order' : `${orderName(f.choice.byteOrder === 'big')} order`}, so the block size could not be
            detected: read as 8 kB pages, as pg_checksums does. Choose a block size or a byte order if that is wrong.
          </p>
        )}
        {f.byteOrderDetected && (
          <p className="note" data-testid="byte-order-detected">
            {f.name}: its pages are big-endian (a big-endian server wrote them), detected from their headers; checksums are computed on big-endian words, as
            that server does.
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
            {short ? `${f.name}: ${short.message}` : `${f.name}: ${f.trailingBytes} ${f.trailingBytes === 1 ? 'byte' : 'bytes'} past the last whole page`} (a
            truncated or torn file):{' '}
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
            {f.name}: the name is not a relation file's (like 16385, 16385.2 or 16385_fsm), so its pages are read as segment 0 of a main fork and judged as the
            server would judge them.
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
    <select
      aria-label={p.label}
      data-testid="byte-order"
      data-effective={found ?? undefined}
      value={p.value}
      onChange={(e) => p.onChange(e.target.value as ByteOrderChoice)}
    >
      {BYTE_ORDER_CHOICES.map((o) => (
        <option key={o} value={o}>
          {o !== 'detect' ? `${o}-endian` : found ? `detect: ${found}` : 'detect'}
        </option>
      ))}
    </select>
  );
}
