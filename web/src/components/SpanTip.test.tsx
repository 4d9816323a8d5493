// The hex dump's hover line on pages PostgreSQL wrote (tests/fixtures/*/page.bin and the
// first blocks of public/samples/*, decoded by the wasm core): hovering the first byte of
// every field shows that field's own row, `Structure.member` and a doc citing the header
// that declares the structure (a table written here by hand), never another structure's
// doc found by a shared bare name ("flags"). The bytes keep their bare name in data-field.
import { act, cleanup, fireEvent, render } from '@testing-library/react';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { useCallback, useMemo, useState } from 'react';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { decodeWithCore, fileKindOf, type Span } from '../lib/spans';
import type { Wasm } from '../core';
import { HexView } from './HexView';
import { SpanTip } from './SpanTip';
import { wasmFromDisk } from '../core/disk';

const ROOT = join(__dirname, '../../..');

/** The file that declares each structure, from PostgreSQL's source tree. */
const DECLARED_IN: Record<string, string> = {
  PageHeaderData: 'bufpage.h',
  ItemIdData: 'itemid.h',
  HeapTupleHeaderData: 'htup_details.h',
  IndexTupleData: 'itup.h',
  BTPageOpaqueData: 'nbtree.h',
  BTMetaPageData: 'nbtree.h',
  BTDeletedPageData: 'nbtree.h',
  BTreeTuple: 'nbtree.h',
  HashPageOpaqueData: 'hash.h',
  HashMetaPageData: 'hash.h',
  HashBitmapPage: 'hash.h',
  GISTPageOpaqueData: 'gist.h',
  GISTDeletedPageContents: 'gist.h',
  GinPageOpaqueData: 'ginblock.h',
  GinMetaPageData: 'ginblock.h',
  GinPostingList: 'ginblock.h',
  PostingItem: 'ginblock.h',
  GinDataPage: 'ginblock.h',
  SpGistPageOpaqueData: 'spgist_private.h',
  SpGistMetaPageData: 'spgist_private.h',
  SpGistInnerTupleData: 'spgist_private.h',
  SpGistLeafTupleData: 'spgist_private.h',
  SpGistDeadTupleData: 'spgist_private.h',
  BrinSpecialSpace: 'brin_page.h',
  BrinMetaPageData: 'brin_page.h',
  RevmapContents: 'brin_page.h',
  BrinTuple: 'brin_tuple.h',
  sequence_magic: 'commands/sequence.c',
  FormData_pg_sequence_data: 'commands/sequence.h',
  FSMPageData: 'storage/fsm_internals.h',
  VisibilityMapContents: 'access/visibilitymap',
};

interface Case {
  name: string;
  page: Uint8Array;
  fork: string;
  fileKind?: string;
}

/** The fixtures and the first `blocks` blocks of every sample file. */
function cases(w: Wasm, blocks: number): Case[] {
  const out: Case[] = [];
  const fixtures = join(ROOT, 'tests/fixtures');
  for (const d of readdirSync(fixtures).filter((x) => existsSync(join(fixtures, x, 'page.bin')))) {
    const want = JSON.parse(readFileSync(join(fixtures, d, 'expected.json'), 'utf8')) as { fork: string };
    out.push({ name: d, page: new Uint8Array(readFileSync(join(fixtures, d, 'page.bin'))), fork: want.fork });
  }
  const samples = join(ROOT, 'public/samples');
  const manifest = JSON.parse(readFileSync(join(samples, 'manifest.json'), 'utf8')) as { samples: { file: string; fork: string }[] };
  for (const s of manifest.samples) {
    const bytes = new Uint8Array(readFileSync(join(samples, s.file)));
    const fileKind = fileKindOf(w, bytes.subarray(0, 8 * 8192), 8192, false, s.fork);
    for (let b = 0; b < Math.min(blocks, bytes.length / 8192); b++) {
      out.push({ name: `${s.file} block ${b}`, page: bytes.slice(b * 8192, (b + 1) * 8192), fork: s.fork, fileKind });
    }
  }
  return out;
}

const NONE: ReadonlySet<string> = new Set();
const noop = () => undefined;

function Page(p: { bytes: Uint8Array; spans: Span[] }) {
  const [hover, setHover] = useState<{ span: Span | null; off: number | null }>({ span: null, off: null });
  const onHover = useCallback((span: Span | null, off: number | null) => setHover({ span, off }), []);
  // Stable props, as PageView's: a hover re-renders the hover line, not the dump.
  const data = useMemo(() => ({ length: p.bytes.length, slice: (s: number, e: number) => p.bytes.subarray(s, e) }), [p.bytes]);
  return (
    <>
      <SpanTip span={hover.span} off={hover.off} />
      <HexView data={data} baseOffset={0} spans={p.spans} markedFields={NONE} selectedItem={null} cursor={0} onCursor={noop} onHover={onHover} />
    </>
  );
}

