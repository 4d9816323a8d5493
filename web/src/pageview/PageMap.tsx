// One cell per block, coloured by status (with a legend that names each colour and
// letter), drawn on a canvas so a million-block file is still one element. Click jumps;
// hovering names the block and its status; axes give the block numbers of rows and columns.
// The keyboard has the same path: Tab to the map, arrows move a highlighted cell (named in a
// live text and the tooltip), Enter opens its page.
import { useEffect, useRef, useState, type KeyboardEvent } from 'react';
import './pageview.css';
import { STATUS_LETTER, STATUS_NAMES, STATUS_WORDS, ZERO_NOTE_WORDS, type StatusName } from '../lib/status';
import { loadWasm } from '../core';

const PENDING = 255;
const NOT_PAINTED = 254;

export interface PageMapProps {
  statuses: Uint8Array;
  blocks: number;
  version: number;
  selected: number | null;
  checksumsDisabled: boolean;
  /** Runs of all-zero pages the core notes between pages with rows (zero_page_between_rows):
   * drawn with a mark and named so, not as fine new pages. */
  noted?: readonly { block: number; pages: number }[];
  /** Blocks that verify but the incident report finds wrong (a stale page, a key mismatch):
   * drawn with the mismatch colour's frame and named with the report's class. */
  told?: readonly { block: number; damage: string }[];
  onPick(block: number): void;
}

/** The page map's words for a block the report finds wrong though it verifies. */
export const TOLD_WORDS = 'verifies, but the incident report finds it wrong';

const isNoted = (noted: PageMapProps['noted'], b: number) => (noted ?? []).some((r) => b >= r.block && b < r.block + r.pages);

function colours(el: HTMLElement): string[] {
  const css = getComputedStyle(el);
  return STATUS_NAMES.map((s) => css.getPropertyValue(`--status-${s}`).trim() || '#888');
}

export function cellSize(blocks: number, width: number): number {
  const target = 360 * width;
  return Math.max(2, Math.min(14, Math.floor(Math.sqrt(target / Math.max(1, blocks)))));
}

/** The smallest of 1, 2, 5, 10, 20, 50, ... cells whose run is at least `px` wide. */
export function axisStep(cell: number, px: number): number {
  for (let k = 1; ; k *= 10) for (const m of [1, 2, 5]) if (m * k * cell >= px) return m * k;
}

/** The block under a point of the canvas, whose drawn size may be scaled from its own. */
export function blockAt(
  x: number,
  y: number,
  drawn: { width: number; height: number },
  canvas: { width: number; height: number },
  cell: number,
  cols: number,
): number {
  const sx = drawn.width > 0 ? canvas.width / drawn.width : 1;
  const sy = drawn.height > 0 ? canvas.height / drawn.height : 1;
  const col = Math.floor((x * sx) / cell);
  if (col < 0 || col >= cols) return -1;
  return Math.floor((y * sy) / cell) * cols + col;
}

/** What the page map says of a block: its number, its status as the core names it (`names`:
 * wasm `status_names`, indexed by code) and in the legend's words. */
export function blockWords(block: number, code: number | undefined, checksumsDisabled: boolean, names: readonly string[] | null, noted = false): string {
  if (code === undefined || code === PENDING) return `block ${block}: not yet verified`;
  const name = names?.[code];
  if (name === undefined) return `block ${block}`;
  if (noted && name === 'zero') return `block ${block}: zero — ${ZERO_NOTE_WORDS}`;
  if (checksumsDisabled && name === 'mismatch') return `block ${block}: checksums are off (not checked)`;
  const words = STATUS_WORDS[name as StatusName] as string | undefined;
  return words === undefined ? `block ${block}: ${name}` : `block ${block}: ${name} — ${words}`;
}

/** The cell the keys move to from `at` in a map of `blocks` blocks, `cols` a row; null for a
 * key the map does not take. Arrows by a cell and a row, Page Up/Down by ten rows, Home/End
 * to the row's ends, Ctrl+Home/End to the first and last block. */
