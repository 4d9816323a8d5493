// Row heights for @tanstack/react-virtual without forced layouts. Its default measures a row
// it has not seen with getBoundingClientRect as the row's ref is attached, in the middle of a
// commit: with a data directory's hundreds of rows appearing and regrouping as the catalog
// names them, that was most of a 100-150 ms main-thread task (Chromium trace). The
// ResizeObserver the virtualizer already keeps on every row reports the same height after the
// browser's own layout, so a row not seen before starts at the estimate and is corrected
// then.
import type { Virtualizer } from '@tanstack/react-virtual';

export function measureAfterLayout(el: Element, entry: ResizeObserverEntry | undefined, v: Virtualizer<HTMLDivElement, Element>): number {
  const box = entry?.borderBoxSize?.[0];
  if (box) return Math.round(box.blockSize);
  const index = v.indexFromElement(el);
  return v.itemSizeCache.get(v.options.getItemKey(index)) ?? v.options.estimateSize(index);
}
