// Where "Ask PostgreSQL" goes beside the decoded page: the app renders this slot under its
// page view, and the playground (a lazy chunk with the server) fills it while it is open.
import { createStore } from '../lib/store';

const slot = createStore<HTMLElement | null>(null);

export const setAskSlot = (el: HTMLElement | null): void => slot.set(el);
export const useAskSlot = slot.use;
