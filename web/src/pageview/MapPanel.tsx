// A visibility map page as a grid of heap blocks and their two bits, and a free space map
// page as its tree: the page's level in the FSM, its binary tree level by level, and the
// leaf slots with the heap blocks (or lower FSM pages) they stand for. The numbers come from
// the core (lib/maps.ts); this file only lays them out.
import { useState, type ReactElement } from 'react';
import './pageview.css';
import type { FsmMap, MapPage, VmMap } from '../lib/maps';

/** Heap blocks (or leaf slots) per grid row and per screenful of rows. */
const PER_ROW = 32;
const PER_SCREEN = 64 * PER_ROW;

const n = (v: number) => v.toLocaleString('en-US');

export function MapPanel(p: { map: MapPage; block: number }) {
  return p.map.kind === 'vm' ? <VmGrid map={p.map} block={p.block} /> : <FsmTree map={p.map} block={p.block} />;
}

/** The cells `from..to` (end exclusive) of a grid, `PER_ROW` a row, each row labelled. */
function Grid(p: { from: number; to: number; label(i: number): string; cell(i: number): ReactElement; testid: string; caption: string }) {
  const rows = [];
  for (let r = p.from; r < p.to; r += PER_ROW) {
    const cells = [];
    for (let i = r; i < Math.min(r + PER_ROW, p.to); i++) cells.push(p.cell(i));
    rows.push(
      <div className="mapgrid-row" key={r}>
        <span className="mapgrid-label">{p.label(r)}</span>
        <span className="mapgrid-cells">{cells}</span>
      </div>,
    );
  }
  return (
    <div className="mapgrid" data-testid={p.testid} role="group" aria-label={p.caption}>
      {rows}
    </div>
  );
}

/** Which screenful of a long grid shows; the buttons move by one. */
function usePaging(total: number): { from: number; to: number; nav: ReactElement | null } {
  const [screen, setScreen] = useState(0);
  const last = Math.max(0, Math.ceil(total / PER_SCREEN) - 1);
  const at = Math.min(screen, last);
  const from = at * PER_SCREEN;
  const to = Math.min(total, from + PER_SCREEN);
  const nav =
    last === 0 ? null : (
      <nav className="mapgrid-nav">
        <button type="button" disabled={at === 0} onClick={() => setScreen(at - 1)}>
          earlier
        </button>{' '}
        <button type="button" disabled={at === last} onClick={() => setScreen(at + 1)}>
          later
        </button>{' '}
        <span>
          screen {at + 1} of {last + 1}
        </span>
      </nav>
    );
  return { from, to, nav };
}

const VM_WORDS = [
  'neither bit set',
  'all-visible',
  'all-frozen without all-visible (the server sets all-frozen only with all-visible)',
  'all-visible and all-frozen',
];
const VM_LETTER = ['·', 'v', '!', 'F'];

