// Test helpers for the app's parts: entries as the store makes them, and layout for jsdom,
// which lays nothing out (every box 0 px), so a virtualized list would show no rows.
import { newEntry, type FileEntry } from '../files';
import type { Wasm } from '../core';
import { emptyCounts } from '../lib/status';
import type { ProblemPage } from '../worker/protocol';
import { wasmFromDisk } from '../core/disk';

export function entry(name: string, patch: Partial<FileEntry> = {}): FileEntry {
  return Object.assign(
    newEntry(new File([new Uint8Array(8192 * 2)], name), name),
    { blocks: 2, blockSize: 8192, bigEndian: false, state: 'done' as const, counts: { ...emptyCounts(), ok: 2 } },
    patch,
  );
}

export function problem(block: number, patch: Partial<ProblemPage> = {}): ProblemPage {
  return {
    block,
    absoluteBlock: block,
    status: 'mismatch',
    code: 1,
    problem: true,
    stored: 100 + block,
    computed: 200 + block,
    misplaced: null,
    tupleBlock: null,
    findings: ['checksum_mismatch'],
    ...patch,
  };
}

/** Gives boxes of `className` a height of `box` px and every other element `row` px, and
 * makes scrollTo scroll, as a browser would lay out a scroll box of rows; returns the undo. */
export function layout(className: string, box: number, row: number): () => void {
  const proto = HTMLElement.prototype;
  // Own descriptors to put back; the others (Element's) come back by deleting ours.
  const saved = ['offsetHeight', 'offsetWidth', 'clientHeight', 'clientWidth', 'scrollHeight'].map(
    (k) => [k, Object.getOwnPropertyDescriptor(proto, k)] as const,
  );
  const rect = proto.getBoundingClientRect;
  const h = (el: HTMLElement) => (el.classList.contains(className) ? box : row);
  for (const k of ['offsetHeight', 'clientHeight'])
    Object.defineProperty(proto, k, {
      configurable: true,
      get: function (this: HTMLElement) {
        return h(this);
      },
    });
  // Room to scroll anywhere in the lists the tests make.
  Object.defineProperty(proto, 'scrollHeight', { configurable: true, get: () => 1e7 });
  for (const k of ['offsetWidth', 'clientWidth']) Object.defineProperty(proto, k, { configurable: true, get: () => 800 });
  proto.getBoundingClientRect = function (this: HTMLElement) {
    return { x: 0, y: 0, top: 0, left: 0, width: 800, height: h(this), right: 800, bottom: h(this), toJSON: () => ({}) };
  };
  const scrollTo = proto.scrollTo;
  proto.scrollTo = function (this: HTMLElement, opts?: ScrollToOptions | number) {
    if (typeof opts === 'object' && opts.top !== undefined) this.scrollTop = opts.top;
    this.dispatchEvent(new Event('scroll'));
  };
  return () => {
    proto.scrollTo = scrollTo;
    for (const [k, d] of saved) {
      if (d) Object.defineProperty(proto, k, d);
      else Reflect.deleteProperty(proto, k);
    }
    proto.getBoundingClientRect = rect;
  };
}

/** The core's bindings as built (web/pkg), loaded from disk: for `vi.mock('../core/load')`. */
export function coreWasm(): Promise<Wasm> {
  return wasmFromDisk();
}
