// One page: its verdict (recomputed here from the bytes), copy buttons with PostgreSQL's own
// wording, the annotated hex dump and the decoded panels with pageinspect's names.
import { memo, useEffect, useMemo, useState } from 'react';
import type { FileEntry } from '../files';
import { entryGeometry } from '../lib/head';
import { checksumWords, hexdumpC, pgBasebackupLine, pgChecksumsLine, relpathOf, serverLines } from '../lib/messages';
import { decodeWithCore, fileKindOf, type Span } from '../lib/spans';
import { STATUS_WORDS } from '../lib/status';
import { fileContext, pageVerdict, type LoadedPage } from '../lib/pageVerdict';
import { EditBar } from '../lab/EditBar';
import { LabPanel } from '../lab/LabPanel';
import { useLabEdit } from '../lab/useLabEdit';
import { loadWasm } from '../wasm';
import { HexView, type ByteProvider, type ByteRange } from './HexView';
import { PageShare } from './Share';
import { SpanTip } from './SpanTip';

export interface PageViewProps {
  entry: FileEntry;
  block: number;
  offset: number;
  onOffset(offset: number): void;
  onBlock(block: number): void;
  /** What the guided tour points at on this page: bytes, an item to select, the header panel. */
  highlight?: ByteRange;
  highlightItem?: number;
  highlightHeader?: boolean;
  /** Files are being verified: the hex dump renders what is seen first (HexView's hold). */
  hold?: boolean;
}

async function copy(text: string): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    const ta = document.createElement('textarea');
    ta.value = text;
    document.body.append(ta);
    ta.select();
    const ok = document.execCommand('copy');
    ta.remove();
    return ok;
  }
}

/**
 * Memoized: the app re-renders ten times a second per verifying file, and the page's own
 * props (the entry object, block, offset) do not change with that progress.
 */