function VmGrid(p: { map: VmMap; block: number }) {
  const { map } = p;
  let lastSet = -1;
  let visible = 0;
  let frozen = 0;
  map.bits.forEach((b, i) => {
    if (b !== 0) lastSet = i;
    if (b & 1) visible++;
    if (b & 2) frozen++;
  });
  // Up to the last block with a bit set, whole rows: past it every pair is 0 0 to the end.
  const shown = lastSet < 0 ? 0 : Math.ceil((lastSet + 1) / PER_ROW) * PER_ROW;
  const { from, to, nav } = usePaging(Math.min(shown, map.bits.length));
  const first = map.firstHeapBlock;
  const lastBlock = first + map.heapBlocks - 1;
  return (
    <section className="mappanel" data-testid="vm-map" data-first-heap-block={first} data-heap-blocks={map.heapBlocks}>
      <h3>
        Visibility map: heap blocks {n(first)} to {n(lastBlock)}
      </h3>
      <p>
        VM block {p.block} holds two bits for each of <strong>{n(map.heapBlocks)}</strong> heap blocks (heap_blocks: what one VM page can describe, a capacity,
        not the table's size: the visibility map does not record how many heap blocks exist).{' '}
        {lastSet < 0 ? (
          <>No bit is set: no heap block of this range is known all-visible or all-frozen.</>
        ) : (
          <>
            {n(visible)} blocks all-visible, {n(frozen)} all-frozen; the last with a bit set is heap block {n(first + lastSet)}, and every block after it reads
            0 0.
          </>
        )}
      </p>
      {shown > 0 && (
        <>
          <p className="legend">
            {[1, 3, 0, 2].map((b) => (
              <span key={b} className="legend-item">
                <span className={`vmcell vm-${b}`}>{VM_LETTER[b]}</span> {VM_WORDS[b]}
              </span>
            ))}
          </p>
          {nav}
          <Grid
            testid="vm-grid"
            caption={`visibility map bits of heap blocks ${first + from} to ${first + to - 1}`}
            from={from}
            to={to}
            label={(i) => `${first + i}`}
            cell={(i) => {
              const b = map.bits[i];
              return (
                <span key={i} className={`vmcell vm-${b}`} data-heap-block={first + i} data-bits={b} title={`heap block ${first + i}: ${VM_WORDS[b]}`}>
                  {VM_LETTER[b]}
                </span>
              );
            }}
          />
        </>
      )}
    </section>
  );
}

function FsmTree(p: { map: FsmMap; block: number }) {
  const { map } = p;
  const leaves = map.levels[map.levels.length - 1];
  const perSlot = map.heapBlocksPerSlot;
  const firstHeap = map.firstHeapBlock;
  const levelWords =
    map.level === null
      ? `FSM block ${p.block} lies past the FSM tree's last possible page; no FSM address maps to it.`
      : map.level === 0
        ? `FSM block ${p.block} is a leaf page (FSM level 0, page ${map.logicalPage} of its level): each leaf slot stands for one heap block, from heap block ${n(firstHeap ?? 0)}.`
        : `FSM block ${p.block} is ${map.level === map.treeDepth - 1 ? 'the root page' : 'an inner page'} (FSM level ${map.level}, page ${map.logicalPage} of its level): each leaf slot stands for an FSM page of level ${map.level - 1}, that is ${n(perSlot ?? 0)} heap blocks, from heap block ${n(firstHeap ?? 0)}.`;
  let lastLeaf = -1;
  if (leaves) for (let i = 0; i < leaves.nodes; i++) if (map.nodes[leaves.first_node + i] !== 0) lastLeaf = i;
  const shown = lastLeaf < 0 ? 0 : Math.ceil((lastLeaf + 1) / PER_ROW) * PER_ROW;
  const { from, to, nav } = usePaging(Math.min(shown, leaves?.nodes ?? 0));
  const heapOf = (slot: number): string => {
    if (firstHeap === null || perSlot === null) return '';
    const a = firstHeap + slot * perSlot;
    return perSlot === 1 ? `heap block ${a}` : `heap blocks ${a} to ${a + perSlot - 1}`;
  };
  const bytes = (c: number) => `${c}: at least ${n(map.availByCategory[c] ?? 0)} bytes free`;
  return (
    <section className="mappanel" data-testid="fsm-map" data-fsm-level={map.level ?? ''} data-logical-page={map.logicalPage ?? ''}>
      <h3>Free space map: {map.level === null ? 'no FSM address' : `level ${map.level}, page ${map.logicalPage}`}</h3>
      <p>{levelWords}</p>
      <p>
        A node holds a free-space category (0 to 255, each {n(map.availByCategory[1] ?? 0)} bytes); an inner node holds the larger of its two children, so the
        root says how much the best slot below it has.
      </p>
      <table className="fsmlevels" data-testid="fsm-levels">
        <thead>
          <tr>
            <th>depth</th>
            <th>nodes</th>
            <th>non-zero</th>
            <th>largest</th>
            <th>values</th>
          </tr>
        </thead>
        <tbody>
          {map.levels.map((l) => {
            const vals = map.nodes.subarray(l.first_node, l.first_node + l.nodes);
            let nz = 0;
            let max = 0;
            for (const v of vals) {
              if (v) nz++;
              if (v > max) max = v;
            }
            const isLeaf = l === leaves;
            return (
              <tr key={l.depth} data-testid="fsm-level" data-depth={l.depth} data-max={max} data-nonzero={nz}>
                <td>
                  {l.depth}
                  {l.depth === 0 ? ' (root)' : isLeaf ? ' (leaf slots)' : ''}
                </td>
                <td>
                  {l.first_node}–{l.first_node + l.nodes - 1}
                </td>
                <td>{nz}</td>
                <td title={bytes(max)}>{max}</td>
                <td>
                  {l.nodes <= 16 ? (
                    Array.from(vals, (v, i) => (
                      <span key={i} className="fsmnode" title={`node ${l.first_node + i}: category ${bytes(v)}`}>
                        {v}
                      </span>
                    ))
                  ) : (
                    <span className="muted">{isLeaf ? 'below' : `${l.nodes} nodes`}</span>
                  )}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
      {leaves && (
        <>
          <h4>Leaf slots {perSlot === 1 ? 'and the heap blocks they stand for' : 'and the heap blocks below them'}</h4>
          {shown === 0 ? (
            <p>Every leaf slot is 0: no free space recorded.</p>
          ) : (
            <>
              <p>
                Rows are labelled with their first slot and {perSlot === 1 ? 'heap block' : 'first heap block'}; every slot after {lastLeaf} is 0.
              </p>
              {nav}
              <Grid
                testid="fsm-leaves"
                caption={`leaf slots ${from} to ${to - 1}`}
                from={from}
                to={to}
                label={(i) => (firstHeap === null || perSlot === null ? `slot ${i}` : `slot ${i}, heap ${firstHeap + i * perSlot}`)}
                cell={(i) => {
                  const v = map.nodes[leaves.first_node + i];
                  return (
                    <span
                      key={i}
                      className={`fsmcell${v ? '' : ' fsm-0'}`}
                      style={v ? { ['--fill' as string]: `${Math.round((v / 255) * 100)}%` } : undefined}
                      data-slot={i}
                      data-heap-block={firstHeap === null || perSlot === null ? undefined : firstHeap + i * perSlot}
                      data-category={v}
                      title={`slot ${i} (node ${leaves.first_node + i}), ${heapOf(i)}: category ${bytes(v)}`}
                    >
                      {v}
                    </span>
                  );
                }}
              />
            </>
          )}
        </>
      )}
    </section>
  );
}
