// Pictures of the page view, the page map and the problem list, painted from the page's own
// layout: a copy of the element, laid out off screen with its tables unboxed, is walked
// element by element and drawn on a canvas (backgrounds, borders, text in its computed font
// and colour, the map's canvas), yielding to the event loop every few milliseconds so that
// no task holds the main thread for long; then a caption band is burned in with fillText, and
// the PNG is downloaded and copied. The picture shows the content: the app's own controls are
// left out, tables in scroll boxes are shown whole in both directions, the page map gets block
// numbers beside its rows, and the band takes the theme's colours.
import { BAND_LINE_PX, BAND_PAD_PX, bandHeight } from './band';
import { plainText } from '../lib/text';
import { redactOn } from './redact';
import { workerForJob } from '../worker/bridge';
import type { EncodePng, FromPng } from './png.worker';

/** The app's controls: buttons, fields, the share rows, the page view's row of copy buttons;
 * none of them is content (but the words of a button styled as a link, see copyOf). Visually hidden texts are for screen readers only. */
const CONTROLS = 'button, select, input, textarea, [data-noprint], .copy, .visually-hidden';
/** How long one task may paint before it yields (the long-task line is 50 ms). */
const SLICE_MS = 12;
/** The budget: SLICE_MS, or the page's `data-png-slice-ms` (a test's smaller budget, which
 * shows the yielding on a page any machine paints within 12 ms). */
const sliceMs = () => Number(document.documentElement.dataset.pngSliceMs ?? SLICE_MS);

/**
 * Hex dump rows scrolled out of sight. The picture shows the rows the user sees there (a
 * page's dump is 512 rows; the content worth sharing is on screen).
 */
function scrolledAway(el: HTMLElement): Set<Element> {
  const away = new Set<Element>();
  for (const box of el.querySelectorAll<HTMLElement>('.hexview')) {
    const seen = box.getBoundingClientRect();
    for (const row of box.querySelectorAll('.hexrow')) {
      const r = row.getBoundingClientRect();
      if (r.bottom <= seen.top || r.top >= seen.bottom) away.add(row);
    }
  }
  return away;
}

/** A copy of `el` without its controls and the hex rows out of sight, canvases paired with
 * the originals whose pictures they stand for. With `redact`, an element whose words hold row
 * data says its `data-redacted` words instead (the core's redacted report's, share/redact.ts). */
export function copyOf(el: HTMLElement, away: Set<Element>, redact = false): { copy: HTMLElement; canvases: Map<HTMLCanvasElement, HTMLCanvasElement> } {
  const canvases = new Map<HTMLCanvasElement, HTMLCanvasElement>();
  const copy = (n: Node): Node | null => {
    if (redact && n instanceof HTMLElement && n.dataset.redacted !== undefined) {
      const c = n.cloneNode(false) as HTMLElement;
      c.removeAttribute('id');
      c.textContent = n.dataset.redacted;
      return c;
    }
    // A button styled as a link names what it opens (a file's path): its words are content;
    // so are a "show all" button's words for the picture (data-png-words: what it leaves out).
    const words = n instanceof HTMLButtonElement ? (n.dataset.pngWords ?? (n.classList.contains('link') ? n.textContent : null)) : null;
    if (words !== null) {
      const w = document.createElement('span');
      w.className = n instanceof HTMLElement && n.classList.contains('link') ? 'link' : 'png-words';
      w.textContent = words;
      return w;
    }
    if (n instanceof Element && (away.has(n) || n.matches(CONTROLS))) return null;
    const c = n.cloneNode(false);
    if (n instanceof HTMLCanvasElement) canvases.set(c as HTMLCanvasElement, n);
    // Ids stay unique on the page while the copy is in it (labels and ARIA point at them).
    if (c instanceof Element) c.removeAttribute('id');
    // A closed <details> shows its summary only. Copied whole, its hidden content would be
    // laid out (the copy makes every part visible) in the summary's line, under what follows.
    const closed = n instanceof HTMLDetailsElement && !n.open;
    for (let k = n.firstChild; k; k = k.nextSibling) {
      if (closed && !(k instanceof HTMLElement && k.tagName === 'SUMMARY')) continue;
      const kc = copy(k);
      if (kc) c.appendChild(kc);
    }
    return c;
  };
  return { copy: copy(el) as HTMLElement, canvases };
}

