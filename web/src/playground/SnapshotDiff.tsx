// Two snapshots compared: files that appeared or went away (a new relfilenode after VACUUM
// FULL), and per changed page the changed bytes and header fields (the core's diff_page) and
// the decoded item columns that changed (t_xmax set, infomask flags, lp_flags, a new line
// pointer), which is what a lesson asks the learner to look at; above each page's fields, the
// core's one sentence of what happened to it (page_story) and its checksum verdict in each.
import { useEffect, useState } from 'react';
import type { FileEntry } from '../files';
import { plural } from '../lib/report';
import { decodeWithCore, fileKindOf } from '../lib/spans';
import { diffPage, loadWasm, pageStory, type Change, type PageStory, type Wasm } from '../core';
import type { LessonExpect } from './lessons';
import type { Snapshot, SnapFile } from './Playground';

const BS = 8192;

/** One changed column of an item (or a header field, or the file itself). */
export interface FieldDiff {
  field: string;
  a: string;
  b: string;
}

/** One thing that happened to a page, as the core's page_story names it. */
export type PageChange = Change;

export interface PageDiffRow {
  relation: string;
  /** The relation's oid (a TOAST pointer's va_toastrelid names its TOAST table by it). */
  oid: number;
  fork: string;
  path: string;
  block: number;
  /** only_a / only_b: the page is in one snapshot only (the file grew or shrank). */
  state: 'different' | 'only_a' | 'only_b';
  bytesChanged: number;
  ranges: [number, number][];
  fields: FieldDiff[];
  /** What happened to the page, in the core's words. */
  story: PageStory;
  /** The page's checksum verdict (verify's status) in each snapshot; null where it is absent. */
  checksum: { a: string | null; b: string | null };
}

export interface SnapshotComparison {
  /** Relations whose file changed name: VACUUM FULL, TRUNCATE, REINDEX. */
  filenodes: { relation: string; a: number; b: number }[];
  added: string[];
  removed: string[];
  pages: PageDiffRow[];
}

// Columns that restate the bytes or repeat another column.
const SKIP = new Set(['t_data', 'data', 'lp_off']);

function value(v: unknown): string {
  if (v === undefined) return '-';
  return typeof v === 'string' ? v : JSON.stringify(v);
}

function itemChanges(
  w: Wasm,
  a: Uint8Array | null,
  b: Uint8Array | null,
  block: number,
  fork: string,
  kindA: string,
  kindB: string,
  columns: string | null,
): FieldDiff[] {
  // The columns as the server has them now: the TOAST headers and BRIN summaries decode.
  const c = fork === 'main' ? (columns ?? undefined) : undefined;
  const ia = a ? decodeWithCore(w, a, block, false, fork, kindA, 18, { columns: c }).items : [];
  const ib = b ? decodeWithCore(w, b, block, false, fork, kindB, 18, { columns: c }).items : [];
  const out: FieldDiff[] = [];
  for (let i = 0; i < Math.max(ia.length, ib.length); i++) {
    const x = ia[i];
    const y = ib[i];
    if (!x || !y) out.push({ field: `item ${i + 1}`, a: x ? 'present' : '-', b: y ? 'present' : '-' });
    // A new (or gone) item's columns too: a lesson reads HEAP_ONLY_TUPLE off the new version.
    for (const k of new Set([...Object.keys(x ?? {}), ...Object.keys(y ?? {})])) {
      if (SKIP.has(k)) continue;
      const [vx, vy] = [value(x?.[k]), value(y?.[k])];
      if (vx !== vy) out.push({ field: `item ${i + 1} ${k}`, a: vx, b: vy });
    }
  }
  return out;
}

const STATUS = ['ok', 'mismatch', 'zero', 'new_not_zero', 'bad_header'];

function checksumStatus(w: Wasm, page: Uint8Array | null, block: number): string | null {
  if (!page) return null;
  const v = w.verify(page, block, BS, false);
  const status = STATUS[v.status[0]] ?? null;
  v.free();
  return status;
}

// A verdict in words. Only a mismatch is a failed checksum: an all-zero page (a fork extended
// ahead and never written) has none to verify, and the server takes it as new.
const WAS: Record<string, string> = {
  ok: 'checksum passed',
  mismatch: 'checksum failed',
  zero: 'all zeros (a new page: no checksum to verify)',
  new_not_zero: 'pd_upper 0 but not all zeros (the server refuses it)',
  bad_header: "checksum matched but the header failed the server's sanity checks",
};
const NOW: Record<string, string> = {
  ok: 'passes',
  mismatch: 'fails',
  zero: 'all zeros',
  new_not_zero: 'pd_upper 0 but not all zeros',
  bad_header: "the header fails the server's sanity checks",
};

