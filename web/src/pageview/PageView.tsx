// One page: its verdict (recomputed here from the bytes), copy buttons with PostgreSQL's own
// wording, the annotated hex dump and the decoded panels with pageinspect's names.
import { TupleColumns } from '../rows/TupleColumns';
import { Fragment, memo, useCallback, useEffect, useMemo, useRef, useState } from 'react';
import type { FileEntry } from '../files';
import { entryGeometry } from '../lib/head';
import { afterPaint, pageDrawn } from '../lib/drawn';
import { checksumWords, sentence, pgBasebackupLine, pgChecksumsLine, relpathOf, serverLines } from '../lib/messages';
import { mapPage } from '../lib/maps';
import { decodeWithCore, fileKindOf, structureHintsOf, type Span } from '../lib/spans';
import { isReadAsEmpty, READ_AS_EMPTY_WORDS, severityBadge, STATUS_WORDS, ZERO_NOTE_WORDS } from '../lib/status';
import { zeroNoteAt } from '../app/selection';
import { fileContext, pageVerdict, type LoadedPage } from '../lib/pageVerdict';
import { EditBar } from '../lab/EditBar';
import { LabPanel } from '../lab/LabPanel';
import { DamagePanel, type FlipMark } from '../damage/DamagePanel';
import { DAMAGE, damageKey, rowsSentence, sentence as reportSentence } from '../report/ReportPanel';
import { findingAt, redactedFindingAt, shownReport } from '../report/shown';
import { useLabEdit } from '../lab/useLabEdit';
import { loadWasm, runTexts, type NotTuple, type Wasm } from '../core';
import { HexView, type ByteProvider, type ByteRange } from '../components/HexView';
import { MapPanel } from './MapPanel';
import './pageview.css';
import { PageShare } from '../share/Share';
import { pageHexdump, redactedAs, redactionOf, redactOn } from '../share/redact';
import { SpanTip } from '../components/SpanTip';
import { plainText } from '../lib/text';

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
  /** Every loaded file: a heap tuple's columns come from its data directory's catalogs. */
  files?: readonly FileEntry[];
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
    // eslint-disable-next-line @typescript-eslint/no-deprecated -- the fallback where navigator.clipboard is refused
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
  // The page shown and the copy of the file it was read from: the view stays mounted for a
  // new copy of the same file (App keys it by lineage) and shows the old copy's page until
  // the new one's is read, without its status (what tests and the bench wait on).
  const [shown, setPage] = useState<{ entryId: number; page: LoadedPage } | null>(null);
  const loaded = shown?.page ?? null;
  const [error, setError] = useState<string | null>(null);
  const [hover, setHover] = useState<{ span: Span | null; off: number | null }>({ span: null, off: null });
  const [item, setItem] = useState<number | null>(null);
  // Where a selection asks the other view to scroll: the hex dump to the item's tuple when a
  // row is picked, the items table to the row when a byte is. `n` repeats a request.
  const [reveal, setReveal] = useState<{ to: 'hex' | 'row'; n: number } | null>(null);
  const [copied, setCopied] = useState<string | null>(null);
  // A bit-flip candidate the damage panel shows: its byte outlined in the dump.
  const [flip, setFlip] = useState<FlipMark | null>(null);
  const wasmRef = useRef<Wasm | null>(null);
  // An all-zero page's dump asked for row by row: the page it was asked for.
  const [zeroRows, setZeroRows] = useState<{ entryId: number; block: number } | null>(null);
  // A new copy of the file: the hover and the flip candidate were of the old copy's page.
  const [copyId, setCopyId] = useState(entry.id);
  if (copyId !== entry.id) {
    setCopyId(entry.id);
    setHover({ span: null, off: null });
    setFlip(null);
    setCopied(null);
  }
  const select = useCallback((lp: number | null, to: 'hex' | 'row') => {
    setItem(lp);
    setReveal((r) => ({ to, n: (r?.n ?? 0) + 1 }));
  }, []);
  const pickRow = useCallback((lp: number) => select(lp, 'hex'), [select]);
  const hoverSpan = useCallback((span: Span | null) => setHover({ span, off: span ? span.start : null }), []);
  useEffect(() => {
    if (p.highlightItem !== undefined) select(p.highlightItem, 'hex');
  }, [p.highlightItem, select]);

  useEffect(() => {
    let live = true;
    void (async () => {
      try {
        const file = entry.file;
        if (entry.size === 0) throw new Error('empty file');
        const wasm = await loadWasm();
        wasmRef.current = wasm;
        // Block 0 shows before the worker has settled the geometry: read it the same way.
        const { head, blockSize: bs, bigEndian } = await entryGeometry(entry);
        const blocks = Math.floor(entry.size / bs);
        if (blocks === 0) throw new Error(`the file is shorter than one ${bs}-byte page`);
        const block = Math.min(p.block, blocks - 1);
        const bytes =
          (block + 1) * bs <= head.length
            ? head.slice(block * bs, (block + 1) * bs)
            : new Uint8Array(await file.slice(block * bs, (block + 1) * bs).arrayBuffer());
        const verdict = pageVerdict(wasm, bytes, { block, blockSize: bs, segment: entry.segment, blocks, bigEndian, ...fileContext(entry, block) });
        // A page that does not show its kind (pd_upper zeroed, garbage) decodes as its file's;
        // its columns are named as its cluster's pageinspect names them.
        // With the hints the file was verified with, it finds what the verify list found.
        const decoded = decodeWithCore(
          wasm,
          bytes,
          verdict.absoluteBlock,
          bigEndian,
          entry.fork,
          fileKindOf(wasm, head, bs, bigEndian, entry.fork),
          entry.pgVersion ?? undefined,
          { structure: structureHintsOf(wasm, entry), relation: entry.naming?.relation?.name ?? entry.path },
        );
        if (live) {
          setPage({ entryId: entry.id, page: { block, bytes, blockSize: bs, bigEndian, decoded, ...verdict } });
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

  // Waiting work (the verify workers, the playground's save) starts once this page is on screen.
  useEffect(() => {
    if (!shown && !error) return;
    let live = true;
    void afterPaint().then(() => live && pageDrawn());
    return () => {
      live = false;
    };
  }, [shown, error]);

  // In lab mode `page` is the edited copy, verdict and decoding recomputed from its bytes.
  const lab = useLabEdit(loaded, entry);
  const page = lab.page;
  const decoded = page?.decoded ?? null;
  const provider: ByteProvider | null = useMemo(
    () => (page ? { length: page.bytes.length, slice: (s: number, e: number) => page.bytes.subarray(s, e) } : null),
    [page],
  );
  // A VM or FSM page's map, from the (possibly edited) bytes.
  const map = useMemo(() => (page && wasmRef.current ? mapPage(wasmRef.current, page.bytes, page.absoluteBlock, entry.fork) : null), [page, entry.fork]);
  // The tuple bytes of the selected item (its line pointer's target), where the dump scrolls.
  const itemStart = useMemo(() => {
    if (!decoded || item === null) return null;
    const own = decoded.spans.filter((x) => x.item === item);
    const tuple = own.filter((x) => x.role !== 'line_pointer');
    const at = (tuple.length > 0 ? tuple : own).map((x) => x.start);
    return at.length > 0 ? Math.min(...at) : null;
  }, [decoded, item]);
  // A tour step outlines its own bytes of the item (its line pointer, say): the dump shows those.
  const revealStart = p.highlight && p.highlightItem === item ? p.highlight.start : itemStart;
  const marked = useMemo(() => new Set<string>(page && page.computed !== null && page.computed !== page.stored ? ['pd_checksum'] : []), [page]);

  // page_header()'s columns by the header rows that show them (pd_pagesize_version shows as
  // both pagesize and version).
  const report = shownReport.use();
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
  // The core notes this all-zero page between pages with rows: rows may be gone here.
  const zeroNote = page.status === 'zero' ? zeroNoteAt(entry, page.block) : null;
  // What the relation's _vm and _fsm, and amcheck's checks, say of these bytes (the
  // verdict's row carries them).
  // Worst first: the report's finding for this block, then warnings, then routine notes.
  const mapFindings = entry.pageFindings
    .filter((x) => x.block === page.block && page.findings.includes(x.code))
    .sort((a, b) => Number(a.evidence === 'note') - Number(b.evidence === 'note'));
  const reported = findingAt(report, entry.path, page.block);
  // Its words without row data, which the picture says while "Redact row data" is on.
  const reportedRedacted = redactedFindingAt(report, entry.path, page.block);
  // The decoder flags the line pointer of each item amcheck's findings name, in the same
  // words: said once, in amcheck's list, with where the line pointer lies.
  const problemSpans = decoded.spans.filter((x) => x.problem && (decoded.items_counted || x.item === undefined));
  const flaggedBy = (x: (typeof mapFindings)[number]) =>
    x.amcheck && x.offset ? problemSpans.find((s) => s.item === x.offset && s.problem === x.message) : undefined;
  const saidByAmcheck = new Set(mapFindings.map(flaggedBy).filter((s) => s !== undefined));
  const decodeProblems = problemSpans.filter((x) => !saidByAmcheck.has(x));
  // Labelled by whose check it is (the registry says): a reader who searches amcheck's
  // messages finds amcheck's findings, never pgpage's own.
  const amcheckLine = (x: (typeof mapFindings)[number], offsets: number[]) => {
    const label = `${x.checker ?? 'amcheck'}: `;
    if (offsets.length > 1 && wasmRef.current) return `${label}each of line pointers ${runTexts(wasmRef.current, offsets)}: ${x.message}`;
    const span = flaggedBy(x);
    const at = span ? ` (${span.qualified} of item ${x.offset} at byte ${span.start})` : '';
    return `${label}${x.offset ? `offset ${x.offset}${at}: ` : ''}${x.message}`;
  };
  // One line for a finding that many line pointers share, listing them.
  const shownFindings: { x: (typeof mapFindings)[number]; offsets: number[] }[] = [];
  for (const x of mapFindings) {
    const same =
      x.amcheck && x.offset ? shownFindings.find((g) => g.x.amcheck && g.x.code === x.code && g.x.message === x.message && g.offsets.length > 0) : undefined;
    if (same) same.offsets.push(x.offset!);
    else shownFindings.push({ x, offsets: x.amcheck && x.offset ? [x.offset] : [] });
  }
  const itemProblems = decoded.items_counted ? 0 : decoded.spans.filter((x) => x.problem && x.item !== undefined).length;
  const relpath = relpathOf(entry.relDir, entry.rel?.relfilenode ?? 0, entry.fork);
  const doCopy = (what: string, text: string) => void copy(text).then((ok) => setCopied(ok ? what : `could not copy ${what}`));
  const fileOffset = page.block * page.blockSize;
  // An all-zero page is said in one line and dumped as hexdump -C folds it, unless its rows
  // are wanted: asked for, edited, a byte past its first row pointed at (the cursor, a link's
  // offset, a tour step).
  const allZero = page.bytes.every((b) => b === 0);
  const rowsWanted =
    (zeroRows?.entryId === entry.id && zeroRows.block === page.block) || lab.editing || p.offset >= 16 || (p.highlight !== undefined && p.highlight.end > 16);
  const folded = allZero && !rowsWanted;
  // The share row's "Redact row data" switch holds for these copies too.
  const redaction = () =>
    redactOn() && wasmRef.current ? redactionOf(wasmRef.current, page.bytes, page.absoluteBlock, page.bigEndian, entry.fork, decoded.kind) : null;

  return (
    <section
      className="page"
      data-testid="page-view"
      data-file={entry.name}
      data-path={entry.path}
      data-block={page.block}
      data-status={shown?.entryId === entry.id ? page.status : undefined}
      data-state={shown?.entryId === entry.id ? undefined : 'loading'}
    >
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
      <p
        className={`verdict status-text-${page.status}${zeroNote ? ' noted' : ''}`}
        data-testid="page-verdict"
        data-stored={page.stored}
        data-computed={page.computed ?? ''}
        data-note={zeroNote ? zeroNote.code : undefined}
      >
        <strong>{zeroNote ? ZERO_NOTE_WORDS : STATUS_WORDS[page.status]}</strong>: stored {checksumWords(page.stored)}
        {page.computed !== null && <>, computed {checksumWords(page.computed)}</>}
        {page.matchesBlock !== null && <>. This page's checksum is valid for block {page.matchesBlock}: a misplaced page?</>}
      </p>
      {zeroNote && (
        <p className="note" data-testid="page-note" data-code={zeroNote.code}>
          {sentence(zeroNote.message)}
        </p>
      )}
      {reported && (
        <div className={`page-damage severity-${reported.severity}`} data-testid="page-damage" data-damage={reported.damage} data-severity={reported.severity}>
          <p>
            <strong className="severity">{severityBadge(reported)}</strong> {reportSentence(DAMAGE[damageKey(reported)] ?? reported.damage)}
            {isReadAsEmpty(reported) && <> ({READ_AS_EMPTY_WORDS})</>}
            {reported.rows && <> {rowsSentence(reported.rows)}</>}
          </p>
          {reported.evidence.length > 0 && (
            <ul>
              {reported.evidence.map((e, i) => {
                const without = reportedRedacted?.evidence[i];
                return (
                  <li key={i} {...redactedAs(reportSentence(e), without === undefined ? undefined : reportSentence(without))}>
                    {reportSentence(e)}
                  </li>
                );
              })}
            </ul>
          )}
        </div>
      )}
      {mapFindings.length > 0 && (
        <ul className="warn" data-testid="page-findings">
          {shownFindings.map(({ x, offsets }) => (
            <li
              key={`${x.code}:${x.offset ?? 0}`}
              data-code={x.code}
              data-offset={x.offset}
              data-offsets={offsets.length > 1 ? offsets.join(' ') : undefined}
              data-amcheck={x.amcheck ? 'true' : undefined}
              data-checker={x.checker}
              className={x.evidence === 'note' ? 'note' : undefined}
            >
              {x.amcheck ? amcheckLine(x, offsets) : x.message}
            </li>
          ))}
        </ul>
      )}
      {decoded.notes.length > 0 && (
        <p className="note" data-testid="decode-notes">
          {decoded.notes.map(sentence).join(' ')}
        </p>
      )}
      {!decoded.items_counted && itemProblems > 0 && (
        <p className="note" data-testid="items-noise" data-findings={itemProblems}>
          The header is not a PostgreSQL page header, so its line pointers mean nothing: the {itemProblems.toLocaleString('en-US')} findings on the
          &quot;items&quot; they point at are not listed.
        </p>
      )}
      {decodeProblems.length > 0 && (
        <ul className="warn" data-testid="decode-problems">
          {/* Findings on items that a header of noise points at would be noise themselves. */}
          {decodeProblems.slice(0, 20).map((x) => (
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
          <button
            type="button"
            onClick={() => doCopy('pg_checksums line', pgChecksumsLine(wasmRef.current!, entry.path, page.block, page.computed!, page.stored))}
          >
            pg_checksums line
          </button>
        )}
        {problem && (
          <button
            type="button"
            onClick={() =>
              doCopy('server messages', serverLines(wasmRef.current!, relpath, page.absoluteBlock, page.status, page.computed, page.stored, entry.pgVersion))
            }
          >
            server WARNING/ERROR
          </button>
        )}
        {problem && page.status === 'mismatch' && page.computed !== null && (
          <button
            type="button"
            onClick={() =>
              doCopy(
                'pg_basebackup line',
                pgBasebackupLine(wasmRef.current!, relpath + (entry.segment ? `.${entry.segment}` : ''), page.block, page.computed!, page.stored),
              )
            }
          >
            pg_basebackup line
          </button>
        )}
        <button
          type="button"
          data-testid="copy-hexdump"
          onClick={() => doCopy('hexdump -C', pageHexdump(page.bytes, fileOffset, 0, page.bytes.length, redaction()))}
        >
          page as hexdump -C
        </button>
        {/* Always there and as wide for any item number, so that selecting an item by
            clicking a byte does not add or widen a button above the dump and move the dump
            under the pointer. */}
        <button
          type="button"
          className="copy-item"
          disabled={item === null}
          data-testid="copy-item"
          onClick={() => {
            const spans = decoded.spans.filter((x) => x.item === item && x.role !== 'line_pointer');
            if (spans.length === 0) return;
            const from = Math.min(...spans.map((x) => x.start));
            const to = Math.max(...spans.map((x) => x.start + x.len));
            doCopy(`item ${item} as hexdump -C`, pageHexdump(page.bytes, fileOffset, from, to, redaction()));
          }}
        >
          {item === null ? 'item as hexdump -C' : `item ${item} as hexdump -C`}
        </button>
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
        {folded && (
          <div className="zero-page" data-testid="zero-page" data-bytes={page.bytes.length}>
            <p>
              <strong>All {page.bytes.length.toLocaleString('en-US')} bytes of this page are zero</strong>: no header, no line pointers, no tuples. Below as{' '}
              <code>hexdump -C</code> prints it: one row of zeros and a <code>*</code> for the {(page.bytes.length / 16 - 1).toLocaleString('en-US')} rows like
              it.{' '}
              <button type="button" data-testid="zero-page-rows" onClick={() => setZeroRows({ entryId: entry.id, block: page.block })}>
                Show all {(page.bytes.length / 16).toLocaleString('en-US')} rows
              </button>
            </p>
          </div>
        )}
        <HexView
          data={provider}
          baseOffset={fileOffset}
          spans={decoded.spans}
          markedFields={marked}
          selectedItem={item}
          reveal={reveal?.to === 'hex' && revealStart !== null ? { start: revealStart, n: reveal.n } : undefined}
          highlight={p.highlight ?? (flip && flip.block === page.block ? { start: flip.offset, end: flip.offset + 1 } : undefined)}
          cursor={p.offset}
          onCursor={(off) => {
            p.onOffset(off);
            const s = decoded.spans.find((x) => off >= x.start && off < x.start + x.len);
            if (s?.item !== undefined) select(s.item, 'row');
          }}
          onHover={(span, off) => setHover({ span, off })}
          onEditByte={lab.onEditByte}
          editedOffsets={lab.editedOffsets}
          hold={p.hold}
          fold={folded}
        />
        {/* One element per block: out of view the panels keep the size they last had (content-
            visibility: auto), and another block's size let its tables spill over what follows. */}
        <div className={allZero ? 'panels small' : 'panels'} key={page.block}>
          <h3>Page header ({decoded.kind} page)</h3>
          <table data-testid="header-panel" className={p.highlightHeader ? 'hl' : undefined} data-highlight={p.highlightHeader ? 'true' : undefined}>
            <tbody>
              {Object.entries(decoded.header).map(([k, v]) => (
                <tr key={k} className={k === 'checksum' && marked.size > 0 ? 'mismatch' : undefined}>
                  {/* The column's own row: page_header()'s `lower` is PageHeaderData.pd_lower. */}
                  <th title={headerRows.get(k)?.doc} data-qualified={headerRows.get(k)?.qualified}>
                    {k}
                  </th>
                  <td title={headerRows.get(k)?.value} onMouseEnter={() => hoverSpan(headerRows.get(k) ?? null)}>
                    {String(v)}
                    {k === 'flags' && decoded.flag_names.length > 0 && (
                      <>
                        {' '}
                        <FlagNames names={decoded.flag_names} />
                      </>
                    )}
                    {k === 'checksum' && marked.size > 0 && ` ≠ computed ${page.computed}`}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          {decoded.items.length > 0 && (
            <Items
              items={decoded.items}
              counted={decoded.items_counted}
              notTuples={decoded.not_tuples}
              spans={decoded.spans}
              selected={item}
              reveal={reveal?.to === 'row' ? reveal.n : 0}
              onSelect={pickRow}
              onHover={hoverSpan}
            />
          )}
          {map && <MapPanel map={map} block={page.block} />}
          {decoded.special && (
            <>
              {/* A map page has no special space: its fields are the map's (the grid above
                  shows the VM's bit lists). */}
              <h3>
                {map
                  ? `${map.kind === 'vm' ? 'Visibility' : 'Free space'} map page fields`
                  : `Special space${decoded.kind === 'btree' || decoded.kind === 'hash' ? ' / metapage' : ''}`}
              </h3>
              <table data-testid="special-panel">
                <tbody>
                  {flatten(decoded.special)
                    .filter(([k]) => !(map?.kind === 'vm' && (k === 'all_visible' || k === 'all_frozen')))
                    .map(([k, v]) => (
                      <tr key={k}>
                        <th>{k}</th>
                        <td>
                          {cell(v)}
                          {map?.kind === 'vm' && k === 'heap_blocks' && ' (a capacity: heap blocks one VM page can describe, not the table’s size)'}
                        </td>
                      </tr>
                    ))}
                </tbody>
              </table>
            </>
          )}
        </div>
      </div>
      {/* Below the hex view and the panels, so that its rows arriving move nothing under the
          pointer. */}
      {decoded.kind === 'heap' && item !== null && p.files && <TupleColumns entry={entry} files={p.files} page={page.bytes} lp={item} />}
      <DamagePanel
        entry={entry}
        files={p.files ?? []}
        page={page}
        overwritten={reported?.damage === 'overwritten' && !decoded.items_counted}
        onBlock={p.onBlock}
        flip={flip}
        onFlip={(m) => {
          setFlip(m);
          if (m) p.onOffset(m.offset);
        }}
      />
      <LabPanel page={page} edited={(lab.editedOffsets?.size ?? 0) > 0} />
    </section>
  );
});

/** A metapage nested in the special space shows as `meta.root`, `meta.level`, ... rows. */
function flatten(o: Record<string, unknown>, prefix = ''): [string, unknown][] {
  return Object.entries(o).flatMap(([k, v]) =>
    v !== null && typeof v === 'object' && !Array.isArray(v)
      ? flatten(v as Record<string, unknown>, `${prefix}${k}.`)
      : [[`${prefix}${k}`, v] as [string, unknown]],
  );
}

function cell(v: unknown): string {
  if (v === null || v === undefined) return '';
  if (Array.isArray(v) && v.every((x) => typeof x === 'string')) return v.join(' | ');
  return plainText(v);
}

/** Flag names, each kept whole: a narrow cell wraps between flags, never inside one
 * ("PD_ALL_VISIBL E" reads as no flag PostgreSQL has). */
function FlagNames(p: { names: readonly string[] }) {
  return (
    <>
      {p.names.map((n, i) => (
        <Fragment key={n}>
          {i > 0 && (
            <>
              |
              <wbr />
            </>
          )}
          <span className="flag-name">{n}</span>
        </Fragment>
      ))}
    </>
  );
}

/** The line pointer's columns, which one ItemIdData word holds. */
const LINE_POINTER_COLUMNS = new Set(['lp', 'lp_off', 'lp_flags', 'lp_len', 'itemoffset']);

/**
 * The page's items in pageinspect's column order (the core's), one row per item; a row
 * selects its item, and a cell's title and the hover line give the value as the core
 * decodes its bytes (t_ctid as (0,1), t_infomask by its set bits' names, XIDs by name).
 */
const Items = memo(function Items(p: {
  items: Record<string, unknown>[];
  /** The core's word on whether the page's own header and line pointers count its items. */
  counted: boolean;
  /** The core's word on which items' bytes are no tuple (verify_heapam's rules). */
  notTuples: readonly NotTuple[];
  spans: Span[];
  selected: number | null;
  /** Changes when a byte of the dump selected an item: its row scrolls into the table's view. */
  reveal: number;
  onSelect(lp: number): void;
  onHover(span: Span | null): void;
}) {
  const cols = Object.keys(p.items[0]);
  const notTuple = useMemo(() => new Map(p.notTuples.map((x) => [x.lp, x.message])), [p.notTuples]);
  // A row that is no tuple keeps its line pointer's columns; the rest is one mark.
  const lpCols = cols.filter((c) => LINE_POINTER_COLUMNS.has(c));
  const lpOf = (row: Record<string, unknown>, i: number): number => Number(row.lp ?? row.itemoffset ?? i + 1);
  const byCell = useMemo(() => {
    const m = new Map<string, Span>();
    for (const s of p.spans) {
      if (s.item === undefined) continue;
      if (s.role === 'line_pointer') for (const c of LINE_POINTER_COLUMNS) m.set(`${s.item}:${c}`, s);
      else if (s.column !== undefined && !m.has(`${s.item}:${s.column}`)) m.set(`${s.item}:${s.column}`, s);
    }
    return m;
  }, [p.spans]);
  const scroller = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const box = scroller.current;
    if (!p.reveal || !box || p.selected === null) return;
    const row = box.querySelector<HTMLElement>(`tr[data-lp="${p.selected}"]`);
    if (!row) return;
    // The table's own scroll only: the window stays put, since the pointer is on the dump.
    const head = box.querySelector('thead')?.getBoundingClientRect().height ?? 0;
    const top = row.offsetTop - head;
    if (top < box.scrollTop || row.offsetTop + row.offsetHeight > box.scrollTop + box.clientHeight) box.scrollTop = Math.max(0, top - box.clientHeight / 3);
  }, [p.reveal, p.selected]);
  const table = (
    <div className="items-scroll" ref={scroller} onMouseLeave={() => p.onHover(null)}>
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
            const why = notTuple.get(lp);
            return (
              <tr
                key={i}
                data-lp={lp}
                data-not-tuple={why === undefined ? undefined : 'true'}
                tabIndex={0}
                aria-selected={p.selected === lp}
                className={p.selected === lp ? 'sel' : undefined}
                onClick={() => p.onSelect(lp)}
                onKeyDown={(e) => {
                  if (e.key !== 'Enter' && e.key !== ' ') return;
                  e.preventDefault();
                  p.onSelect(lp);
                }}
              >
                {(why === undefined ? cols : lpCols).map((c) => {
                  const s = byCell.get(`${lp}:${c}`);
                  const text = cell(row[c]);
                  // Opaque bytes (t_data, data) show cut to one line; the title holds them whole.
                  const whole = s === undefined || s.kind === 'bytes' || s.kind === undefined;
                  return (
                    <td key={c} data-col={c} title={whole ? text || undefined : s.value} onMouseEnter={s ? () => p.onHover(s) : undefined}>
                      {text}
                    </td>
                  );
                })}
                {why !== undefined && (
                  <td
                    data-col="not_a_tuple"
                    className="not-tuple"
                    colSpan={cols.length - lpCols.length}
                    title="The bytes this line pointer frames are no tuple header: verify_heapam checks the item no further, and the header columns pageinspect would print from them are left out"
                  >
                    not a tuple: {why}
                  </td>
                )}
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
  // A header of noise counts no real line pointers: its "items" stay folded, as bytes that
  // mean nothing, and open only when asked for.
  return p.counted ? (
    <>
      <h3 data-testid="items-count">Items ({p.items.length})</h3>
      {table}
    </>
  ) : (
    <details className="items-noise" data-testid="items-noise-table">
      <summary>
        <h3 data-testid="items-count" data-count="unknown">
          Items: none known. The header is not one PostgreSQL writes, so the page shows no line pointers. Show the {p.items.length.toLocaleString('en-US')} that
          its pd_lower would count, as bytes that mean nothing
        </h3>
      </summary>
      {table}
    </details>
  );
});