export const PageView = memo(function PageView(p: PageViewProps) {
  const { entry } = p;
  const [loaded, setPage] = useState<LoadedPage | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [hover, setHover] = useState<{ span: Span | null; off: number | null }>({ span: null, off: null });
  const [item, setItem] = useState<number | null>(null);
  const [copied, setCopied] = useState<string | null>(null);
  useEffect(() => {
    if (p.highlightItem !== undefined) setItem(p.highlightItem);
  }, [p.highlightItem]);

  useEffect(() => {
    let live = true;
    void (async () => {
      try {
        const file = entry.file;
        if (entry.size === 0) throw new Error('empty file');
        const wasm = await loadWasm();
        // Block 0 shows before the worker has settled the geometry: read it the same way.
        const { head, blockSize: bs, bigEndian } = await entryGeometry(entry);
        const blocks = Math.floor(entry.size / bs);
        if (blocks === 0) throw new Error(`the file is shorter than one ${bs}-byte page`);
        const block = Math.min(p.block, blocks - 1);
        const bytes =
          (block + 1) * bs <= head.length ? head.slice(block * bs, (block + 1) * bs) : new Uint8Array(await file.slice(block * bs, (block + 1) * bs).arrayBuffer());
        const verdict = pageVerdict(wasm, bytes, { block, blockSize: bs, segment: entry.segment, blocks, bigEndian, ...fileContext(entry, block) });
        // A page that does not show its kind (pd_upper zeroed, garbage) decodes as its file's;
        // its columns are named as its cluster's pageinspect names them.
        const decoded = decodeWithCore(wasm, bytes, verdict.absoluteBlock, bigEndian, entry.fork, fileKindOf(wasm, head, bs, bigEndian, entry.fork), entry.pgVersion ?? undefined);
        if (live) {
          setPage({ block, bytes, blockSize: bs, bigEndian, decoded, ...verdict });
          setError(null);
        }
      } catch (e) {
        if (live) setError(e instanceof Error ? e.message : String(e));
      }
    })();
    return () => {
      live = false;
    };
  }, [entry, p.block]);

  // In lab mode `page` is the edited copy, verdict and decoding recomputed from its bytes.
  const lab = useLabEdit(loaded, entry);
  const page = lab.page;
  const decoded = page?.decoded ?? null;
  const provider: ByteProvider | null = useMemo(
    () => (page ? { length: page.bytes.length, slice: (s: number, e: number) => page.bytes.subarray(s, e) } : null),
    [page],
  );
  const marked = useMemo(
    () => new Set<string>(page && page.computed !== null && page.computed !== page.stored ? ['pd_checksum'] : []),
    [page],
  );

  // page_header()'s columns by the header rows that show them (pd_pagesize_version shows as
  // both pagesize and version).
  const headerRows = new Map<string, Span>();
  for (const x of decoded?.spans ?? []) if (x.role === 'header' && x.column !== undefined) headerRows.set(x.column, x);
  const psv = headerRows.get('pagesize');
  if (psv) headerRows.set('version', psv);

  if (error) {
    return (
      <section className="page" data-testid="page-view">
        <p className="error" role="alert">
          {entry.name}, block {p.block}: {error}
        </p>
      </section>
    );
  }
  if (!page || !decoded || !provider) return <section className="page" data-testid="page-view" data-state="loading" />;

  const problem = page.status !== 'ok' && page.status !== 'zero';
  const relpath = relpathOf(entry.relDir, entry.rel?.relfilenode ?? 0, entry.fork);
  const doCopy = (what: string, text: string) => void copy(text).then((ok) => setCopied(ok ? what : `could not copy ${what}`));
  const fileOffset = page.block * page.blockSize;

  return (
    <section className="page" data-testid="page-view" data-file={entry.name} data-block={page.block} data-status={page.status}>
      <h2>
        {entry.path}, block {page.block}{' '}
        <small>
          (relation block {page.absoluteBlock}, file offset {fileOffset} = 0x{fileOffset.toString(16)})
        </small>
      </h2>
      <nav className="pagenav" aria-label="pages of the file">
        <button type="button" onClick={() => p.onBlock(Math.max(0, page.block - 1))} aria-label="previous page">
          [ previous
        </button>
        <button type="button" onClick={() => p.onBlock(page.block + 1)} aria-label="next page">
          next ]
        </button>
      </nav>
      <EditBar lab={lab} />
      <p className={`verdict status-text-${page.status}`} data-testid="page-verdict" data-stored={page.stored} data-computed={page.computed ?? ''}>
        <strong>{STATUS_WORDS[page.status]}</strong>: stored {checksumWords(page.stored)}
        {page.computed !== null && <>, computed {checksumWords(page.computed)}</>}
        {page.matchesBlock !== null && <>. This page's checksum is valid for block {page.matchesBlock}: a misplaced page?</>}
      </p>
      {decoded.notes.length > 0 && (
        <p className="note" data-testid="decode-notes">
          {decoded.notes.join(' ')}
        </p>
      )}
      {decoded.spans.some((x) => x.problem) && (
        <ul className="warn" data-testid="decode-problems">
          {decoded.spans
            .filter((x) => x.problem)
            .slice(0, 20)
            .map((x) => (
              <li key={x.start} title={x.rule}>
                <code>{x.qualified}</code>
                {x.item !== undefined && ` of item ${x.item}`} at offset {x.start}: {x.problem}
              </li>
            ))}
        </ul>
      )}
      <div className="copy">
        Copy:{' '}
        {problem && page.status === 'mismatch' && page.computed !== null && (
          <button type="button" onClick={() => doCopy('pg_checksums line', pgChecksumsLine(entry.path, page.block, page.computed!, page.stored))}>
            pg_checksums line
          </button>
        )}
        {problem && (
          <button type="button" onClick={() => doCopy('server messages', serverLines(relpath, page.absoluteBlock, page.status, page.computed, page.stored, entry.pgVersion))}>
            server WARNING/ERROR
          </button>
        )}
        {problem && page.status === 'mismatch' && page.computed !== null && (
          <button type="button" onClick={() => doCopy('pg_basebackup line', pgBasebackupLine(relpath + (entry.segment ? `.${entry.segment}` : ''), page.block, page.computed!, page.stored))}>
            pg_basebackup line
          </button>
        )}
        <button type="button" onClick={() => doCopy('hexdump -C', hexdumpC(page.bytes, fileOffset))}>
          page as hexdump -C
        </button>
        {item !== null && (
          <button
            type="button"
            onClick={() => {
              const spans = decoded.spans.filter((x) => x.item === item && x.role !== 'line_pointer');
              if (spans.length === 0) return;
              const from = Math.min(...spans.map((x) => x.start));
              const to = Math.max(...spans.map((x) => x.start + x.len));
              doCopy(`item ${item} as hexdump -C`, hexdumpC(page.bytes.subarray(from, to), fileOffset + from));
            }}
          >
            item {item} as hexdump -C
          </button>
        )}
        {copied && (
          <span role="status" data-testid="copied">
            {' '}
            copied {copied}
          </span>
        )}
      </div>
      <PageShare entry={entry} block={page.block} />
      <SpanTip span={hover.span} off={hover.off} />
      <div className="pagebody">
        <HexView
          data={provider}
          baseOffset={fileOffset}
          spans={decoded.spans}
          markedFields={marked}
          selectedItem={item}
          highlight={p.highlight}
          cursor={p.offset}
          onCursor={(off) => {
            p.onOffset(off);
            const s = decoded.spans.find((x) => off >= x.start && off < x.start + x.len);
            if (s?.item !== undefined) setItem(s.item);
          }}
          onHover={(span, off) => setHover({ span, off })}
          onEditByte={lab.onEditByte}
          editedOffsets={lab.editedOffsets}
          hold={p.hold}
        />
        <div className="panels">
          <h3>Page header ({decoded.kind} page)</h3>
          <table data-testid="header-panel" className={p.highlightHeader ? 'hl' : undefined} data-highlight={p.highlightHeader ? 'true' : undefined}>
            <tbody>
              {Object.entries(decoded.header).map(([k, v]) => (
                <tr key={k} className={k === 'checksum' && marked.size > 0 ? 'mismatch' : undefined}>
                  {/* The column's own row: page_header()'s `lower` is PageHeaderData.pd_lower. */}
                  <th title={headerRows.get(k)?.doc} data-qualified={headerRows.get(k)?.qualified}>
                    {k}
                  </th>
                  <td>
                    {String(v)}
                    {k === 'flags' && decoded.flag_names.length > 0 && ` ${decoded.flag_names.join('|')}`}
                    {k === 'checksum' && marked.size > 0 && ` ≠ computed ${page.computed}`}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          {decoded.items.length > 0 && <Items items={decoded.items} selected={item} onSelect={setItem} />}
          {decoded.special && (
            <>
              <h3>Special space{decoded.kind === 'btree' || decoded.kind === 'hash' ? ' / metapage' : ''}</h3>
              <table data-testid="special-panel">
                <tbody>
                  {flatten(decoded.special).map(([k, v]) => (
                    <tr key={k}>
                      <th>{k}</th>
                      <td>{cell(v)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </>
          )}
        </div>
      </div>
      <LabPanel page={page} edited={(lab.editedOffsets?.size ?? 0) > 0} />
    </section>
  );
});

/** A metapage nested in the special space shows as `meta.root`, `meta.level`, ... rows. */
function flatten(o: Record<string, unknown>, prefix = ''): [string, unknown][] {
  return Object.entries(o).flatMap(([k, v]) =>
    v !== null && typeof v === 'object' && !Array.isArray(v) ? flatten(v as Record<string, unknown>, `${prefix}${k}.`) : [[`${prefix}${k}`, v] as [string, unknown]],
  );
}

function cell(v: unknown): string {
  if (v === null || v === undefined) return '';
  if (Array.isArray(v) && v.every((x) => typeof x === 'string')) return v.join(' | ');
  if (typeof v === 'object') return JSON.stringify(v);
  return String(v);
}

/** The page's items with pageinspect's columns; a row selects its line pointer's bytes. */
function Items(p: { items: Record<string, unknown>[]; selected: number | null; onSelect(lp: number): void }) {
  const cols = Object.keys(p.items[0]);
  const lpOf = (row: Record<string, unknown>, i: number): number => Number(row.lp ?? row.itemoffset ?? i + 1);
  return (
    <>
      <h3>Items ({p.items.length})</h3>
      <div className="items-scroll">
        <table data-testid="items-panel">
          <thead>
            <tr>
              {cols.map((c) => (
                <th key={c}>{c}</th>
              ))}
            </tr>
          </thead>
          <tbody>
            {p.items.map((row, i) => {
              const lp = lpOf(row, i);
              return (
                <tr
                  key={i}
                  data-lp={lp}
                  tabIndex={0}
                  className={p.selected === lp ? 'sel' : undefined}
                  aria-selected={p.selected === lp}
                  onClick={() => p.onSelect(lp)}
                  onKeyDown={(e) => {
                    if (e.key !== 'Enter' && e.key !== ' ') return;
                    e.preventDefault();
                    p.onSelect(lp);
                  }}
                >
                  {cols.map((c) => (
                    <td key={c}>{cell(row[c])}</td>
                  ))}
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
    </>
  );
}