/** "checksum failed in snapshot 2, passes now", in words true of both verdicts. */
function verdictChange(a: string, b: string, step: number): string {
  const checksums = (s: string) => s === 'ok' || s === 'mismatch';
  const now = checksums(b) && !checksums(a) ? `checksum ${NOW[b]}` : (NOW[b] ?? b);
  return `${WAS[a] ?? a} in snapshot ${step}, ${now} now`;
}

function storyOf(w: Wasm, a: Uint8Array | null, b: Uint8Array | null, block: number, fork: string, kind: string): PageStory {
  if (!b) return { changes: [], sentence: '' };
  return pageStory(w, a ?? new Uint8Array(0), b, block, false, fork, kind);
}

/** The story and checksum verdicts of a page that differs. */
function said(w: Wasm, a: Uint8Array | null, b: Uint8Array | null, block: number, fork: string, kind: string): Pick<PageDiffRow, 'story' | 'checksum'> {
  return { story: storyOf(w, a, b, block, fork, kind), checksum: { a: checksumStatus(w, a, block), b: checksumStatus(w, b, block) } };
}

async function bytesOf(e: FileEntry): Promise<Uint8Array> {
  return new Uint8Array(await e.file.arrayBuffer());
}

/** Compares every file two snapshots share, page by page. */
export async function compareSnapshots(w: Wasm, a: Snapshot, b: Snapshot): Promise<SnapshotComparison> {
  const inA = new Map(a.files.map((f) => [f.path, f]));
  const inB = new Map(b.files.map((f) => [f.path, f]));
  const filenodes: SnapshotComparison['filenodes'] = [];
  for (const f of b.files) {
    const old = a.files.find((x) => x.relation.oid === f.relation.oid && x.fork === 'main');
    if (f.fork === 'main' && old && old.relation.filenode !== f.relation.filenode)
      filenodes.push({ relation: f.relation.name, a: old.relation.filenode, b: f.relation.filenode });
  }
  const pages: PageDiffRow[] = [];
  const pairs: [SnapFile | undefined, SnapFile][] = b.files.map((f) => [inA.get(f.path), f]);
  for (const [fa, fb] of pairs) {
    if (fa && fa.entry.id === fb.entry.id) continue;
    const [x, y] = await Promise.all([fa ? bytesOf(fa.entry) : Promise.resolve(new Uint8Array(0)), bytesOf(fb.entry)]);
    const kind = (bytes: Uint8Array) =>
      bytes.length >= BS ? fileKindOf(w, bytes.subarray(0, Math.min(bytes.length, w.detect_head_bytes())), BS, false, fb.fork) : '';
    const [kx, ky] = [kind(x), kind(y)];
    const blocks = Math.max(x.length, y.length) / BS;
    for (let block = 0; block < blocks; block++) {
      const pa = block * BS < x.length ? x.subarray(block * BS, (block + 1) * BS) : null;
      const pb = block * BS < y.length ? y.subarray(block * BS, (block + 1) * BS) : null;
      const base = { relation: fb.relation.name, oid: fb.relation.oid, fork: fb.fork, path: fb.path, block };
      if (pa && pb) {
        const d = diffPage(w, block, pa, pb, false);
        if (!d.page) continue;
        const told = said(w, pa, pb, block, fb.fork, ky || kx);
        pages.push({
          ...base,
          ...told,
          state: 'different',
          bytesChanged: d.page.bytes_changed,
          ranges: d.page.ranges,
          fields: [...d.fields, ...itemChanges(w, pa, pb, block, fb.fork, kx, ky, fb.relation.columns)],
        });
      } else {
        const told = said(w, pa, pb, block, fb.fork, ky || kx);
        pages.push({
          ...base,
          ...told,
          state: pa ? 'only_a' : 'only_b',
          bytesChanged: BS,
          ranges: [[0, BS]],
          fields: itemChanges(w, pa, pb, block, fb.fork, kx || ky, ky || kx, fb.relation.columns),
        });
      }
    }
  }
  return {
    filenodes,
    added: b.files.filter((f) => !inA.has(f.path)).map((f) => f.path),
    removed: a.files.filter((f) => !inB.has(f.path)).map((f) => f.path),
    pages,
  };
}