/** Rows a long list keeps in its picture (`data-png-most` on the list says how many). */
export function cutLongLists(copy: HTMLElement): void {
  for (const list of copy.querySelectorAll<HTMLElement>('[data-png-most]')) {
    const most = Number(list.dataset.pngMost);
    // A virtualized list's spacers stand for rows that are not in the document.
    for (const s of list.querySelectorAll(':scope > [aria-hidden=true]')) s.remove();
    const rows = [...list.children];
    const total = Math.max(rows.length, Number(list.dataset.pngTotal ?? rows.length));
    for (const r of rows.slice(most)) r.remove();
    const kept = Math.min(most, rows.length);
    if (total <= kept) continue;
    const more = `… and ${(total - kept).toLocaleString('en-US')} more ${list.dataset.pngNoun ?? 'rows'}, not in this picture (${kept.toLocaleString('en-US')} of ${total.toLocaleString('en-US')} shown)`;
    if (list instanceof HTMLTableSectionElement) {
      const tr = document.createElement('tr');
      const td = document.createElement('td');
      td.colSpan = Math.max(1, list.closest('table')?.querySelector('tr')?.children.length ?? 1);
      td.className = 'png-words';
      td.textContent = more;
      tr.append(td);
      list.append(tr);
    } else {
      const li = document.createElement(list.tagName === 'UL' || list.tagName === 'OL' ? 'li' : 'div');
      li.className = 'png-words';
      li.textContent = more;
      list.append(li);
    }
  }
}

/** Rules for the copy: every part laid out (not skipped as off screen), scroll boxes opened
 * to their whole content, headers in their place rather than stuck to a scroll box. */
const COPY_CSS = `
.pgpage-png, .pgpage-png * { content-visibility: visible !important; }
.pgpage-png .items-scroll, .pgpage-png .list-scroll, .pgpage-png .lab-scroll, .pgpage-png .mapgrid, .pgpage-png .hexview,
.pgpage-png [data-png-open] { max-height: none !important; height: auto !important; overflow: visible !important; }
.pgpage-png .items-scroll, .pgpage-png .list-scroll, .pgpage-png [data-png-open] { width: max-content !important; max-width: none !important; }
.pgpage-png th, .pgpage-png thead, .pgpage-png tr { position: static !important; }
.pgpage-png span.link { color: var(--accent); }
.pgpage-png .png-words { font-style: italic; }
`;

/** Marks the element's scroll boxes that hold a table, for the copy to open them whatever
 * their class; the marks are unmarked once the copy is made (they change nothing on the page). */
function markTableBoxes(el: HTMLElement): () => void {
  const boxes = [...el.querySelectorAll<HTMLElement>('*')].filter((b) => {
    if (b.querySelector('table') === null) return false;
    const { overflowX, overflowY } = getComputedStyle(b);
    return [overflowX, overflowY].some((o) => o === 'auto' || o === 'scroll');
  });
  for (const b of boxes) b.setAttribute('data-png-open', '');
  return () => boxes.forEach((b) => b.removeAttribute('data-png-open'));
}

const TRANSPARENT = /^(transparent|rgba\(0, 0, 0, 0\))$/;

/** Paints `root` (laid out) into `ctx`, in CSS pixels from its corner; yields every SLICE_MS.
 * Returns how many times it yielded. */
/** Where the text of one table column was drawn: the left and right of every cell's text,
 * in CSS pixels of the picture (cut to the cell as the page cuts it). */
export interface DrawnColumn {
  col: string;
  left: number;
  right: number;
}

/** One run of text as it was drawn, in pixels of the picture: the check that nothing is
 * drawn over anything else and nothing outside the picture. */
