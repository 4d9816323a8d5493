// "Ask PostgreSQL": the page on screen, handed to the playground's own server, and
// pageinspect's answer set beside pgpage's decode of the same bytes, column by column.
import { useState } from 'react';
import type { FileEntry } from '../files';
import { decodeWithCore, fileKindOf } from '../lib/spans';
import { loadWasm } from '../wasm';
import { pageinspectFunctions } from './ask';
import type { FromPlay, ToPlay } from './protocol';

type Json = Record<string, unknown>;

export interface AskProps {
  entry: FileEntry;
  block: number;
  request<T extends FromPlay>(m: ToPlay, transfer?: Transferable[]): Promise<T>;
  nextJob(): number;
}

interface Answer {
  kind: string;
  functions: string[];
  answer: Json;
  /** Columns compared, and those that differ (none, when the two agree). */
  compared: number;
  differ: { where: string; pgpage: string; postgres: string }[];
}

const show = (v: unknown) => JSON.stringify(v) ?? 'undefined';

function compare(where: string, ours: Json | undefined, theirs: Json, out: Answer): void {
  for (const [k, v] of Object.entries(theirs)) {
    out.compared++;
    if (show(ours?.[k]) !== show(v)) out.differ.push({ where: `${where}${k}`, pgpage: show(ours?.[k]), postgres: show(v) });
  }
}

export function AskPostgres(p: AskProps) {
  const [state, setState] = useState<{ busy: boolean; answer: Answer | null; error: string | null }>({ busy: false, answer: null, error: null });
  const ask = async () => {
    setState({ busy: true, answer: null, error: null });
    try {
      const w = await loadWasm();
      const BS = 8192;
      const head = new Uint8Array(await p.entry.file.slice(0, Math.min(p.entry.size, w.detect_head_bytes())).arrayBuffer());
      const page = new Uint8Array(await p.entry.file.slice(p.block * BS, (p.block + 1) * BS).arrayBuffer());
      const fileKind = fileKindOf(w, head, BS, false, p.entry.fork);
      const ours = decodeWithCore(w, page, p.block, false, p.entry.fork, fileKind, 18);
      const m = await p.request<Extract<FromPlay, { type: 'ask' }>>({ type: 'ask', job: p.nextJob(), page, block: p.block, kind: ours.kind });
      if (m.error || !m.answer) throw new Error(m.error ?? 'no answer');
      const a: Answer = { kind: ours.kind, functions: pageinspectFunctions(ours.kind, p.block), answer: m.answer, compared: 0, differ: [] };
      const header = m.answer.header as Json;
      compare('page_header.', ours.header, { ...header, checksum: (header.checksum as number) & 0xffff }, a);
      if (m.answer.items !== undefined) {
        const items = (m.answer.items as Json[] | null) ?? [];
        if (items.length !== ours.items.length) a.differ.push({ where: 'items', pgpage: String(ours.items.length), postgres: String(items.length) });
        items.forEach((row, i) => compare(`item ${i + 1}.`, ours.items[i] as Json | undefined, row, a));
      }
      if (m.answer.fsm !== undefined) compare('', ours.special ?? {}, { fsm_page_contents: m.answer.fsm }, a);
      setState({ busy: false, answer: a, error: null });
    } catch (e) {
      setState({ busy: false, answer: null, error: e instanceof Error ? e.message : String(e) });
    }
  };
  const a = state.answer;
  return (
    <div className="play-ask" data-testid="ask-postgres" data-state={state.busy ? 'running' : a ? (a.differ.length === 0 ? 'agree' : 'differ') : state.error ? 'error' : 'idle'}>
      <button type="button" data-testid="ask-button" disabled={state.busy} onClick={() => void ask()}>
        Ask PostgreSQL about {p.entry.path.replace(/^playground\/\d+\//, '')} block {p.block}
      </button>
      {state.error && (
        <p className="error" role="alert">
          {state.error}
        </p>
      )}
      {a && (
        <>
          <p data-testid="ask-verdict">
            pageinspect ({a.functions.join(', ')}) on the same bytes:{' '}
            {a.differ.length === 0 ? `agrees with pgpage on all ${a.compared} columns.` : `${a.differ.length} of ${a.compared} columns differ from pgpage.`}
          </p>
          {a.differ.length > 0 && (
            <table>
              <tbody>
                {a.differ.slice(0, 30).map((d, i) => (
                  <tr key={i}>
                    <td>{d.where}</td>
                    <td>pgpage {d.pgpage}</td>
                    <td>PostgreSQL {d.postgres}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
          <details>
            <summary>PostgreSQL's answer</summary>
            <pre data-testid="ask-answer">{JSON.stringify(a.answer, null, 1)}</pre>
          </details>
        </>
      )}
    </div>
  );
}
