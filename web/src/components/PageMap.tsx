// One cell per block, coloured by status (with a legend that names each colour and
// letter), drawn on a canvas so a million-block file is still one element. Click jumps.
import { useEffect, useRef } from 'react';
import { STATUS_LETTER, STATUS_NAMES, STATUS_WORDS } from '../lib/status';

const PENDING = 255;
const NOT_PAINTED = 254;

export interface PageMapProps {
  statuses: Uint8Array;
  blocks: number;
  version: number;
  selected: number | null;
  checksumsDisabled: boolean;
  onPick(block: number): void;
}

function colours(el: HTMLElement): string[] {
  const css = getComputedStyle(el);
  return STATUS_NAMES.map((s) => css.getPropertyValue(`--status-${s}`).trim() || '#888');
}

export function cellSize(blocks: number, width: number): number {
  const target = 360 * width;
  return Math.max(2, Math.min(14, Math.floor(Math.sqrt(target / Math.max(1, blocks)))));
}

export function PageMap(p: PageMapProps) {
  const ref = useRef<HTMLCanvasElement>(null);
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
    if (p.selected !== null && p.selected < p.blocks) {
      ctx.strokeStyle = style.getPropertyValue('--fg').trim() || '#000';
      ctx.lineWidth = 2;
      ctx.strokeRect((p.selected % cols) * cell - 1, Math.floor(p.selected / cols) * cell - 1, cell + 1, cell + 1);
    }
  }, [p.statuses, p.blocks, p.version, p.selected, p.checksumsDisabled, cell, cols]);

  return (
    <figure className="pagemap">
      <canvas
        ref={ref}
        data-testid="pagemap"
        // For the PNG export's block numbers beside the rows (share/png.ts).
        data-cols={cols}
        data-cell={cell}
        width={cols * cell}
        height={rows * cell}
        aria-label={`page map of ${p.blocks} blocks`}
        onClick={(e) => {
          const r = e.currentTarget.getBoundingClientRect();
          const b = Math.floor((e.clientY - r.top) / cell) * cols + Math.floor((e.clientX - r.left) / cell);
          if (b >= 0 && b < p.blocks) p.onPick(b);
        }}
      />
      <figcaption className="legend">
        {STATUS_NAMES.map((s) => (
          <span key={s} className="legend-item">
            <span className={`swatch status-${s}`}>{STATUS_LETTER[s]}</span> {STATUS_WORDS[s]}
          </span>
        ))}
        <span className="legend-item">
          <span className="swatch status-pending">?</span> not yet verified
        </span>
      </figcaption>
    </figure>
  );
}

export { PENDING };
