// The report worker: drives the core's ReportReader (wasm) over the dropped files. The core
// says which byte ranges it needs next; they are read with File.slice and given back until
// it has what it needs, and its report (JSON and Markdown) goes to the page. The page ends
// a report it no longer wants by terminating the worker.
import { loadWasm } from '../core';
import type { FromReport, ReportFile, ToReport } from './protocol';

const post = (m: FromReport) => (self as unknown as Worker).postMessage(m);
const held: ReportFile[] = [];

async function run(shown: string): Promise<void> {
  const w = await loadWasm();
  const byPath = new Map(held.map((f) => [f.path, f.file]));
  const lengths = held.map((f) => f.file.size);
  const total = lengths.reduce((a, b) => a + b, 0);
  const reader = new w.ReportReader(
    held.map((f) => f.path),
    lengths,
    undefined,
    shown,
  );
  let read = 0;
  try {
    for (;;) {
      const wanted = JSON.parse(reader.wanted()) as { path: string; offset: number; len: number }[];
      if (wanted.length === 0) break;
      const got = await Promise.all(
        wanted.map(async ({ path, offset, len }) => {
          const f = byPath.get(path);
          if (!f) return { bytes: undefined, error: `could not read file "${shown}${path}": it was not dropped` };
          try {
            return { bytes: new Uint8Array(await f.slice(offset, offset + len).arrayBuffer()), error: undefined };
          } catch (e) {
            return { bytes: undefined, error: `could not read file "${shown}${path}": ${e instanceof Error ? e.message : String(e)}` };
          }
        }),
      );
      wanted.forEach(({ path, offset, len }, i) => {
        const g = got[i];
        read += g.bytes?.length ?? 0;
        reader.give(path, offset, len, g.bytes, g.error);
      });
      post({ type: 'progress', read, total });
    }
    const out = reader.finish();
    post({ type: 'done', json: out.json, markdown: out.markdown, damaged: out.damaged });
    out.free();
  } finally {
    reader.free();
  }
}

self.onmessage = (e: MessageEvent<ToReport>) => {
  const m = e.data;
  held.push(...m.files);
  if (!m.last) return;
  run(m.shown).catch((err: unknown) => post({ type: 'error', message: err instanceof Error ? err.message : String(err) }));
};