export function SnapshotDiff({ a, b, open, expect = [] }: { a: Snapshot; b: Snapshot; open(e: FileEntry, block: number): void; expect?: LessonExpect[] }) {
  const [diff, setDiff] = useState<SnapshotComparison | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    let live = true;
    setDiff(null);
    loadWasm()
      .then((w) => compareSnapshots(w, a, b))
      .then((d) => live && setDiff(d))
      .catch((e: unknown) => live && setError(e instanceof Error ? e.message : String(e)));
    return () => {
      live = false;
    };
  }, [a, b]);
  if (error) return <p className="error">The snapshots could not be compared: {error}</p>;
  if (!diff)
    return (
      <p data-testid="snap-diff" data-state="running">
        Comparing…
      </p>
    );
  const entryOf = (path: string) => b.files.find((f) => f.path === path)?.entry;
  return (
    <div className="play-diff" data-testid="snap-diff" data-state="done">
      <h3>
        What snapshot {b.step} changed since {a.step}
      </h3>
      {expect.length > 0 && (
        <ul className="lesson-checks" data-testid="lesson-checks">
          {expect.map((x) => {
            const ok = x.test(diff);
            return (
              <li key={x.what} data-testid="lesson-check" data-ok={ok ? 'true' : 'false'}>
                {/* A missed expectation is said as one: a bare ✗ before the sentence reads as its denial or as a fact. */}
                {ok ? `✓ ${x.what}` : `expected, did not happen: ${x.what}`}
              </li>
            );
          })}
        </ul>
      )}
      {diff.filenodes.map((f) => (
        <p key={f.relation} data-testid="diff-filenode" data-relation={f.relation} data-a={f.a} data-b={f.b}>
          {f.relation}: a new file, relfilenode {f.a} → {f.b} (pg_relation_filenode)
        </p>
      ))}
      {diff.added.length > 0 && <p data-testid="diff-added">New files: {diff.added.join(', ')}</p>}
      {diff.removed.length > 0 && <p data-testid="diff-removed">Files gone: {diff.removed.join(', ')}</p>}
      {diff.pages.length === 0 && diff.added.length === 0 && <p>No page changed.</p>}
      {diff.pages.map((p) => {
        const e = entryOf(p.path);
        const verdictChanged = p.checksum.a !== p.checksum.b && p.checksum.a !== null && p.checksum.b !== null;
        return (
          <div
            key={`${p.path}:${p.block}`}
            className="play-diff-page"
            data-testid="diff-page"
            data-relation={p.relation}
            data-fork={p.fork}
            data-block={p.block}
            data-state={p.state}
          >
            <p className="play-diff-head">
              <strong>
                {p.relation} {p.fork !== 'main' ? `(${p.fork}) ` : ''}block {p.block}
              </strong>
              :{' '}
              {p.state === 'different'
                ? `${plural(p.bytesChanged, 'byte')} changed in ${plural(p.ranges.length, 'run')}`
                : p.state === 'only_b'
                  ? 'a new page'
                  : 'the page is gone'}
              {verdictChanged && (
                <span className="play-diff-checksum" data-testid="diff-checksum" data-a={p.checksum.a ?? ''} data-b={p.checksum.b ?? ''}>
                  {' '}
                  · {verdictChange(p.checksum.a ?? '', p.checksum.b ?? '', a.step)}
                </span>
              )}{' '}
              {e && e.size > p.block * BS && (
                <button type="button" className="link" onClick={() => open(e, p.block)}>
                  show
                </button>
              )}
            </p>
            {p.story.sentence && (
              <p className="play-diff-sentence" data-testid="diff-sentence">
                {p.story.sentence}
              </p>
            )}
            {p.fields.length > 0 && (
              <details open={diff.pages.length <= 2 && !p.story.sentence}>
                <summary>
                  the {p.fields.length} decoded field{p.fields.length === 1 ? '' : 's'} that changed
                </summary>
                <table>
                  <thead>
                    <tr>
                      <th>field</th>
                      <th>snapshot {a.step}</th>
                      <th>snapshot {b.step}</th>
                    </tr>
                  </thead>
                  <tbody>
                    {p.fields.map((f, i) => (
                      <tr key={i} data-testid="diff-field" data-field={f.field} data-a={f.a} data-b={f.b}>
                        <td>{f.field}</td>
                        <td>{f.a}</td>
                        <td>{f.b}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </details>
            )}
          </div>
        );
      })}
    </div>
  );
}
