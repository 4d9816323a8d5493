// Pictures of the page view, the page map and the problem list: the element rendered to a
// canvas (modern-screenshot: SVG foreignObject, data: and blob: images only, so the CSP
// holds), a caption band burned in with fillText, then a PNG download and a clipboard copy.
import { createContext, destroyContext, domToCanvas } from 'modern-screenshot';
import { BAND_LINE_PX, BAND_PAD_PX, bandHeight, bandLines, type BandInfo } from './band';

const BAND_BG = '#f5f7fa';
const BAND_FG = '#1b1d21';
const BAND_RULE = '#336791';

/**
 * Rows scrolled out of sight in the element's scroll boxes (the hex dump, the item list).
 * The picture shows what the user sees, and leaving them out of the clone is what keeps it
 * fast: the renderer copies every computed style of every node it clones, and a page's hex
 * dump alone has 8,192 byte nodes.
 */
function scrolledAway(el: HTMLElement): WeakSet<Node> {
  const away = new WeakSet<Node>();
  for (const box of [el, ...el.querySelectorAll<HTMLElement>('*')]) {
    if (box.scrollHeight <= box.clientHeight + 1) continue;
    const { overflowY } = getComputedStyle(box);
    if (overflowY !== 'auto' && overflowY !== 'scroll') continue;
    const seen = box.getBoundingClientRect();
    for (const row of box.querySelectorAll('.hexrow, tr')) {
      const r = row.getBoundingClientRect();
      if (r.bottom <= seen.top || r.top >= seen.bottom) away.add(row);
    }
  }
  return away;
}

/**
 * The renderer reads default styles from a hidden srcdoc iframe it makes on first use; if
 * the clone yields to the event loop, that iframe finishes loading mid-clone and swaps its
 * document. Handing it one that has already loaded lets the clone yield safely.
 */
async function loadedSandbox(): Promise<HTMLIFrameElement> {
  const frame = document.createElement('iframe');
  frame.width = '0';
  frame.height = '0';
  frame.style.visibility = 'hidden';
  frame.style.position = 'fixed';
  frame.setAttribute('aria-hidden', 'true');
  const loaded = new Promise((resolve) => frame.addEventListener('load', resolve, { once: true }));
  frame.srcdoc = '<!DOCTYPE html><meta charset="UTF-8"><title></title><body>';
  document.body.append(frame);
  await loaded;
  return frame;
}

/** The element as a canvas at the screen's pixel ratio, with the band below it. */
export async function renderWithBand(el: HTMLElement, info: Promise<BandInfo>): Promise<HTMLCanvasElement> {
  const scale = window.devicePixelRatio || 1;
  const away = scrolledAway(el);
  let slice = performance.now();
  const context = await createContext(el, {
    scale,
    backgroundColor: getComputedStyle(document.body).backgroundColor,
    // System fonts only: nothing to fetch, and the CSP would refuse anything remote anyway.
    font: false,
    filter: (n) => !away.has(n),
    // On the page the first and last children's margins collapse through the element and lie
    // outside its box; alone in the picture they would not, and would push the content down.
    onCloneNode: (root) => {
      if (!(root instanceof Element)) return;
      (root.firstElementChild as HTMLElement | null)?.style.setProperty('margin-top', '0');
      (root.lastElementChild as HTMLElement | null)?.style.setProperty('margin-bottom', '0');
    },
    // Cloning copies every computed style and runs as one task unless it yields: give the
    // event loop a turn every few tens of milliseconds so the page stays responsive.
    onCloneEachNode: (cloned) => {
      // A table's height was copied as it is on the page, with every row: without the rows
      // left out it would stretch the ones kept and push them out of the box.
      if (cloned instanceof HTMLTableElement || cloned instanceof HTMLTableSectionElement) {
        cloned.style.removeProperty('height');
        cloned.style.removeProperty('block-size');
      }
      if (performance.now() - slice < 30) return;
      return new Promise<void>((resolve) => setTimeout(resolve, 0)).then(() => {
        slice = performance.now();
      });
    },
  });
  let shot: HTMLCanvasElement;
  try {
    context.sandbox = await loadedSandbox();
    shot = await domToCanvas(context);
  } finally {
    destroyContext(context);
  }
  const lines = bandLines(await info);
  const band = Math.round(bandHeight(lines.length) * scale);
  const out = document.createElement('canvas');
  out.width = shot.width;
  out.height = shot.height + band;
  const ctx = out.getContext('2d');
  if (!ctx) throw new Error('this browser gives no 2D canvas');
  ctx.drawImage(shot, 0, 0);
  ctx.fillStyle = BAND_BG;
  ctx.fillRect(0, shot.height, out.width, band);
  ctx.fillStyle = BAND_RULE;
  ctx.fillRect(0, shot.height, out.width, Math.max(1, Math.round(2 * scale)));
  ctx.fillStyle = BAND_FG;
  ctx.textBaseline = 'middle';
  const room = out.width - 2 * BAND_PAD_PX * scale;
  lines.forEach((line, i) => {
    // A narrow element gets smaller text rather than a cut-off caption.
    let px = 14 * scale;
    ctx.font = `${px}px ui-monospace, 'DejaVu Sans Mono', monospace`;
    const w = ctx.measureText(line).width;
    if (w > room) {
      px = Math.max(6 * scale, (px * room) / w);
      ctx.font = `${px}px ui-monospace, 'DejaVu Sans Mono', monospace`;
    }
    ctx.fillText(line, BAND_PAD_PX * scale, shot.height + (BAND_PAD_PX + (i + 0.5) * BAND_LINE_PX) * scale);
  });
  return out;
}

/** PNG encoding happens off the main thread in the browser's own toBlob. */
export function toPng(c: HTMLCanvasElement): Promise<Blob> {
  return new Promise((resolve, reject) => c.toBlob((b) => (b ? resolve(b) : reject(new Error('the picture could not be encoded'))), 'image/png'));
}

export function download(blob: Blob, name: string): void {
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  a.click();
  // The download has started from the URL by the next task.
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/**
 * Renders, downloads and copies. The clipboard write starts inside the click (a pending
 * ClipboardItem keeps the user's activation while the picture renders). Resolves to a
 * sentence for the user: what happened, including a refusal by the browser.
 */
export async function exportPng(el: HTMLElement, info: Promise<BandInfo>, name: string): Promise<string> {
  const png = renderWithBand(el, info).then(toPng);
  let refused: Promise<unknown>;
  try {
    refused = navigator.clipboard.write([new ClipboardItem({ 'image/png': png })]).then(
      () => null,
      (e: unknown) => e ?? 'refused',
    );
  } catch (e) {
    refused = Promise.resolve(e ?? 'no clipboard');
  }
  const blob = await png;
  download(blob, name);
  const why = await refused;
  if (why === null) return `saved ${name} and copied the picture`;
  return `saved ${name}; the browser did not allow copying the picture (${why instanceof Error ? why.message : String(why)})`;
}
