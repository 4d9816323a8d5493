// Pictures of the page view, the page map and the problem list: the element rendered to a
// canvas (modern-screenshot: SVG foreignObject, data: and blob: images only, so the CSP
// holds), a caption band burned in with fillText, then a PNG download and a clipboard copy.
// The picture shows the content: the app's own controls are left out, tables in scroll boxes
// are shown whole, the page map gets block numbers beside its rows, and the band takes the
// theme's colours.
import { createContext, destroyContext, domToCanvas } from 'modern-screenshot';
import { BAND_LINE_PX, BAND_PAD_PX, bandHeight } from './band';

/** The app's controls: buttons, fields, the share rows, the page view's row of copy buttons;
 * none of them is content. */
const CONTROLS = 'button, select, input, textarea, [data-noprint], .copy';
/** Marks, for the clone, a scroll box shown at its full height. */
const EXPAND = 'data-pgpage-expand';

/**
 * Hex dump rows scrolled out of sight. Leaving them out of the clone is what keeps it fast:
 * the renderer copies every computed style of every node it clones, and a page's hex dump
 * alone has 8,192 byte nodes. The picture shows the rows the user sees there.
 */
function scrolledAway(el: HTMLElement): WeakSet<Node> {
  const away = new WeakSet<Node>();
  for (const box of scrollBoxes(el)) {
    const seen = box.getBoundingClientRect();
    for (const row of box.querySelectorAll('.hexrow')) {
      const r = row.getBoundingClientRect();
      if (r.bottom <= seen.top || r.top >= seen.bottom) away.add(row);
    }
  }
  return away;
}

/** The element and its descendants that scroll vertically. */
function scrollBoxes(el: HTMLElement): HTMLElement[] {
  return [el, ...el.querySelectorAll<HTMLElement>('*')].filter((box) => {
    if (box.scrollHeight <= box.clientHeight + 1 && box.scrollWidth <= box.clientWidth + 1) return false;
    const { overflowY, overflowX } = getComputedStyle(box);
    return ['auto', 'scroll'].includes(overflowY) || ['auto', 'scroll'].includes(overflowX);
  });
}

/**
 * Scroll boxes holding tables (the item list, the problem list) are shown at their full
 * height in the picture: they are marked for the clone, and the picture grows by the rows
 * they hide. Not wider: a heap page's t_data column can make its table thousands of pixels
 * wide, and a picture that wide is no use pasted anywhere; the columns shown are the first.
 */
function expandTables(el: HTMLElement): { boxes: HTMLElement[]; width: number; height: number } {
  const boxes = scrollBoxes(el).filter((b) => b !== el && b.querySelector('table') !== null && b.querySelector('.hexrow') === null);
  let height = el.offsetHeight;
  for (const b of boxes) {
    b.setAttribute(EXPAND, '');
    height += Math.max(0, b.scrollHeight - b.clientHeight);
  }
  return { boxes, width: el.offsetWidth, height };
}

/**
 * `measure` run with the element's controls taken out of the layout, as they are out of the
 * picture, so that sizes and positions are the picture's. They are back before the task ends:
 * no frame is painted in between, so nothing moves on the screen.
 */
function laidOutWithoutControls<T>(el: HTMLElement, measure: () => T): T {
  const hidden = [...el.querySelectorAll<HTMLElement>(CONTROLS)].map((c) => [c, c.style.getPropertyValue('display'), c.style.getPropertyPriority('display')] as const);
  for (const [c] of hidden) c.style.setProperty('display', 'none', 'important');
  try {
    return measure();
  } finally {
    for (const [c, v, prio] of hidden) {
      if (v) c.style.setProperty('display', v, prio);
      else c.style.removeProperty('display');
    }
  }
}

/** The page map canvas's rows, for block numbers beside them (PageMap's data-cols/-cell). */
function mapRows(el: HTMLElement): { top: number; left: number; cell: number; cols: number; rows: number } | null {
  const c = el.querySelector<HTMLCanvasElement>('canvas[data-cols]');
  if (!c) return null;
  const cols = Number(c.dataset.cols);
  const cell = Number(c.dataset.cell);
  if (!(cols > 0 && cell > 0)) return null;
  const r = c.getBoundingClientRect();
  const e = el.getBoundingClientRect();
  return { top: r.top - e.top, left: r.left - e.left, cell: r.height / Math.max(1, c.height / cell), cols, rows: Math.round(c.height / cell) };
}