export interface DrawnBox {
  x: number;
  y: number;
  w: number;
  h: number;
}

type Clip = { left: number; right: number; ellipsis: boolean } | null;

async function paint(
  root: HTMLElement,
  ctx: CanvasRenderingContext2D,
  canvases: Map<HTMLCanvasElement, HTMLCanvasElement>,
): Promise<{ slices: number; columns: DrawnColumn[]; boxes: DrawnBox[] }> {
  const origin = root.getBoundingClientRect();
  const range = document.createRange();
  const fonts = new Map<string, { asc: number; desc: number }>();
  let slices = 0;
  const budget = sliceMs();
  let sliceStart = performance.now();
  const metrics = (font: string) => {
    let m = fonts.get(font);
    if (!m) {
      ctx.font = font;
      const t = ctx.measureText('Mg');
      m = { asc: t.fontBoundingBoxAscent, desc: t.fontBoundingBoxDescent };
      fonts.set(font, m);
    }
    return m;
  };
  const columns = new Map<string, { left: number; right: number }>();
  const boxes: DrawnBox[] = [];
  // Text is cut where the page cuts it (a t_data cell shows one line, ending in an ellipsis):
  // drawn whole, it would run over the next columns.
  const text = (s: string, r: DOMRect, font: string, color: string, clip: Clip, col: string | null) => {
    if (r.width <= 0 || r.height <= 0) return;
    let left = r.left - origin.left;
    let right = r.right - origin.left;
    if (clip && (right > clip.right + 0.5 || left < clip.left - 0.5)) {
      if (left >= clip.right || right <= clip.left) return;
      ctx.font = font;
      if (clip.ellipsis && right > clip.right) {
        const room = clip.right - left;
        // The longest start of the text that fits with its ellipsis.
        let lo = 0;
        let hi = s.length;
        while (lo < hi) {
          const mid = Math.ceil((lo + hi) / 2);
          if (ctx.measureText(`${s.slice(0, mid)}…`).width <= room) lo = mid;
          else hi = mid - 1;
        }
        s = `${s.slice(0, lo)}…`;
        right = Math.min(clip.right, left + ctx.measureText(s).width);
      } else {
        left = Math.max(left, clip.left);
        right = Math.min(right, clip.right);
      }
    }
    const m = metrics(font);
    ctx.font = font;
    ctx.fillStyle = color;
    ctx.save();
    if (clip) {
      ctx.beginPath();
      ctx.rect(clip.left, r.top - origin.top - r.height, clip.right - clip.left, 3 * r.height);
      ctx.clip();
    }
    ctx.fillText(s, r.left - origin.left, r.top - origin.top + (r.height - (m.asc + m.desc)) / 2 + m.asc);
    ctx.restore();
    boxes.push({ x: left, y: r.top - origin.top, w: right - left, h: r.height });
    if (col !== null) {
      const c = columns.get(col);
      columns.set(col, c ? { left: Math.min(c.left, left), right: Math.max(c.right, right) } : { left, right });
    }
  };
  const visit = async (el: Element, outer: Clip, outerCol: string | null): Promise<void> => {
    const cs = getComputedStyle(el);
    if (cs.display === 'none') return;
    const shown = cs.visibility !== 'hidden';
    const r = el.getBoundingClientRect();
    const col = el instanceof HTMLTableCellElement && el.dataset.col ? el.dataset.col : outerCol;
    let clip = outer;
    if (cs.overflowX !== 'visible') {
      // The content box: where the page ends the text and puts its ellipsis.
      const left = r.left - origin.left + parseFloat(cs.borderLeftWidth) + parseFloat(cs.paddingLeft);
      const right = r.right - origin.left - parseFloat(cs.borderRightWidth) - parseFloat(cs.paddingRight);
      clip = { left: Math.max(left, outer?.left ?? left), right: Math.min(right, outer?.right ?? right), ellipsis: cs.textOverflow === 'ellipsis' };
    }
    if (shown && r.width > 0 && r.height > 0) {
      const x = r.left - origin.left;
      const y = r.top - origin.top;
      if (!TRANSPARENT.test(cs.backgroundColor)) {
        ctx.fillStyle = cs.backgroundColor;
        ctx.fillRect(x, y, r.width, r.height);
      }
      const side = (w: string, style: string, color: string, draw: (w: number) => void) => {
        const px = parseFloat(w);
        if (px > 0 && style !== 'none' && style !== 'hidden' && !TRANSPARENT.test(color)) {
          ctx.fillStyle = color;
          draw(px);
        }
      };
      side(cs.borderTopWidth, cs.borderTopStyle, cs.borderTopColor, (w) => ctx.fillRect(x, y, r.width, w));
      side(cs.borderBottomWidth, cs.borderBottomStyle, cs.borderBottomColor, (w) => ctx.fillRect(x, y + r.height - w, r.width, w));
      side(cs.borderLeftWidth, cs.borderLeftStyle, cs.borderLeftColor, (w) => ctx.fillRect(x, y, w, r.height));
      side(cs.borderRightWidth, cs.borderRightStyle, cs.borderRightColor, (w) => ctx.fillRect(x + r.width - w, y, w, r.height));
      const original = el instanceof HTMLCanvasElement ? canvases.get(el) : undefined;
      if (original) ctx.drawImage(original, x, y, r.width, r.height);
    }
    const pre = cs.whiteSpace.startsWith('pre') || cs.whiteSpace === 'break-spaces';
    for (let k = el.firstChild; k; k = k.nextSibling) {
      if (k instanceof Element) {
        await visit(k, clip, col);
      } else if (shown && k.nodeType === Node.TEXT_NODE) {
        const data = (k as Text).data;
        if (!data.trim()) continue;
        range.selectNodeContents(k);
        const rects = range.getClientRects();
        if (rects.length === 1) {
          text(pre ? data : data.replace(/\s+/g, ' '), rects[0], cs.font, cs.color, clip, col);
        } else if (rects.length > 1) {
          // Wrapped: each word (or each character of a word broken across lines) where it lies.
          for (const w of data.matchAll(/\S+\s*/g)) {
            range.setStart(k, w.index);
            range.setEnd(k, w.index + w[0].length);
            const wr = range.getClientRects();
            if (wr.length <= 1) {
              if (wr.length === 1) text(w[0].trimEnd(), wr[0], cs.font, cs.color, clip, col);
              continue;
            }
            for (let i = 0; i < w[0].length; i++) {
              range.setStart(k, w.index + i);
              range.setEnd(k, w.index + i + 1);
              const cr = range.getClientRects();
              if (cr.length > 0 && w[0][i].trim()) text(w[0][i], cr[0], cs.font, cs.color, clip, col);
            }
          }
        }
      }
      if (performance.now() - sliceStart > budget) {
        await new Promise<void>((resolve) => setTimeout(resolve, 0));
        slices++;
        sliceStart = performance.now();
      }
    }
  };
  await visit(root, null, null);
  range.detach();
  return {
    slices,
    columns: [...columns].map(([c, x]) => ({ col: c, left: Math.round(x.left * 10) / 10, right: Math.round(x.right * 10) / 10 })),
    boxes,
  };
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

/** Chromium's largest canvas side and area; a wider picture is drawn at a smaller scale. */
const MAX_SIDE = 32_000;
const MAX_AREA = 200_000_000;

const nextTask = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

/** The element as a canvas at the screen's pixel ratio, with the band of `lines` below it;
 * `slices`: how many tasks painted it. `prepare` changes the copy before it is painted (the
 * redaction masks its row data, share/redact.ts). */
export async function renderWithBand(
  el: HTMLElement,
  lines: Promise<string[]>,
  prepare?: (copy: HTMLElement) => Promise<void>,
): Promise<{ canvas: HTMLCanvasElement; slices: number; columns: DrawnColumn[]; boxes: DrawnBox[] }> {
  const away = scrolledAway(el);
  const unmark = markTableBoxes(el);
  const { copy, canvases } = copyOf(el, away, redactOn());
  unmark();
  cutLongLists(copy);
  if (prepare) await prepare(copy);
  const map = mapRows(el);
  const style = document.createElement('style');
  style.textContent = COPY_CSS;
  copy.classList.add('pgpage-png');
  copy.setAttribute('aria-hidden', 'true');
  copy.removeAttribute('data-testid');
  copy.style.setProperty('position', 'absolute', 'important');
  copy.style.setProperty('left', '-100000px', 'important');
  copy.style.setProperty('top', '0', 'important');
  copy.style.setProperty('width', `${el.getBoundingClientRect().width}px`, 'important');
  copy.style.setProperty('margin', '0', 'important');
  copy.style.setProperty('pointer-events', 'none', 'important');
  // Its margins would collapse through the element on the page; alone they push the content.
  (copy.firstElementChild as HTMLElement | null)?.style.setProperty('margin-top', '0');
  (copy.lastElementChild as HTMLElement | null)?.style.setProperty('margin-bottom', '0');
  copy.prepend(style);
  // Beside the original, so every rule that reaches it reaches the copy.
  (el.parentElement ?? document.body).append(copy);
  try {
    await nextTask();
    const box = copy.getBoundingClientRect();
    // Tables opened wider than the element widen the picture: nothing is cut.
    let width = box.width;
    for (const b of copy.querySelectorAll<HTMLElement>('[data-png-open], table')) width = Math.max(width, b.getBoundingClientRect().right - box.left);
    const height = Math.max(box.height, copy.scrollHeight);
    const text = await lines;
    const bandPx = bandHeight(text.length);
    let scale = window.devicePixelRatio || 1;
    scale = Math.min(scale, MAX_SIDE / width, MAX_SIDE / (height + bandPx), Math.sqrt(MAX_AREA / (width * (height + bandPx))));
    await nextTask();
    // One canvas for all: the gutter of map row numbers, the element's picture, the band.
    const gutter = map ? gutterWidth(map, scale) : 0;
    const out = document.createElement('canvas');
    out.width = Math.ceil(width * scale) + gutter;
    const shotHeight = Math.ceil(height * scale);
    out.height = shotHeight + Math.round(bandPx * scale);
    const ctx = out.getContext('2d');
    if (!ctx) throw new Error('this browser gives no 2D canvas');
    ctx.fillStyle = getComputedStyle(document.body).backgroundColor;
    ctx.fillRect(0, 0, out.width, shotHeight);
    await nextTask();
    ctx.save();
    ctx.translate(gutter, 0);
    ctx.scale(scale, scale);
    ctx.textBaseline = 'alphabetic';
    const { slices, columns, boxes } = await paint(copy, ctx, canvases);
    ctx.restore();
    const drawn = boxes.map((b) => ({ x: gutter + b.x * scale, y: b.y * scale, w: b.w * scale, h: b.h * scale }));
    drawn.push(...drawGutterAndBand(ctx, out, shotHeight, gutter, scale, map, text));
    const round = (v: number) => Math.round(v * 10) / 10;
    return { canvas: out, slices: slices + 3, columns, boxes: drawn.map((b) => ({ x: round(b.x), y: round(b.y), w: round(b.w), h: round(b.h) })) };
  } finally {
    copy.remove();
  }
}

const bandFont = (px: number) => `${px}px ui-monospace, 'DejaVu Sans Mono', monospace`;

/** Room at the map's left for the largest row number. */
function gutterWidth(map: NonNullable<ReturnType<typeof mapRows>>, scale: number): number {
  const probe = document.createElement('canvas').getContext('2d');
  if (!probe) return 0;
  probe.font = bandFont(11 * scale);
  return Math.ceil(probe.measureText(String((map.rows - 1) * map.cols)).width + 8 * scale);
}

/** The map's row numbers in the gutter at the left, and the caption band below the picture;
 * returns where their text went. */
function drawGutterAndBand(
  ctx: CanvasRenderingContext2D,
  out: HTMLCanvasElement,
  shotHeight: number,
  gutter: number,
  scale: number,
  map: ReturnType<typeof mapRows>,
  text: string[],
): DrawnBox[] {
  const band = out.height - shotHeight;
  const colours = bandColours();
  const boxes: DrawnBox[] = [];
  if (map && gutter > 0) {
    ctx.fillStyle = colours.fg;
    ctx.font = bandFont(11 * scale);
    ctx.textAlign = 'right';
    ctx.textBaseline = 'middle';
    // A label every few rows, so that labels of small cells do not overlap.
    const every = Math.max(1, Math.ceil(14 / map.cell));
    for (let r = 0; r < map.rows; r += every) {
      const label = String(r * map.cols);
      const w = ctx.measureText(label).width;
      const y = (map.top + (r + 0.5) * map.cell) * scale;
      ctx.fillText(label, gutter - 4 * scale, y);
      boxes.push({ x: gutter - 4 * scale - w, y: y - 5.5 * scale, w, h: 11 * scale });
    }
    ctx.textAlign = 'left';
  }
  ctx.fillStyle = colours.bg;
  ctx.fillRect(0, shotHeight, out.width, band);
  ctx.fillStyle = colours.rule;
  ctx.fillRect(0, shotHeight, out.width, Math.max(1, Math.round(2 * scale)));
  ctx.fillStyle = colours.fg;
  ctx.textBaseline = 'middle';
  const room = out.width - 2 * BAND_PAD_PX * scale;
  text.forEach((line, i) => {
    // A narrow element gets smaller text rather than a cut-off caption.
    let px = 14 * scale;
    ctx.font = bandFont(px);
    const w = ctx.measureText(line).width;
    if (w > room) {
      px = Math.max(6 * scale, (px * room) / w);
      ctx.font = bandFont(px);
    }
    ctx.fillText(line, BAND_PAD_PX * scale, shotHeight + (BAND_PAD_PX + (i + 0.5) * BAND_LINE_PX) * scale);
    boxes.push({ x: BAND_PAD_PX * scale, y: shotHeight + (BAND_PAD_PX + i * BAND_LINE_PX) * scale, w: Math.min(w, room), h: BAND_LINE_PX * scale });
  });
  return boxes;
}

/** Encodes the picture in a worker (png.worker.ts), off the main thread. */
export async function toPng(c: HTMLCanvasElement): Promise<Blob> {
  const picture = await createImageBitmap(c);
  const worker = workerForJob<EncodePng, FromPng>(
    () => new Worker(new URL('./png.worker.ts', import.meta.url), { type: 'module' }),
    () => undefined,
    () => ({ type: 'error', job: 1, message: 'the picture could not be encoded' }),
  );
  worker.post({ type: 'encode', job: 1, picture }, [picture]);
  const m = await worker.done;
  if (m.type === 'error') throw new Error(m.message);
  return m.png;
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
 * Renders, downloads and copies; `slices` says in how many tasks it was painted, `columns`
 * where each table column's text went (a check that no two run into each other), `boxes`
 * where each run of text went in the picture's pixels (none over another, all inside). The clipboard write starts inside the click (a pending
 * ClipboardItem keeps the user's activation while the picture renders). Resolves to a
 * sentence for the user: what happened, including a refusal by the browser.
 */
export async function exportPng(
  el: HTMLElement,
  lines: Promise<string[]>,
  name: string,
  prepare?: (copy: HTMLElement) => Promise<void>,
): Promise<{ text: string; slices: number; columns: DrawnColumn[]; boxes: DrawnBox[] }> {
  const rendered = renderWithBand(el, lines, prepare);
  const png = rendered.then((r) => toPng(r.canvas));
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
  const { slices, columns, boxes } = await rendered;
  const why = await refused;
  if (why === null) return { text: `saved ${name} and copied the picture`, slices, columns, boxes };
  return {
    text: `saved ${name}; the browser did not allow copying the picture (${why instanceof Error ? why.message : plainText(why)})`,
    slices,
    columns,
    boxes,
  };
}
