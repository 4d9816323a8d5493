// A heap page's line pointers as a row of boxes (LP_NORMAL, LP_REDIRECT, LP_DEAD, LP_UNUSED)
// with t_xmin and t_xmax in each, arrows for redirects and for the t_ctid links of HOT chains.
// Every fact comes from the core's heap_lines; this file only lays the boxes out.
import { useEffect, useLayoutEffect, useRef, useState } from 'react';
import type { FileEntry } from '../files';
import { heapLines, loadWasm, type HeapLines, type LineItem } from '../core';

const BS = 8192;

const BOX_W = 64;
const BOX_H = 54;
const GAP_X = 6;
/** Room above each row for the arcs of arrows. */
const ARC = 30;
const ROW_H = BOX_H + ARC + 8;

const SHORT: Record<LineItem['lp_flags'], string> = { LP_NORMAL: 'normal', LP_REDIRECT: 'redirect', LP_DEAD: 'dead', LP_UNUSED: 'unused' };
/** The word in a box's corner: none for LP_NORMAL, the most common. */
const LABEL: Record<LineItem['lp_flags'], string> = { LP_NORMAL: '', LP_REDIRECT: 'redir', LP_DEAD: 'dead', LP_UNUSED: 'unused' };

function describe(it: LineItem): string {
  const parts = [`lp ${it.lp}: ${it.lp_flags}`];
  if (it.redirect_to !== undefined) parts.push(`redirects to lp ${it.redirect_to}`);
  if (it.t_xmin !== undefined) parts.push(`t_xmin ${it.t_xmin}${it.xmin_frozen ? ' (HEAP_XMIN_FROZEN)' : it.xmin_committed ? ' (HEAP_XMIN_COMMITTED)' : ''}`);
  if (it.t_xmax !== undefined) parts.push(`t_xmax ${it.t_xmax}${it.xmax_lock_only ? ' (lock only)' : ''}`);
  if (it.hot_updated) parts.push('HEAP_HOT_UPDATED');
  if (it.heap_only) parts.push('HEAP_ONLY_TUPLE');
  if (it.hot_next !== undefined) parts.push(`HOT chain continues at lp ${it.hot_next}`);
  if (it.updated_to) parts.push(`newer version at ${it.updated_to}`);
  if (it.t_ctid && it.hot_next === undefined && !it.updated_to) parts.push(`t_ctid ${it.t_ctid}`);
  return parts.join(', ');
}