describe('the hover line shows each field its own row', () => {
  let w: Wasm;
  beforeAll(async () => {
    w = await wasmFromDisk();
  });
  afterEach(() => {
    cleanup();
    vi.useRealTimers();
  });

  it('on every field of the fixtures and samples, the doc cites its own structure', () => {
    vi.useFakeTimers();
    // Each field once, on the first page that has it: rendering a whole dump
    // in jsdom takes seconds, so only pages that bring a field not yet hovered are drawn.
    const todo = new Map<Case, Span[]>();
    const first = new Set<string>();
    for (const c of cases(w, Infinity)) {
      const d = decodeWithCore(w, c.page, 0, false, c.fork, c.fileKind);
      for (const s of d.spans) {
        if (first.has(s.qualified)) continue;
        first.add(s.qualified);
        todo.set(c, [...(todo.get(c) ?? []), s]);
      }
    }
    const seen = new Set<string>();
    let hovered = 0;
    for (const [c, spans] of todo) {
      const d = decodeWithCore(w, c.page, 0, false, c.fork, c.fileKind);
      const v = render(<Page bytes={c.page} spans={d.spans} />);
      // The dump renders its rows a few at a time: let them all come.
      for (let i = 0; i < 50 && v.getByTestId('hexview').getAttribute('data-complete') !== 'true'; i++) act(() => void vi.advanceTimersByTime(10));
      expect(v.getByTestId('hexview').getAttribute('data-complete'), c.name).toBe('true');
      for (const s of spans) {
        const at = `${c.name}: ${s.qualified} at ${s.start}`;
        const byte = v.container.querySelector(`[data-off="${s.start}"]`)!;
        expect(byte, at).not.toBeNull();
        expect(byte.getAttribute('data-field'), at).toBe(s.field);
        act(() => void fireEvent.mouseOver(byte));
        const tip = v.getByTestId('hover');
        expect(tip.getAttribute('data-qualified'), at).toBe(s.qualified);
        const doc = v.getByTestId('hover-doc').textContent ?? '';
        const structure = s.qualified.split('.')[0];
        const header = DECLARED_IN[structure] ?? 'bufpage.h';
        expect(doc.startsWith(header), `${at}: ${doc}`).toBe(true);
        expect(v.getByTestId('hover-value').textContent, at).toBe(s.value);
        seen.add(structure);
        hovered++;
      }
      cleanup();
    }
    for (const t of [
      'ItemIdData',
      'GinPageOpaqueData',
      'SpGistPageOpaqueData',
      'SpGistLeafTupleData',
      'BrinSpecialSpace',
      'GISTPageOpaqueData',
      'HeapTupleHeaderData',
    ]) {
      expect(seen, t).toContain(t);
    }
    console.log(`hover line: ${hovered} fields on ${todo.size} pages`);
    expect(hovered).toBeGreaterThan(80);
  }, 120_000);

  it('names the fields the bug report named by their own structures', () => {
    vi.useFakeTimers();
    const want: [string, RegExp][] = [
      ['GinPageOpaqueData.flags', /^ginblock\.h: GinPageOpaqueData\.flags/],
      ['SpGistPageOpaqueData.flags', /^spgist_private\.h: SpGistPageOpaqueData\.flags/],
      ['BrinSpecialSpace.flags', /^brin_page\.h: BrinSpecialSpace/],
      ['SpGistLeafTupleData.t_info', /^spgist_private\.h: SpGistLeafTupleData\.t_info/],
      ['ItemIdData', /^itemid\.h: ItemIdData/],
    ];
    const all = cases(w, Infinity).flatMap((c) => decodeWithCore(w, c.page, 0, false, c.fork, c.fileKind).spans);
    for (const [q, doc] of want) {
      const s = all.find((x) => x.qualified === q);
      expect(s, q).toBeDefined();
      expect(s!.doc).toMatch(doc);
    }
    const lp = all.find((x) => x.qualified === 'ItemIdData')!;
    expect(lp.value).toMatch(/^lp_off=\d+ lp_flags=\d \w+ lp_len=\d+$/);
    const lsn = all.find((x) => x.qualified === 'PageHeaderData.pd_lsn')!;
    expect(lsn.value).toMatch(/^[0-9A-F]+\/[0-9A-F]+$/);
    expect(lsn.column).toBe('lsn');
  });
});
