// The damage panel under the page view: which single-bit flips would explain the page's
// checksum mismatch, the comparison of the open file with a copy of it (a backup, a standby's),
// and the repair kit: a repaired copy of the file to download (the file itself is only read),
// or, without a good copy, what pg_surgery and the server's settings would do to the page.
import { useEffect, useMemo, useRef, useState } from 'react';
import type { FileEntry } from '../files';
import { namesOf } from '../files';
import { fileGeometry, headBytes } from '../lib/geometry';
import type { LoadedPage } from '../lib/pageVerdict';
import { download, spliceEdits } from '../lab/splice';
import { loadWasm, pageAdvice, pageAdviceWith, runTexts, setHeaderField, tornRebuilt, type FieldFix, type ReportBlock, type Wasm } from '../core';
import type { BitFlips, FlipCandidate, PageDiff } from './protocol';
import { clearComparison, damageWorker, putKitPage, startComparison, useDamageState, type Comparison, type KitPage } from './store';
import { PagePair } from './PagePair';
import { WalPanel } from './WalPanel';
import { recoveredIndex } from './WalRebuild';
import { locationOf, useWalState } from './walStore';
import { shownReport } from '../report/shown';
import { structureHintsOf } from '../lib/spans';
import './damage.css';

/** The incident report's finding on this page, when a report of its data directory is shown:
 * it knows the table's columns and indexes, which the page alone does not. */
function useReportBlock(entry: FileEntry, block: number): ReportBlock | null {
  const report = shownReport.use();
  return useMemo(() => {
    if (!report || !entry.path.startsWith(report.root)) return null;
    const file = entry.path.slice(report.root.length);
    for (const rel of report.report.relations) for (const b of rel.blocks) if (b.file === file && b.block_in_file === block) return b;
    return null;
  }, [report, entry.path, block]);
}

/** The report finds the page torn: some of its sectors from another write than its header's. */
const tornAt = (told: ReportBlock | null): boolean => (told?.torn_sectors?.length ?? 0) > 0;

/** The candidates in the core's rank order, each with its rank and reason; the report's ranks
 * where it ranked them with the table's columns (one ranking on every screen). */
function ranked(f: BitFlips, told?: ReportBlock['bit_flips']): { c: FlipCandidate; r: BitFlips['ranks'][number] | undefined }[] {
  const fromReport = (c: FlipCandidate) => {
    const t = told?.find((x) => x.byte === c.offset && x.bit === c.bit);
    return t && { offset: c.offset, bit: c.bit, rank: t.rank, why: t.why };
  };
  const rankOf = (c: FlipCandidate) => fromReport(c) ?? f.ranks.find((r) => r.offset === c.offset && r.bit === c.bit);
  return f.candidates.map((c) => ({ c, r: rankOf(c) })).sort((a, b) => (a.r?.rank ?? Number.MAX_SAFE_INTEGER) - (b.r?.rank ?? Number.MAX_SAFE_INTEGER));
}

/** A bit-flip candidate shown in the hex view. */
export interface FlipMark {
  block: number;
  offset: number;
  bit: number;
  byte: number;
  flipped: number;
  field: string;
}

export interface DamagePanelProps {
  entry: FileEntry;
  files: readonly FileEntry[];
  page: LoadedPage;
  onBlock(block: number): void;
  flip: FlipMark | null;
  onFlip(flip: FlipMark | null): void;
  /** The report calls the page overwritten and the core finds its header is not a page
   * header: no single flip explains it, so none is searched for or offered. */
  overwritten?: boolean;
}

const hex2 = (b: number): string => `0x${b.toString(16).padStart(2, '0')}`;
const fmt = (n: number): string => String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
/** `1 byte`, `13,521 bytes`. */
const plural = (n: number, one: string): string => `${fmt(n)} ${n === 1 ? one : `${one}s`}`;

