// What a narrow screen must hold, measured in the page: the document never scrolls sideways
// (only boxes of their own, the hex dump and wide tables, do), no two controls a user can
// see share any pixels, and the per-status counts lie inside the viewport's width.
import type { Page } from './test';

export interface Layout {
  innerWidth: number;
  scrollWidth: number;
  /** Pairs of visible controls whose boxes overlap, described for the failure message. */
  overlaps: string[];
  /** Visible count cells not wholly within the viewport's width. */
  countsOutside: string[];
  /** The outermost elements that reach past the viewport's right edge (why it scrolls). */
  wide: string[];
  /** How many controls were looked at (a check of nothing proves nothing). */
  controls: number;
  counts: number;
}

export function measureLayout(page: Page): Promise<Layout> {
  return page.evaluate(() => {
    const CONTROLS = 'button, select, input, textarea, summary, a[href], [tabindex]:not([tabindex="-1"]), label.button';
    type Box = { l: number; t: number; r: number; b: number };
    const describe = (e: Element): string => {
      const t = e.getAttribute('data-testid') ?? e.getAttribute('aria-label') ?? (e.textContent ?? '').trim().slice(0, 30);
      return `${e.tagName.toLowerCase()}${e.className && typeof e.className === 'string' ? '.' + e.className.split(' ')[0] : ''}(${t})`;
    };
    // The part of an element's box that shows: cut by every ancestor that clips (a scroll box).
    const shown = (e: Element): Box | null => {
      const r = e.getBoundingClientRect();
      if (r.width < 1 || r.height < 1) return null;
      const cs = getComputedStyle(e);
      // Visually hidden (the file inputs behind their labels): clipped to nothing.
      // eslint-disable-next-line @typescript-eslint/no-deprecated -- the visually-hidden pattern the app uses sets it
      if (cs.clip === 'rect(0px, 0px, 0px, 0px)') return null;
      if (cs.visibility === 'hidden' || cs.display === 'none' || Number(cs.opacity) === 0) return null;
      let box: Box = { l: r.left, t: r.top + scrollY, r: r.right, b: r.bottom + scrollY };
      for (let a = e.parentElement; a; a = a.parentElement) {
        const s = getComputedStyle(a);
        if (s.overflowX !== 'visible' || s.overflowY !== 'visible') {
          const c = a.getBoundingClientRect();
          box = { l: Math.max(box.l, c.left), t: Math.max(box.t, c.top + scrollY), r: Math.min(box.r, c.right), b: Math.min(box.b, c.bottom + scrollY) };
          if (box.r - box.l < 1 || box.b - box.t < 1) return null;
        }
        if (s.position === 'fixed') break;
      }
      return box;
    };
    // A panel fixed to the viewport (the tour) floats over the page by design: its controls are
    // compared with each other, and the page's with the page's.
    const layer = (e: Element): Element | null => {
      for (let a: Element | null = e; a; a = a.parentElement) if (getComputedStyle(a).position === 'fixed') return a;
      return null;
    };
    const els = [...document.querySelectorAll(CONTROLS)].filter((e) => !e.closest('details:not([open]) > :not(summary)'));
    const boxes = els.map((e) => ({ e, box: shown(e), layer: layer(e) })).filter((x): x is { e: Element; box: Box; layer: Element | null } => x.box !== null);
    const overlaps: string[] = [];
    for (let i = 0; i < boxes.length; i++) {
      for (let j = i + 1; j < boxes.length; j++) {
        const a = boxes[i];
        const b = boxes[j];
        if (a.layer !== b.layer || a.e.contains(b.e) || b.e.contains(a.e)) continue;
        const w = Math.min(a.box.r, b.box.r) - Math.max(a.box.l, b.box.l);
        const h = Math.min(a.box.b, b.box.b) - Math.max(a.box.t, b.box.t);
        if (w > 1 && h > 1) overlaps.push(`${describe(a.e)} × ${describe(b.e)} (${Math.round(w)}×${Math.round(h)} px)`);
      }
    }
    const counts = [...document.querySelectorAll('[data-testid=summary] [data-count]')].filter((e) => shown(e) !== null || e.getBoundingClientRect().width > 0);
    const countsOutside = counts
      .filter((e) => {
        const r = e.getBoundingClientRect();
        return r.left < 0 || r.right > innerWidth + 0.5;
      })
      .map((e) => `${e.getAttribute('data-count')} at ${Math.round(e.getBoundingClientRect().left)}..${Math.round(e.getBoundingClientRect().right)}`);
    const past = (e: Element) => {
      const b = shown(e);
      return b !== null && b.r > innerWidth + 0.5;
    };
    const wide = [...document.body.querySelectorAll('*')]
      .filter((e) => past(e) && !(e.parentElement && e.parentElement !== document.body && past(e.parentElement)))
      .slice(0, 8)
      .map((e) => `${describe(e)} to ${Math.round(e.getBoundingClientRect().right)}`);
    return {
      innerWidth,
      wide,
      scrollWidth: document.scrollingElement!.scrollWidth,
      overlaps,
      countsOutside,
      controls: boxes.length,
      counts: counts.length,
    };
  });
}
