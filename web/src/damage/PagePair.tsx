// The open page beside another page of the same block (a copy's, a full-page image's from
// WAL), as the damage panel compares them, with the button that puts the other in the kit.
import { useMemo, useState, type ReactNode } from 'react';
import { pageVerdict } from '../lib/pageVerdict';
import { diffPage, type Wasm } from '../core';
import type { DamagePanelProps } from './DamagePanel';
import { putKitPage, useDamageState } from './store';

/** Rows of 16 bytes shown around each change. */
const CONTEXT_ROWS = 1;

/** The open page (A) beside another page of the same block (B: a copy's, a WAL image's): the
 * decoded fields that differ, the changed bytes with a row of context, and a button that puts
 * B in the repair kit (its checksum recomputed for the block). */
/** The bytes a full-page image leaves out: its hole, pd_lower to pd_upper of its own header
 * (XLogRecordBlockImageHeader's hole_offset and hole_length); null when the header gives none. */
export function imageHole(b: Uint8Array, bigEndian: boolean): [number, number] | null {
  if (b.length < 24) return null;
  const v = new DataView(b.buffer, b.byteOffset, b.byteLength);
  const lower = v.getUint16(12, !bigEndian);
  const upper = v.getUint16(14, !bigEndian);
  return lower >= 24 && upper > lower && upper <= b.length ? [lower, upper] : null;
}

export function PagePair(
  p: DamagePanelProps & {
    wasm: Wasm;
    b: Uint8Array;
    other: string;
    from: string;
    viewId: string;
    takeId: string;
    take?: string;
    /** B is a full-page image: its hole is not compared (the image does not carry it). */
    image?: boolean;
    children?: ReactNode;
  },
) {
  const { page, wasm, entry } = p;
  const hole = p.image ? imageHole(p.b, page.bigEndian) : null;
  // Compared: B with its hole taken from A, so that only what the image carries differs.
  const b = useMemo(() => {
    if (!hole) return p.b;
    const c = p.b.slice();
    c.set(page.bytes.subarray(hole[0], hole[1]), hole[0]);
    return c;
  }, [p.b, page.bytes, hole?.[0], hole?.[1]]);
  const [error, setError] = useState<string | null>(null);
  const { kits } = useDamageState();
  const inKit = kits.get(entry.id)?.get(page.block);
  const compared = useMemo(
    () => diffPage(wasm, page.block, page.bytes, b, page.bigEndian, entry.pgVersion ?? undefined),
    [b, page.bytes, page.block, page.bigEndian, entry.pgVersion, wasm],
  );
  const copyVerdict = useMemo(
    () =>
      pageVerdict(wasm, p.b, {
        block: page.block,
        blockSize: page.blockSize,
        segment: entry.segment,
        blocks: Math.floor(entry.size / page.blockSize),
        bigEndian: page.bigEndian,
      }),
    [p.b, wasm, page.block, page.blockSize, page.bigEndian, entry.segment, entry.size],
  );
  const changed = new Uint8Array(page.bytes.length);
  for (let i = 0; i < changed.length; i++) changed[i] = page.bytes[i] !== b[i] ? 1 : 0;
  const rows: number[] = [];
  const totalRows = Math.ceil(page.bytes.length / 16);
  const want = new Uint8Array(totalRows);
  for (let r = 0; r < totalRows; r++) {
    if (!changed.subarray(r * 16, r * 16 + 16).some((x) => x)) continue;
    for (let k = Math.max(0, r - CONTEXT_ROWS); k <= Math.min(totalRows - 1, r + CONTEXT_ROWS); k++) want[k] = 1;
  }
  want.forEach((x, r) => x && rows.push(r));
  const base = page.block * page.blockSize;
  const take = () => {
    try {
      const fixed = wasm.repair_page(page.bytes, p.b, 0, 0, page.absoluteBlock >>> 0, page.bigEndian);
      putKitPage(entry.id, page.block, { page: fixed, from: p.from });
      setError(null);
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
    }
  };
  return (
    <div className="sidebyside" data-testid={p.viewId} data-state="done" data-block={page.block}>
      <h4>
        Block {page.block}: A (this file, {page.status}) beside B ({p.other}, {copyVerdict.status})
      </h4>
      {hole && (
        <p className="note" data-testid="image-hole">
          B is a full-page image: it does not carry its hole, bytes {hole[0]} to {hole[1] - 1} (pd_lower to pd_upper, free space), which are not compared.
        </p>
      )}
      {compared.fields.length > 0 && (
        <table className="diff-fields" data-testid="diff-fields">
          <thead>
            <tr>
              <th>decoded field</th>
              <th>A (this file)</th>
              <th>B ({p.other})</th>
            </tr>
          </thead>
          <tbody>
            {compared.fields.map((f) => (
              <tr key={f.field} data-field={f.field}>
                <th>
                  <code>{f.field}</code>
                </th>
                <td>{f.a}</td>
                <td>{f.b}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <div className="diffhex">
        {rows.map((r, i) => (
          <div key={r} className={i > 0 && rows[i - 1] !== r - 1 ? 'gap hexrow' : 'hexrow'}>
            <span className="hexoff">{(base + r * 16).toString(16).padStart(8, '0')}</span>
            {[page.bytes, p.b].map((bytes, side) => (
              <span key={side} className="hexbytes" data-side={side === 0 ? 'a' : 'b'}>
                {Array.from(bytes.subarray(r * 16, r * 16 + 16), (x, k) => (
                  <span
                    key={k}
                    className={changed[r * 16 + k] ? 'b changed' : 'b'}
                    data-off={r * 16 + k}
                    data-changed={changed[r * 16 + k] ? 'true' : undefined}
                  >
                    {x.toString(16).padStart(2, '0')}
                  </span>
                ))}
              </span>
            ))}
          </div>
        ))}
      </div>
      {p.children}
      <p>
        {p.take !== undefined && (
          <>
            <button type="button" data-testid={p.takeId} disabled={inKit?.from === p.from} onClick={take}>
              {p.take}
            </button>{' '}
          </>
        )}
        {copyVerdict.status !== 'ok' && copyVerdict.status !== 'zero' && <span className="warn">B is not sound either ({copyVerdict.status}).</span>}
        {error && (
          <span className="error" role="alert">
            {' '}
            {error}
          </span>
        )}
      </p>
    </div>
  );
}