export function DamagePanel(p: DamagePanelProps) {
  const [wasm, setWasm] = useState<Wasm | null>(null);
  // An all-zero page passes its checks, but the report may find its rows lost: its WAL image
  // is then the page to restore.
  const told = useReportBlock(p.entry, p.page.block);
  useEffect(() => {
    void loadWasm().then(setWasm);
  }, []);
  if (!wasm) return null;
  return (
    <section className="damage" data-testid="damage-panel">
      <h3>Damage and repair</h3>
      {p.page.status === 'mismatch' && p.page.computed !== null && !p.overwritten && !tornAt(told) && <BitFlipPanel {...p} />}
      {tornAt(told) && (
        <p data-testid="bitflips-skipped">
          No single-bit flip is offered: the incident report finds this page torn, which explains its checksum; a flip that makes the checksum valid would be
          chance. The Repair kit below rebuilds it.
        </p>
      )}
      {p.overwritten && (
        <p data-testid="bitflips-skipped">
          No single-bit flip is searched for: the incident report finds this page overwritten, and its header is not a PostgreSQL page header, so its line
          pointers and counts mean nothing.
        </p>
      )}
      {((p.page.status !== 'ok' && p.page.status !== 'zero') || told !== null) && <WalPanel {...p} wasm={wasm} />}
      <ComparePanel {...p} wasm={wasm} />
      <RepairKit {...p} wasm={wasm} />
    </section>
  );
}