/** The band's colours: the theme's panel, text and accent (light or dark, as shown). */
function bandColours(): { bg: string; fg: string; rule: string } {
  const css = getComputedStyle(document.documentElement);
  const v = (name: string, fallback: string) => css.getPropertyValue(name).trim() || fallback;
  return { bg: v('--panel', '#f5f7fa'), fg: v('--fg', '#1b1d21'), rule: v('--accent', '#336791') };
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

/** The element as a canvas at the screen's pixel ratio, with the band of `lines` below it. */
export async function renderWithBand(el: HTMLElement, lines: Promise<string[]>): Promise<HTMLCanvasElement> {
  const scale = window.devicePixelRatio || 1;
  const away = scrolledAway(el);
  const { grown, map } = laidOutWithoutControls(el, () => ({ grown: expandTables(el), map: mapRows(el) }));
  let slice = performance.now();
  const context = await createContext(el, {
    scale,
    width: grown.width,
    height: grown.height,
    backgroundColor: getComputedStyle(document.body).backgroundColor,
    // System fonts only: nothing to fetch, and the CSP would refuse anything remote anyway.
    font: false,
    filter: (n) => !away.has(n) && !(n instanceof Element && n.matches(CONTROLS)),
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
      // Every element's height was copied as it is on the page: without the controls left
      // out and with the tables shown whole, each box is as tall as what it now holds.
      if (cloned instanceof HTMLElement && !(cloned instanceof HTMLCanvasElement || cloned instanceof HTMLImageElement || cloned instanceof HTMLVideoElement)) {
        cloned.style.removeProperty('height');
        cloned.style.removeProperty('block-size');
      }
      if (cloned instanceof HTMLElement && cloned.hasAttribute(EXPAND)) {
        cloned.removeAttribute(EXPAND);
        for (const [k, v] of [['overflow', 'hidden'], ['max-height', 'none'], ['height', 'auto']]) cloned.style.setProperty(k, v, 'important');
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
    for (const b of grown.boxes) b.removeAttribute(EXPAND);
  }
  const text = await lines;
  const band = Math.round(bandHeight(text.length) * scale);
  const colours = bandColours();
  const font = (px: number) => `${px}px ui-monospace, 'DejaVu Sans Mono', monospace`;
  // Block numbers beside the map's rows: a gutter as wide as the largest one.
  let gutter = 0;
  const probe = document.createElement('canvas').getContext('2d');
  if (map && probe) {
    probe.font = font(11 * scale);
    gutter = Math.ceil(probe.measureText(String((map.rows - 1) * map.cols)).width + 8 * scale);
  }
  const out = document.createElement('canvas');
  out.width = shot.width + gutter;
  out.height = shot.height + band;
  const ctx = out.getContext('2d');
  if (!ctx) throw new Error('this browser gives no 2D canvas');
  ctx.fillStyle = getComputedStyle(document.body).backgroundColor;
  ctx.fillRect(0, 0, out.width, shot.height);
  ctx.drawImage(shot, gutter, 0);
  if (map && gutter > 0) {
    ctx.fillStyle = colours.fg;
    ctx.font = font(11 * scale);
    ctx.textAlign = 'right';
    ctx.textBaseline = 'middle';
    // A label every few rows, so that labels of small cells do not overlap.
    const every = Math.max(1, Math.ceil(14 / map.cell));
    for (let r = 0; r < map.rows; r += every) {
      ctx.fillText(String(r * map.cols), gutter - 4 * scale, (map.top + (r + 0.5) * map.cell) * scale);
    }
    ctx.textAlign = 'left';
  }
  ctx.fillStyle = colours.bg;
  ctx.fillRect(0, shot.height, out.width, band);
  ctx.fillStyle = colours.rule;
  ctx.fillRect(0, shot.height, out.width, Math.max(1, Math.round(2 * scale)));
  ctx.fillStyle = colours.fg;
  ctx.textBaseline = 'middle';
  const room = out.width - 2 * BAND_PAD_PX * scale;
  text.forEach((line, i) => {
    // A narrow element gets smaller text rather than a cut-off caption.
    let px = 14 * scale;
    ctx.font = font(px);
    const w = ctx.measureText(line).width;
    if (w > room) {
      px = Math.max(6 * scale, (px * room) / w);
      ctx.font = font(px);
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
export async function exportPng(el: HTMLElement, lines: Promise<string[]>, name: string): Promise<string> {
  const png = renderWithBand(el, lines).then(toPng);
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