/** The picture of block `block` of a heap file on screen. */
export function LinePointers({ entry, block, relation }: { entry: FileEntry; block: number; relation: string }) {
  // undefined while reading; null for a new page (no heap layout yet).
  const [lines, setLines] = useState<HeapLines | null | undefined>(undefined);
  const [error, setError] = useState<string | null>(null);
  const [width, setWidth] = useState(800);
  const box = useRef<HTMLDivElement>(null);

  useEffect(() => {
    let live = true;
    setLines(undefined);
    setError(null);
    Promise.all([loadWasm(), entry.file.slice(block * BS, (block + 1) * BS).arrayBuffer()])
      .then(([w, buf]) => {
        const page = new Uint8Array(buf);
        if (page.length < BS) throw new Error(`block ${block} is past the end of the file`);
        if (live) setLines(heapLines(w, page, block, false));
      })
      .catch((e: unknown) => live && setError(e instanceof Error ? e.message : String(e)));
    return () => {
      live = false;
    };
  }, [entry, block]);

  useLayoutEffect(() => {
    const el = box.current;
    if (!el) return;
    const measure = () => setWidth(el.clientWidth || 800);
    measure();
    const ro = new ResizeObserver(measure);
    ro.observe(el);
    return () => ro.disconnect();
  }, []);

  const title = `Line pointers of ${relation} block ${block}`;
  if (error) return <p className="error">The line pointers could not be read: {error}</p>;
  const items = lines?.items ?? [];
  const perRow = Math.max(3, Math.floor((width + GAP_X) / (BOX_W + GAP_X)));
  const rows = Math.max(1, Math.ceil(items.length / perRow));
  const svgW = Math.min(items.length, perRow) * (BOX_W + GAP_X);
  const at = (lp: number) => {
    const i = lp - 1;
    return { x: (i % perRow) * (BOX_W + GAP_X), y: Math.floor(i / perRow) * ROW_H + ARC };
  };
  const arrows: { kind: 'redirect' | 'hot'; from: number; to: number }[] = [];
  for (const it of items) {
    if (it.redirect_to !== undefined && it.redirect_to >= 1 && it.redirect_to <= items.length)
      arrows.push({ kind: 'redirect', from: it.lp, to: it.redirect_to });
    if (it.hot_next !== undefined && it.hot_next >= 1 && it.hot_next <= items.length) arrows.push({ kind: 'hot', from: it.lp, to: it.hot_next });
  }
  const redirects = arrows.filter((a) => a.kind === 'redirect').length;
  const hots = arrows.filter((a) => a.kind === 'hot').length;
  return (
    <section className="lp-picture" data-testid="lp-picture" data-block={block} data-relation={relation} ref={box} aria-label={title}>
      <h3>{title}</h3>
      {!lines ? (
        <p>{lines === undefined ? 'Reading…' : 'A new page: no line pointers.'}</p>
      ) : (
        <>
          <p className="lp-legend">
            {items.length} line pointers, {redirects} redirect{redirects === 1 ? '' : 's'}, {hots} HOT link{hots === 1 ? '' : 's'}
            {lines.all_visible ? ', PD_ALL_VISIBLE' : ''}
            {lines.pd_prune_xid !== 0 ? `, pd_prune_xid ${lines.pd_prune_xid}` : ''}. Boxes without a word are LP_NORMAL. Dashed arrows: LP_REDIRECT; solid
            arrows: t_ctid of a HEAP_HOT_UPDATED tuple to the next version (HEAP_ONLY_TUPLE, marked <span className="lp-ho-key">HOT</span>).
          </p>
          <div className="lp-scroll">
            <svg role="img" aria-labelledby={`lp-title-${block}`} width={svgW} height={rows * ROW_H} viewBox={`0 0 ${svgW} ${rows * ROW_H}`}>
              <title id={`lp-title-${block}`}>{`${title}: ${items.map(describe).join('; ')}`}</title>
              <defs>
                {(['redirect', 'hot'] as const).map((k) => (
                  <marker key={k} id={`lp-head-${k}`} viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse">
                    <path d="M 0 0 L 10 5 L 0 10 z" className={`lp-arrowhead-${k}`} />
                  </marker>
                ))}
              </defs>
              {items.map((it) => {
                const { x, y } = at(it.lp);
                return (
                  <g
                    key={it.lp}
                    className={`lp-box lp-${SHORT[it.lp_flags]}${it.heap_only ? ' lp-heap-only' : ''}`}
                    data-testid="lp-box"
                    data-lp={it.lp}
                    data-flags={it.lp_flags}
                    data-heap-only={it.heap_only ? 'true' : 'false'}
                    data-hot-updated={it.hot_updated ? 'true' : 'false'}
                  >
                    <title>{describe(it)}</title>
                    <rect x={x + 0.5} y={y + 0.5} width={BOX_W - 1} height={BOX_H - 1} rx={4} />
                    <text x={x + 4} y={y + 13} className="lp-num">
                      {it.lp}
                    </text>
                    <text x={x + BOX_W - 4} y={y + 13} textAnchor="end" className="lp-flag">
                      {it.heap_only ? 'HOT' : LABEL[it.lp_flags]}
                    </text>
                    {it.t_xmin !== undefined && (
                      <text x={x + 4} y={y + 29} className="lp-xid">
                        {it.xmin_frozen ? 'frozen' : `xmin ${it.t_xmin}`}
                      </text>
                    )}
                    {it.t_xmax !== undefined && it.t_xmax !== 0 && (
                      <text x={x + 4} y={y + 44} className="lp-xid">
                        xmax {it.t_xmax}
                      </text>
                    )}
                    {it.redirect_to !== undefined && (
                      <text x={x + 4} y={y + 29} className="lp-xid">
                        → lp {it.redirect_to}
                      </text>
                    )}
                  </g>
                );
              })}
              {arrows.map((a) => {
                const p = at(a.from);
                const q = at(a.to);
                const x1 = p.x + BOX_W / 2 - 6;
                const x2 = q.x + BOX_W / 2 + 6;
                // In one row: an arc above it. Across rows: down into the gap under the source's
                // row, along it to the gap between columns left of the target, along that to the
                // gap above the target's row, and down into the target: never across a box.
                const gapX = q.x === 0 ? BOX_W + GAP_X / 2 : q.x - GAP_X / 2;
                const d =
                  p.y === q.y
                    ? `M ${x1} ${p.y} C ${x1} ${p.y - ARC + 4}, ${x2} ${q.y - ARC + 4}, ${x2} ${q.y}`
                    : `M ${x1} ${p.y + BOX_H} V ${p.y + BOX_H + 6} H ${gapX} V ${q.y - ARC / 2} H ${x2} V ${q.y}`;
                return (
                  <g
                    key={`${a.kind}:${a.from}`}
                    className={`lp-arrow lp-arrow-${a.kind}`}
                    data-testid="lp-arrow"
                    data-kind={a.kind}
                    data-from={a.from}
                    data-to={a.to}
                  >
                    <title>
                      {a.kind === 'redirect'
                        ? `lp ${a.from} redirects to lp ${a.to}`
                        : `lp ${a.from} (HEAP_HOT_UPDATED): its t_ctid names lp ${a.to}, the next version`}
                    </title>
                    <path d={d} markerEnd={`url(#lp-head-${a.kind})`} />
                  </g>
                );
              })}
            </svg>
          </div>
        </>
      )}
    </section>
  );
}
