// The lab's edited pages, per file, for a part of the app that can put them somewhere: the
// playground writes them into its server's relation file. The lab itself never writes.

/** File entry id → block → the edited copy of the page. */
const edits = new Map<number, ReadonlyMap<number, Uint8Array>>();
const listeners = new Set<() => void>();

export function publishEdits(entryId: number, pages: ReadonlyMap<number, Uint8Array>): void {
  if (pages.size === 0) edits.delete(entryId);
  else edits.set(entryId, pages);
  for (const l of listeners) l();
}

export function editsOf(entryId: number): ReadonlyMap<number, Uint8Array> | undefined {
  return edits.get(entryId);
}

/** For useSyncExternalStore. */
export function subscribeEdits(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}
