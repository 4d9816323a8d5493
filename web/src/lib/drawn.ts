// When the page view has drawn a newly read page. Work that can wait (the playground's save
// of its data directory, the verify workers' streaming) waits for it, so that it does not
// share the two cores with the page's decode and first render, which is what the user waits
// on. Every wait is capped: a hidden tab draws no frames, and a file may never be shown.

let drawn = 0;
const waiting = new Set<() => void>();

/** PageView: a page it read has been committed and painted. */
export function pageDrawn(): void {
  drawn++;
  for (const resolve of [...waiting]) resolve();
}

/** How many pages the view has drawn so far: `afterDrawn(seen)` waits for the next one. */
export function drawnCount(): number {
  return drawn;
}

/** Resolves once a page is drawn after the `seen`th, or after `capMs`. */
export function afterDrawn(seen: number, capMs: number): Promise<void> {
  if (drawn > seen) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      waiting.delete(done);
      resolve();
    };
    const timer = setTimeout(done, capMs);
    waiting.add(done);
  });
}

/** Resolves after the next frame is drawn (or after 150 ms, when no frame comes: a hidden tab). */
export function afterPaint(): Promise<void> {
  return new Promise((resolve) => {
    const cap = setTimeout(resolve, 150);
    requestAnimationFrame(() =>
      setTimeout(() => {
        clearTimeout(cap);
        resolve();
      }, 0),
    );
  });
}