function BitFlipPanel(p: DamagePanelProps) {
  const { page } = p;
  const told = useReportBlock(p.entry, page.block);
  const [result, setResult] = useState<{ bytes: Uint8Array; flips: BitFlips; ms: number } | { bytes: Uint8Array; error: string } | null>(null);
  useEffect(() => {
    let live = true;
    const w = damageWorker();
    const job = w.job();
    w.on(job, (m) => {
      if (!live) return;
      if (m.type === 'flips') setResult({ bytes: page.bytes, flips: m.flips, ms: m.ms });
      else if (m.type === 'error') setResult({ bytes: page.bytes, error: m.message });
    });
    w.post({
      type: 'flips',
      job,
      page: page.bytes.slice(),
      absoluteBlock: page.absoluteBlock,
      bigEndian: page.bigEndian,
      fork: p.entry.fork,
      fileKind: page.decoded.kind,
    });
    return () => {
      live = false;
    };
  }, [page.bytes, page.absoluteBlock, page.bigEndian, page.decoded.kind, p.entry.fork]);
  const current = result && result.bytes === page.bytes ? result : null;
  const shown = p.flip && p.flip.block === page.block ? p.flip : null;
  // The outlined byte brought into view once its row is rendered (the dump renders in steps).
  useEffect(() => {
    if (!shown) return;
    let tries = 0;
    let frame = 0;
    const find = () => {
      const el = document.querySelector(`[data-testid=hexview] [data-off="${shown.offset}"]`);
      if (el) el.scrollIntoView({ block: 'center' });
      else if (tries++ < 60) frame = requestAnimationFrame(find);
    };
    frame = requestAnimationFrame(find);
    return () => cancelAnimationFrame(frame);
  }, [shown]);
  const show = (c: FlipCandidate) => p.onFlip({ block: page.block, offset: c.offset, bit: c.bit, byte: c.byte, flipped: c.flipped, field: c.field });
  return (
    <div
      className="bitflips"
      data-testid="bitflips"
      data-state={current === null ? 'running' : 'error' in current ? 'error' : 'done'}
      data-ms={current && 'flips' in current ? current.ms.toFixed(3) : undefined}
    >
      <h4>Single-bit flips that would explain the checksum</h4>
      {current === null && <p>Trying every one of the page's {fmt(page.bytes.length * 8)} bits…</p>}
      {current && 'error' in current && <p className="error">{current.error}</p>}
      {current && 'flips' in current && (
        <>
          <p data-testid="flip-odds">
            {current.flips.odds}. <small>(Searched in {current.ms.toFixed(2)} ms.)</small>
          </p>
          {current.flips.candidates.length > 0 && (
            <table className="flips">
              <thead>
                <tr>
                  <th>byte offset</th>
                  <th>bit</th>
                  <th>field</th>
                  <th>byte now → flipped</th>
                  <th>page after the flip</th>
                  <th>rank, and why</th>
                  <th>hex view</th>
                </tr>
              </thead>
              <tbody>
                {ranked(current.flips, told?.bit_flips).map(({ c, r }) => {
                  const sel = shown?.offset === c.offset && shown.bit === c.bit;
                  return (
                    <tr
                      key={`${c.offset}:${c.bit}`}
                      data-testid="flip-candidate"
                      data-offset={c.offset}
                      data-bit={c.bit}
                      data-valid={c.structurally_valid}
                      className={sel ? 'sel' : undefined}
                    >
                      <td>
                        <span className="cell-label">byte offset: </span>
                        {c.offset} <small>(0x{c.offset.toString(16)})</small>
                      </td>
                      <td>
                        <span className="cell-label">bit: </span>
                        {c.bit}
                      </td>
                      <td>
                        <span className="cell-label">field: </span>
                        <code>{c.field || '—'}</code>
                      </td>
                      <td>
                        <span className="cell-label">byte now → flipped: </span>
                        {hex2(c.byte)} → {hex2(c.flipped)}
                      </td>
                      <td>
                        <span className="cell-label">page after the flip: </span>
                        {c.structurally_valid ? 'structurally valid' : `still wrong: ${c.findings.join(', ')}`}
                      </td>
                      <td data-testid="flip-rank" data-rank={r?.rank ?? ''}>
                        <span className="cell-label">rank, and why: </span>
                        {r ? `${r.rank}. ${r.why}` : 'not ranked'}
                      </td>
                      <td>
                        <button
                          type="button"
                          onClick={() => (sel ? p.onFlip(null) : show(c))}
                          aria-pressed={sel}
                          aria-label={`${sel ? 'Hide' : 'Show in hex view'}: byte ${c.offset}, bit ${c.bit} flipped`}
                        >
                          {sel ? 'Hide' : 'Show in hex view'}
                        </button>
                      </td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          )}
          {shown && (
            <p className="flip-shown" data-testid="flip-shown">
              Outlined in the hex view: byte {shown.offset} (file offset {page.block * page.blockSize + shown.offset}), bit {shown.bit}: {hex2(shown.byte)}{' '}
              would be <strong>{hex2(shown.flipped)}</strong>
              {shown.field && (
                <>
                  , in <code>{shown.field}</code>
                </>
              )}
              . <FlipToKit {...p} flip={shown} />
            </p>
          )}
        </>
      )}
    </div>
  );
}

function FlipToKit(p: DamagePanelProps & { flip: FlipMark }) {
  const [error, setError] = useState<string | null>(null);
  const { page, flip } = p;
  return (
    <>
      <button
        type="button"
        data-testid="kit-add-flip"
        onClick={() => {
          void loadWasm().then((w) => {
            try {
              const fixed = w.repair_page(page.bytes, undefined, flip.offset, flip.bit, page.absoluteBlock >>> 0, page.bigEndian);
              putKitPage(p.entry.id, page.block, { page: fixed, from: `bit ${flip.bit} of byte ${flip.offset} flipped back` });
              setError(null);
            } catch (e) {
              setError(e instanceof Error ? e.message : String(e));
            }
          });
        }}
      >
        Put this flip in the repaired copy
      </button>
      {error && <span className="error"> {error}</span>}
    </>
  );
}

/** Other loaded files that are the same relation file (same relfilenode, fork and segment, or
 * the same name): a backup dropped beside the live file, even loose with the same name. */
function twinsOf(entry: FileEntry, files: readonly FileEntry[]): FileEntry[] {
  return files.filter((f) => {
    if (f.id === entry.id || f.file === entry.file) return false;
    if (f.rel && entry.rel) return f.rel.relfilenode === entry.rel.relfilenode && f.rel.fork === entry.rel.fork && f.rel.segment === entry.rel.segment;
    return f.name === entry.name;
  });
}

function ComparePanel(p: DamagePanelProps & { wasm: Wasm }) {
  const { entry, page, wasm } = p;
  const { comparisons } = useDamageState();
  const c = comparisons.get(entry.id) ?? null;
  const [refused, setRefused] = useState<string | null>(null);
  const input = useRef<HTMLInputElement>(null);
  const twins = twinsOf(entry, p.files);

  const compareWith = async (copy: File, copyPath: string) => {
    // Two files of different relations are never compared as copies of one.
    const mine = entry.rel;
    const theirs = namesOf(wasm, copy.name).rel;
    if (mine && theirs && (mine.relfilenode !== theirs.relfilenode || mine.fork !== theirs.fork || mine.segment !== theirs.segment)) {
      setRefused(
        `${entry.name} and ${copy.name} are files of different relations (relfilenode ${mine.relfilenode} fork ${mine.fork} segment ${mine.segment} against relfilenode ${theirs.relfilenode} fork ${theirs.fork} segment ${theirs.segment}): not compared.`,
      );
      return;
    }
    const head = new Uint8Array(await copy.slice(0, headBytes(wasm)).arrayBuffer());
    const g = fileGeometry(wasm, head, entry.choice, true);
    if (!('error' in g) && !g.blockSizeAssumed && head.some((x) => x !== 0) && (g.blockSize !== page.blockSize || g.bigEndian !== page.bigEndian)) {
      setRefused(
        `${copy.name} is not a copy of ${entry.name}: its pages are ${g.blockSize}-byte ${g.bigEndian ? 'big' : 'little'}-endian, this file's ${page.blockSize}-byte ${page.bigEndian ? 'big' : 'little'}-endian.`,
      );
      return;
    }
    setRefused(null);
    startComparison(entry.id, entry.file, copy, copyPath, page.blockSize, page.bigEndian);
  };

  return (
    <div className="compare" data-testid="compare">
      <h4>Compare with a copy</h4>
      <p>
        A backup, a standby's file or the same file before an incident, page by page: which pages differ, which copy is newer by <code>pd_lsn</code>, and the
        differences in bits and 512-byte sectors.{' '}
        <button type="button" data-testid="compare-pick" onClick={() => input.current?.click()}>
          Compare with a copy…
        </button>
        <input
          ref={input}
          type="file"
          hidden
          data-testid="compare-input"
          onChange={(e) => {
            const f = e.target.files?.[0];
            if (f) void compareWith(f, f.name);
            e.target.value = '';
          }}
        />
        {twins.map((t) => (
          <button key={t.id} type="button" data-testid="compare-with" data-path={t.path} onClick={() => void compareWith(t.file, t.path)}>
            Compare with {t.path === entry.path ? `the other ${t.path} dropped (${fmt(t.size)} bytes)` : t.path}
          </button>
        ))}
      </p>
      {refused && (
        <p className="error" role="alert" data-testid="compare-refused">
          {refused}
        </p>
      )}
      {c && <ComparisonView {...p} c={c} />}
    </div>
  );
}

function ComparisonView(p: DamagePanelProps & { wasm: Wasm; c: Comparison }) {
  const { c, entry, page } = p;
  // Every difference, and apart from them the damage: the differing pages of this file that
  // fail verification or that the incident report finds damaged (a zeroed page verifies); a
  // page that differs but verifies may simply be newer or older.
  const report = shownReport.use();
  const failing = useMemo(() => {
    const blocks = new Set(entry.problems.filter((x) => x.problem).map((x) => x.block));
    if (report && entry.path.startsWith(report.root)) {
      const file = entry.path.slice(report.root.length);
      for (const rel of report.report.relations) for (const b of rel.blocks) if (b.file === file) blocks.add(b.block_in_file);
    }
    return blocks;
  }, [entry.problems, entry.path, report]);
  // Pages written for another block: their pd_lsn is that block's, so which copy is newer by
  // it says nothing of this block.
  const holds = useMemo(() => {
    const m = new Map<number, number>();
    for (const x of entry.problems) if (x.misplaced?.claim) m.set(x.block, x.misplaced.block);
    if (report && entry.path.startsWith(report.root)) {
      const file = entry.path.slice(report.root.length);
      for (const rel of report.report.relations)
        for (const b of rel.blocks) if (b.file === file && b.holds_block !== undefined) m.set(b.block_in_file, b.holds_block);
    }
    return m;
  }, [entry.problems, entry.path, report]);
  const totals = useMemo(() => {
    const sum = (pages: readonly PageDiff[]) => {
      let bytes = 0,
        set = 0,
        cleared = 0,
        sectors = 0;
      for (const d of pages) {
        bytes += d.bytes_changed;
        set += d.bits_set;
        cleared += d.bits_cleared;
        sectors += d.sectors.length;
      }
      return { pages: pages.length, bytes, set, cleared, sectors };
    };
    return { all: sum(c.pages), damaged: sum(c.pages.filter((d) => failing.has(d.block))) };
  }, [c.pages, failing]);
  const here = c.pages.find((d) => d.block === page.block) ?? null;
  return (
    <div className="comparison">
      <p
        data-testid="compare-summary"
        data-state={c.state}
        data-different={c.summary?.different}
        data-only-a={c.summary?.only_a}
        data-only-b={c.summary?.only_b}
      >
        <strong>{entry.path}</strong> (this file) against <strong>{c.copyPath}</strong> (the copy, taken as the good one):{' '}
        {c.state === 'running' && (
          <>
            comparing… {Math.floor((100 * c.bytesDone) / Math.max(1, c.bytesTotal))}% <progress max={c.bytesTotal} value={c.bytesDone} />
          </>
        )}
        {c.state === 'error' && <span className="error">{c.error}</span>}
        {c.state === 'done' && c.summary && (
          <>
            {/* The core's A is the copy, its B this file (store.ts). */}
            {plural(c.summary.blocks_b, 'block')} in this file, {fmt(c.summary.blocks_a)} in the copy: {fmt(c.summary.equal)} equal, {fmt(c.summary.different)}{' '}
            different, {fmt(c.summary.only_b)} only in this file, {fmt(c.summary.only_a)} only in the copy.{' '}
            {c.summary.different > 0 && (
              <>
                <span data-testid="difference-summary" data-pages={totals.all.pages} data-bytes={totals.all.bytes}>
                  Differences: {plural(totals.all.bytes, 'byte')} in {plural(totals.all.sectors, '512-byte sector')} of {plural(totals.all.pages, 'page')}.
                </span>{' '}
                <span
                  data-testid="damage-summary"
                  data-pages={totals.damaged.pages}
                  data-bytes={totals.damaged.bytes}
                  data-bits-set={totals.damaged.set}
                  data-bits-cleared={totals.damaged.cleared}
                >
                  {totals.damaged.pages === 0
                    ? 'Damage: none; every differing page verifies in this file and the incident report names none (pages differ as they change over time: see which is newer by pd_lsn).'
                    : `Damage, in the ${totals.damaged.pages === 1 ? 'differing page that fails' : `${fmt(totals.damaged.pages)} differing pages that fail`} verification in this file or that the incident report finds damaged: ${plural(totals.damaged.bytes, 'byte')} changed in ${plural(totals.damaged.sectors, '512-byte sector')}; ${plural(totals.damaged.set, 'bit')} 1 in this file where the copy has 0, ${plural(totals.damaged.cleared, 'bit')} 0 where the copy has 1.`}
                  {totals.damaged.pages > 0 &&
                    totals.all.pages > totals.damaged.pages &&
                    ` The other ${plural(totals.all.pages - totals.damaged.pages, 'differing page')} verify and the report names none of them: they differ as pages change over time (see which is newer by pd_lsn).`}
                </span>
              </>
            )}
          </>
        )}{' '}
        <button type="button" onClick={() => clearComparison(entry.id)}>
          Close comparison
        </button>
      </p>
      {c.pages.length > 0 && (
        <div className="diff-list">
          <table>
            <thead>
              <tr>
                <th>block</th>
                <th>state</th>
                <th>newer by pd_lsn</th>
                <th>bytes changed</th>
                <th title="set: 1 in this file, 0 in the copy; cleared: 0 in this file, 1 in the copy">bits set / cleared in this file</th>
                <th>512-byte sectors</th>
                <th>changed bytes (from..to, as pgpage diff prints them)</th>
              </tr>
            </thead>
            <tbody>
              {c.pages.slice(0, 1000).map((d) => (
                <tr
                  key={d.block}
                  data-testid="diff-page"
                  data-block={d.block}
                  data-state={d.state}
                  data-newer={d.newer}
                  data-damaged={failing.has(d.block) ? 'true' : undefined}
                  className={d.block === page.block ? 'sel' : undefined}
                  tabIndex={0}
                  onClick={() => p.onBlock(d.block)}
                  onKeyDown={(e) => e.key === 'Enter' && p.onBlock(d.block)}
                >
                  <td>{d.block}</td>
                  <td>
                    {d.state === 'different' ? 'different' : d.state === 'only_b' ? 'only in this file' : 'only in the copy'}
                    {failing.has(d.block) ? ', damaged' : d.state === 'only_a' ? '' : ', verifies'}
                    {d.hints_only && (
                      <span data-testid="hints-only">
                        ; only hint bits and free space differ (pd_lsn, pd_checksum, pd_flags, pd_prune_xid, t_infomask&apos;s commit hints, the bytes between
                        pd_lower and pd_upper): the same rows
                      </span>
                    )}
                  </td>
                  <td data-testid="diff-newer">
                    {holds.has(d.block)
                      ? `not comparable: this file's page is block ${holds.get(d.block)}'s, with that block's pd_lsn`
                      : d.newer === 'b'
                        ? 'this file'
                        : d.newer === 'a'
                          ? 'the copy'
                          : d.newer === 'same'
                            ? 'same'
                            : "unknown (a header that is not a page's holds no pd_lsn)"}
                  </td>
                  <td>{d.bytes_changed}</td>
                  <td data-bits-set={d.bits_set} data-bits-cleared={d.bits_cleared}>
                    {d.bits_set} / {d.bits_cleared}
                  </td>
                  <td>{d.sectors.join(', ')}</td>
                  <td>
                    {d.ranges
                      .slice(0, 6)
                      .map(([o, l]) => `${o}..${o + l}`)
                      .join(', ')}
                    {d.ranges.length > 6 && ` and ${d.ranges.length - 6} more`}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {c.state === 'done' && here && here.state === 'different' && <SideBySide {...p} diff={here} />}
      {c.state === 'done' && !here && (
        <p data-testid="diff-view" data-equal="true">
          Block {page.block} is the same in both copies.
        </p>
      )}
    </div>
  );
}

function SideBySide(p: DamagePanelProps & { wasm: Wasm; c: Comparison; diff: PageDiff }) {
  const { page, c } = p;
  const [copyPage, setCopyPage] = useState<{ block: number; bytes: Uint8Array } | null>(null);
  useEffect(() => {
    let live = true;
    const bs = page.blockSize;
    void c.copy
      .slice(page.block * bs, (page.block + 1) * bs)
      .arrayBuffer()
      .then((b) => live && setCopyPage({ block: page.block, bytes: new Uint8Array(b) }));
    return () => {
      live = false;
    };
  }, [c.copy, page.block, page.blockSize]);
  const b = copyPage && copyPage.block === page.block && copyPage.bytes.length === page.bytes.length ? copyPage.bytes : null;
  if (!b) return <div data-testid="diff-view" data-state="loading" />;
  return (
    <PagePair
      {...p}
      b={b}
      other="the copy"
      from={`block ${page.block} of ${c.copyPath}`}
      viewId="diff-view"
      takeId="kit-add-copy"
      take={`Take the copy's page for block ${page.block}`}
    />
  );
}

function RepairKit(p: DamagePanelProps & { wasm: Wasm }) {
  const { entry, page, wasm } = p;
  const { kits } = useDamageState();
  const kit = kits.get(entry.id) ?? new Map<number, KitPage>();
  const problem = page.status !== 'ok' && page.status !== 'zero';
  const rel = entry.naming?.relation ?? null;
  const table = rel && (rel.relkind === 'r' || rel.relkind === 'm' || rel.relkind === 't') ? wasm.quote_table(rel.schema ?? 'public', rel.name) : undefined;
  // The incident report's finding on this page: a torn page's older write (it reads the table's
  // indexes, which tell older versions of rows the page alone cannot), and the flips ranked with
  // the table's columns.
  const told = useReportBlock(entry, page.block);
  const torn = tornAt(told) ? told : null;
  // The WAL panel's rebuild of this block from its image and the records after it: the page
  // the server's recovery writes, which the rows-as-read rebuild of a torn page is not.
  const { scans } = useWalState();
  const walScan = scans.get(entry.id);
  const loc = locationOf(entry);
  const fromWal =
    walScan && entry.rel && loc.dbOid !== null && loc.spcOid !== null
      ? walScan.recovered[
          recoveredIndex(walScan, {
            relfilenode: entry.rel.relfilenode,
            fork: entry.fork,
            block: page.absoluteBlock,
            database_oid: loc.dbOid,
            tablespace_oid: loc.spcOid,
          })
        ]
      : undefined;
  const advice = useMemo(() => {
    if (!problem) return null;
    try {
      const structure = structureHintsOf(wasm, entry);
      const older = torn?.torn_sectors ? Uint32Array.from(torn.torn_sectors) : undefined;
      const items = torn?.torn_items ? Uint16Array.from(torn.torn_items) : undefined;
      const moved = torn?.torn_moved ? Uint16Array.from(torn.torn_moved.flatMap((m) => [m.lp, m.lp_off])) : undefined;
      return structure
        ? pageAdviceWith(
            wasm,
            structure.hints,
            structure.entry,
            page.bytes,
            page.absoluteBlock >>> 0,
            page.bigEndian,
            entry.fork,
            page.decoded.kind,
            table,
            entry.rel?.relfilenode,
            older,
            items,
            moved,
          )
        : pageAdvice(
            wasm,
            page.bytes,
            page.absoluteBlock >>> 0,
            page.bigEndian,
            entry.fork,
            page.decoded.kind,
            table,
            entry.rel?.relfilenode,
            older,
            items,
            moved,
          );
    } catch {
      return null;
    }
  }, [problem, wasm, page.bytes, page.absoluteBlock, page.bigEndian, entry, page.decoded.kind, table, torn]);
  const [copied, setCopied] = useState(false);
  const [tornError, setTornError] = useState<string | null>(null);
  const [fieldError, setFieldError] = useState<string | null>(null);
  // One header field out of range on a page that is otherwise its own: the core names the
  // value, which its stored checksum confirms where it has one.
  const fix = advice?.header_field ?? told?.header_field ?? null;
  if (kit.size === 0 && !advice && !torn) return null;
  const setField = (f: FieldFix) => {
    const force = !f.verifying.includes(f.value);
    try {
      const fixed = setHeaderField(wasm, page.bytes, page.absoluteBlock >>> 0, page.bigEndian, f, force);
      putKitPage(entry.id, page.block, { page: fixed, from: `${f.field} set back to ${f.value} (as pgpage repair --set${force ? ' --force' : ''})` });
      setFieldError(null);
    } catch (e) {
      setFieldError(e instanceof Error ? e.message : String(e));
    }
  };
  const rebuild = (t: ReportBlock) => {
    try {
      const rebuilt = tornRebuilt(wasm, page.bytes, page.absoluteBlock >>> 0, page.bigEndian, t);
      putKitPage(entry.id, page.block, { page: rebuilt, from: 'the page rebuilt as its rows read (as pgpage repair --torn)' });
      setTornError(null);
    } catch (e) {
      setTornError(e instanceof Error ? e.message : String(e));
    }
  };
  return (
    <div className="repair-kit" data-testid="repair-kit">
      <h4>Repair kit</h4>
      {torn && (
        <p data-testid="kit-torn">
          {fromWal?.recovered && fromWal.records_after_start > 0 && (
            <strong data-testid="kit-torn-wal">
              The WAL rebuilds this block with every change after its image (&quot;Rebuild block {page.block} from WAL&quot; above): use that first; the rebuild
              here keeps only what the tear left.{' '}
            </strong>
          )}
          {(torn.noise?.length ?? 0) > 0
            ? `The incident report finds random bytes written over ${torn.noise!.map((r) => `about bytes ${r.start}-${r.end - 1}`).join(', ')} of this page. Rebuilt, the line pointers whose tuples the bytes cover are made dead, but for rows the page holds elsewhere, and every other leads to its row`
            : `The incident report finds this page torn (sectors ${runTexts(wasm, torn.torn_sectors!)} from another write than sector 0, its header and line pointers). Rebuilt, each line pointer leads to its row where the page still holds it and those whose tuple the tear took are made dead`}
          : the server then reads the {typeof torn.rows?.readable === 'number' ? `${torn.rows.readable} rows` : 'rows'} the report counts readable, and the rows
          it counts lost stay lost. The rebuilt page is not marked all-visible: if the table&apos;s visibility map still marks the block so, delete its _vm file
          before starting the server, or run VACUUM (DISABLE_PAGE_SKIPPING) on the table, or index-only scans return rows the page no longer has.{' '}
          {torn.torn_refused ? (
            <span data-testid="kit-torn-refused">
              It cannot be rebuilt here ({torn.torn_refused}): the ways left are pgpage recover --block {page.block} (the page as the WAL makes it) and pgpage
              rows --include-damaged (the rows that read).
            </span>
          ) : (
            <button type="button" data-testid="kit-add-torn" onClick={() => rebuild(torn)}>
              {(torn.noise?.length ?? 0) > 0 ? 'Rebuild the page without them' : 'Rebuild the torn page'} (as pgpage repair --torn)
            </button>
          )}
          {tornError && (
            <span className="error" role="alert">
              {' '}
              {tornError}
            </span>
          )}
        </p>
      )}
      {fix && (
        <p data-testid="kit-field" data-field={fix.field} data-value={fix.value} data-confirmed={fix.confirmed}>
          {fix.confirmed
            ? `${fix.field} is ${fix.stored}; the stored checksum verifies with ${fix.field} = ${fix.value}: the header's one field is damaged, the rest of the page is its own. Set back, the page is exactly as the server wrote it, every row kept, which no older copy of it gives. `
            : `${fix.field} is ${fix.stored}; its line pointers give ${fix.field} = ${fix.value}, a candidate no checksum confirms (${
                !fix.has_checksum
                  ? 'the page has no checksum'
                  : fix.verifying.length > 1
                    ? 'the stored checksum verifies with several values of it'
                    : 'the stored checksum verifies with no value of it: more bytes than this field changed'
              }). Set, the server reads the page through it: check the rows it gives before putting the copy in place. `}
          <button type="button" data-testid="kit-add-field" onClick={() => setField(fix)}>
            Set {fix.field} back to {fix.value} (as pgpage repair --set{fix.verifying.includes(fix.value) ? '' : ' --force'})
          </button>
          {fieldError && (
            <span className="error" role="alert">
              {' '}
              {fieldError}
            </span>
          )}
        </p>
      )}
      {kit.size > 0 && (
        <>
          <ul data-testid="kit-pages">
            {[...kit.entries()]
              .sort(([a], [b]) => a - b)
              .map(([block, k]) => (
                <li key={block} data-block={block}>
                  block {block}: {k.from}, {k.checksum ?? `checksum recomputed for relation block ${page.absoluteBlock - page.block + block}`}{' '}
                  <button type="button" onClick={() => putKitPage(entry.id, block, null)}>
                    Remove
                  </button>
                </li>
              ))}
          </ul>
          <button
            type="button"
            data-testid="repair-download"
            onClick={() => download(spliceEdits(entry.file, new Map([...kit].map(([b, k]) => [b, k.page])), page.blockSize), entry.name)}
          >
            Download repaired copy of {entry.name} ({kit.size} page{kit.size === 1 ? '' : 's'} replaced)
          </button>
          <p className="note">
            Your file is never written. Stop the server, keep the damaged file aside, put the repaired copy in its place, check it with{' '}
            <code>pg_checksums --check</code>, start the server and run amcheck (<code>verify_heapam</code>, <code>bt_index_check</code>). A copy older than the
            damaged page lacks the changes made since its <code>pd_lsn</code>.
          </p>
        </>
      )}
      {advice && (
        <div data-testid="repair-advice">
          <p>Without a good copy, what the server's own tools would do to this page:</p>
          <ul>
            <li data-testid="advice-zero">{advice.zero_damaged_pages}.</li>
            <li data-testid="advice-ignore">{advice.ignore_checksum_failure}.</li>
          </ul>
          {/* A torn page's flips that make the checksum valid are chance: the tear explains the mismatch. */}
          {advice.bit_flips && !p.overwritten && !torn && (
            <div data-testid="advice-flips">
              <p>
                Single-bit flips that make the stored checksum valid, most likely first (flipping the right one back restores the page exactly, which pg_surgery
                never does): {advice.bit_flips.odds}.
              </p>
              <ol>
                {(told?.bit_flips?.length ? told.bit_flips : advice.bit_flips.candidates).map((c) => (
                  <li key={`${c.byte}-${c.bit}`} data-testid="advice-flip" data-byte={c.byte} data-bit={c.bit} data-rank={c.rank}>
                    byte {c.byte} bit {c.bit} (<code>{c.field}</code>){c.item !== undefined ? `, item ${c.item}` : ''}
                    {c.column !== undefined && c.stored !== undefined && c.flipped !== undefined
                      ? `, column ${c.column}: stored ${c.stored}, flipped back ${c.flipped}`
                      : ''}
                    : {c.why}
                  </li>
                ))}
              </ol>
            </div>
          )}
          {advice.surgery_sql && (
            <>
              <pre data-testid="surgery-sql">{advice.surgery_sql}</pre>
              <button
                type="button"
                onClick={() =>
                  void navigator.clipboard.writeText(advice.surgery_sql!).then(
                    () => setCopied(true),
                    () => setCopied(false),
                  )
                }
              >
                Copy pg_surgery SQL
              </button>
              {copied && <span role="status"> copied</span>}
            </>
          )}
        </div>
      )}
    </div>
  );
}