export function keyStep(key: string, ctrl: boolean, at: number, blocks: number, cols: number): number | null {
  const last = blocks - 1;
  const rowStart = at - (at % cols);
  const moves: Record<string, number> = {
    ArrowRight: at + 1,
    ArrowLeft: at - 1,
    ArrowDown: at + cols,
    ArrowUp: at - cols,
    PageDown: at + 10 * cols,
    PageUp: at - 10 * cols,
    Home: ctrl ? 0 : rowStart,
    End: ctrl ? last : rowStart + cols - 1,
  };
  const to = Object.hasOwn(moves, key) ? moves[key] : null;
  return to === null ? null : Math.max(0, Math.min(last, to));
}

// The core's status names, read once.
let coreNames: string[] | null = null;
function useStatusNames(): readonly string[] | null {
  const [names, setNames] = useState(coreNames);
  useEffect(() => {
    if (names) return;
    let live = true;
    void loadWasm().then((w) => {
      coreNames ??= w.status_names();
      if (live) setNames(coreNames);
    });
    return () => {
      live = false;
    };
  }, [names]);
  return names;
}

export function PageMap(p: PageMapProps) {
  const ref = useRef<HTMLCanvasElement>(null);
  const names = useStatusNames();
  const [tip, setTip] = useState<{ block: number; x: number; y: number } | null>(null);
  // The keyboard's highlighted cell, while the map has the focus.
  const [cursor, setCursor] = useState<number | null>(null);
  // How wide the canvas is drawn (a narrow screen scales it down): the axes' label spacing.
  const [drawnWidth, setDrawnWidth] = useState<number | null>(null);
  useEffect(() => {
    const c = ref.current;
    if (!c || typeof ResizeObserver === 'undefined') return;
    const o = new ResizeObserver(() => setDrawnWidth(c.getBoundingClientRect().width));
    o.observe(c);
    return () => o.disconnect();
  }, []);
  const width = 640;
  const cell = cellSize(p.blocks, width);
  const cols = Math.max(1, Math.floor(width / cell));
  const rows = Math.max(1, Math.ceil(p.blocks / cols));

  // The picture is kept between draws and only cells whose status changed are painted: a
  // 5 GB file is 655,360 cells, a 10 MB ImageData that, made anew at every progress message,
  // left hundreds of MB of garbage behind while a file verified.
  const kept = useRef<{ img: ImageData; painted: Uint8Array; key: string } | null>(null);
  useEffect(() => {
    const c = ref.current;
    if (!c) return;
    const ctx = c.getContext('2d');
    if (!ctx) return;
    const rgb = (css: string): [number, number, number] => {
      ctx.fillStyle = css;
      const hex = ctx.fillStyle; // normalised to #rrggbb
      return [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16) || 0) as [number, number, number];
    };
    const style = getComputedStyle(c);
    const pal = colours(c).map(rgb);
    const pending = rgb(style.getPropertyValue('--status-pending').trim() || '#ccc');
    const disabled = rgb(style.getPropertyValue('--status-disabled').trim() || '#999');
    const key = JSON.stringify([c.width, c.height, p.blocks, cell, pal, pending, disabled, p.checksumsDisabled]);
    if (kept.current?.key !== key) {
      // NOT_PAINTED differs from every status code and PENDING, so every cell is painted.
      kept.current = { img: ctx.createImageData(c.width, c.height), painted: new Uint8Array(p.blocks).fill(NOT_PAINTED), key };
    }
    const { img, painted } = kept.current;
    const px = img.data;
    const gap = cell > 3 ? 1 : 0;
    for (let b = 0; b < p.blocks; b++) {
      const code = b < p.statuses.length ? p.statuses[b] : PENDING;
      if (painted[b] === code) continue;
      painted[b] = code;
      const col = code === PENDING ? pending : p.checksumsDisabled && code === 1 ? disabled : (pal[code] ?? pending);
      const x0 = (b % cols) * cell;
      const y0 = Math.floor(b / cols) * cell;
      for (let y = y0; y < y0 + cell - gap; y++) {
        let o = (y * c.width + x0) * 4;
        for (let x = 0; x < cell - gap; x++, o += 4) {
          px[o] = col[0];
          px[o + 1] = col[1];
          px[o + 2] = col[2];
          px[o + 3] = 255;
        }
      }
    }
    ctx.putImageData(img, 0, 0);
    // The noted zero pages stand out as damage does: filled in the mismatch colour, with a
    // dot of the zero colour in the middle to tell them from a checksum failure.
    const zeroColour = pal[STATUS_NAMES.indexOf('zero')] ?? pending;
    const dot = cell >= 6 ? Math.max(2, Math.round(cell / 3)) : 0;
    for (const r of p.noted ?? []) {
      for (let b = r.block; b < Math.min(p.blocks, r.block + r.pages); b++) {
        const x0 = (b % cols) * cell;
        const y0 = Math.floor(b / cols) * cell;
        ctx.fillStyle = style.getPropertyValue('--status-mismatch').trim() || '#c00';
        ctx.fillRect(x0, y0, cell - gap, cell - gap);
        if (dot > 0) {
          ctx.fillStyle = `rgb(${zeroColour[0]}, ${zeroColour[1]}, ${zeroColour[2]})`;
          const at = Math.floor((cell - gap - dot) / 2);
          ctx.fillRect(x0 + at, y0 + at, dot, dot);
        }
      }
    }
    // A page that verifies but the report finds wrong: its status colour inside a frame of the
    // mismatch colour, so the picture of the map shows it as damage too.
    for (const t of p.told ?? []) {
      if (t.block >= p.blocks) continue;
      const x0 = (t.block % cols) * cell;
      const y0 = Math.floor(t.block / cols) * cell;
      const inner = cell - gap;
      const frame = Math.max(1, Math.floor(inner / 4));
      ctx.fillStyle = style.getPropertyValue('--status-mismatch').trim() || '#c00';
      ctx.fillRect(x0, y0, inner, frame);
      ctx.fillRect(x0, y0 + inner - frame, inner, frame);
      ctx.fillRect(x0, y0, frame, inner);
      ctx.fillRect(x0 + inner - frame, y0, frame, inner);
    }
    if (p.selected !== null && p.selected < p.blocks) {
      ctx.strokeStyle = style.getPropertyValue('--fg').trim() || '#000';
      ctx.lineWidth = 2;
      ctx.strokeRect((p.selected % cols) * cell - 1, Math.floor(p.selected / cols) * cell - 1, cell + 1, cell + 1);
    }
    if (cursor !== null && cursor < p.blocks) {
      // Dashed in the accent colour, and a size larger: told apart from the page shown.
      ctx.strokeStyle = style.getPropertyValue('--accent').trim() || '#336791';
      ctx.lineWidth = 2;
      ctx.setLineDash([3, 2]);
      ctx.strokeRect((cursor % cols) * cell - 2, Math.floor(cursor / cols) * cell - 2, cell + 3, cell + 3);
      ctx.setLineDash([]);
    }
  }, [p.statuses, p.blocks, p.version, p.selected, p.checksumsDisabled, p.noted, p.told, cell, cols, cursor]);

  // Labels every `colStep` columns and `rowStep` rows, placed in percent of the drawn canvas
  // so they stay on their cells when a narrow screen scales it down.
  const w = cols * cell;
  const drawnCell = drawnWidth ? (cell * drawnWidth) / w : cell;
  const colStep = axisStep(drawnCell, 36);
  const rowStep = axisStep(drawnCell, 14);
  const h = rows * cell;
  const colTicks = [];
  for (let c = 0; c < cols; c += colStep) colTicks.push(c);
  const rowTicks = [];
  for (let r = 0; r < rows; r += rowStep) rowTicks.push(r);
  const pick = (e: { clientX: number; clientY: number; currentTarget: HTMLCanvasElement }): number => {
    const r = e.currentTarget.getBoundingClientRect();
    const b = blockAt(e.clientX - r.left, e.clientY - r.top, r, e.currentTarget, cell, cols);
    return b >= 0 && b < p.blocks ? b : -1;
  };
  const words = (b: number) => {
    const said = blockWords(b, b < p.statuses.length ? p.statuses[b] : undefined, p.checksumsDisabled, names, isNoted(p.noted, b));
    const t = (p.told ?? []).find((x) => x.block === b);
    return t ? `${said}; ${TOLD_WORDS}: ${t.damage.replace(/_/g, ' ')}` : said;
  };
  // The tooltip at the highlighted cell's lower right, in the drawn canvas's pixels.
  const tipAtCell = (b: number) => {
    const k = drawnCell;
    return { block: b, x: ((b % cols) + 1) * k, y: (Math.floor(b / cols) + 1) * k };
  };
  const onKeyDown = (e: KeyboardEvent<HTMLCanvasElement>) => {
    if (p.blocks === 0) return;
    const at = cursor ?? p.selected ?? 0;
    if (e.key === 'Enter' || e.key === ' ') {
      e.preventDefault();
      p.onPick(at);
      return;
    }
    const to = keyStep(e.key, e.ctrlKey || e.metaKey, at, p.blocks, cols);
    if (to === null) return;
    e.preventDefault();
    setCursor(to);
    setTip(tipAtCell(to));
  };
  return (
    <figure className="pagemap">
      <div className="pagemap-plot" data-testid="pagemap-plot">
        <div className="pagemap-corner" aria-hidden="true">
          block
        </div>
        <div className="pagemap-cols" data-testid="pagemap-cols" aria-hidden="true" style={{ maxWidth: w }}>
          {colTicks.map((c) => (
            <span key={c} style={{ left: `${(c / cols) * 100}%` }}>
              +{c}
            </span>
          ))}
        </div>
        <div className="pagemap-rows" data-testid="pagemap-rows" aria-hidden="true">
          {rowTicks.map((r) => (
            <span key={r} style={{ top: `${(r / rows) * 100}%` }}>
              {r * cols}
            </span>
          ))}
        </div>
        <div className="pagemap-canvas">
          <canvas
            ref={ref}
            data-testid="pagemap"
            // For the PNG export's block numbers beside the rows (share/png.ts).
            data-cols={cols}
            data-cell={cell}
            width={w}
            height={h}
            tabIndex={0}
            role="application"
            aria-roledescription="page map"
            aria-label={`page map of ${p.blocks} blocks, ${cols} a row; rows are labelled with their first block. Arrow keys move, Enter opens the page`}
            aria-describedby="pagemap-focus"
            data-cursor={cursor ?? undefined}
            onKeyDown={onKeyDown}
            onFocus={() => {
              const at = Math.min(cursor ?? p.selected ?? 0, Math.max(0, p.blocks - 1));
              setCursor(at);
              setTip(tipAtCell(at));
            }}
            onBlur={() => {
              setCursor(null);
              setTip(null);
            }}
            onClick={(e) => {
              const b = pick(e);
              if (b >= 0) p.onPick(b);
            }}
            onMouseMove={(e) => {
              const b = pick(e);
              const r = e.currentTarget.getBoundingClientRect();
              setTip(b < 0 ? null : { block: b, x: e.clientX - r.left, y: e.clientY - r.top });
            }}
            onMouseLeave={() => setTip(null)}
          />
          {tip && (
            <div
              className="pagemap-tip"
              role="tooltip"
              data-testid="pagemap-tip"
              data-block={tip.block}
              style={{ left: tip.x, top: tip.y, transform: tip.x > w / 2 ? 'translate(calc(-100% - 8px), 8px)' : 'translate(12px, 8px)' }}
            >
              {words(tip.block)}
            </div>
          )}
        </div>
      </div>
      <p id="pagemap-focus" className="visually-hidden" aria-live="polite" data-testid="pagemap-focus" data-block={cursor ?? undefined}>
        {cursor !== null && cursor < p.blocks ? `${words(cursor)}. Enter opens it.` : ''}
      </p>
      <figcaption className="legend">
        {STATUS_NAMES.map((s) => (
          <span key={s} className="legend-item">
            <span className={`swatch status-${s}`}>{STATUS_LETTER[s]}</span> {STATUS_WORDS[s]}
          </span>
        ))}
        {(p.noted ?? []).length > 0 && (
          <span className="legend-item" data-testid="legend-zero-note">
            <span className="swatch status-zero noted">{STATUS_LETTER.zero}</span> {ZERO_NOTE_WORDS}
          </span>
        )}
        {(p.told ?? []).length > 0 && (
          <span className="legend-item" data-testid="legend-told">
            <span className="swatch status-ok told">{STATUS_LETTER.ok}</span> {TOLD_WORDS}
          </span>
        )}
        <span className="legend-item">
          <span className="swatch status-pending">?</span> not yet verified
        </span>
      </figcaption>
    </figure>
  );
}

export { PENDING };
