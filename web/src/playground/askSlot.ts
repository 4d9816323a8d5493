// Where "Ask PostgreSQL" goes beside the decoded page: the app renders this slot under its
// page view, and the playground (a lazy chunk with the server) fills it while it is open.
let slot: HTMLElement | null = null;
const listeners = new Set<() => void>();

export function setAskSlot(el: HTMLElement | null): void {
  slot = el;
  for (const f of listeners) f();
}

export function subscribeAskSlot(f: () => void): () => void {
  listeners.add(f);
  return () => listeners.delete(f);
}

export const askSlot = (): HTMLElement | null => slot;
