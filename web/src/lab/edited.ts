// The lab's edited pages, per file, for a part of the app that can put them somewhere: the
// playground writes them into its server's relation file. The lab itself never writes.

import { createStore } from '../lib/store';

/** File entry id → block → the edited copy of the page. */
const edits = createStore<ReadonlyMap<number, ReadonlyMap<number, Uint8Array>>>(new Map());

export function publishEdits(entryId: number, pages: ReadonlyMap<number, Uint8Array>): void {
  const next = new Map(edits.get());
  if (pages.size === 0) next.delete(entryId);
  else next.set(entryId, pages);
  edits.set(next);
}

export function editsOf(entryId: number): ReadonlyMap<number, Uint8Array> | undefined {
  return edits.get().get(entryId);
}

/** For useSyncExternalStore. */
export const subscribeEdits = edits.subscribe;
