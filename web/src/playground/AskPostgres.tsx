// "Ask PostgreSQL": the page on screen, handed to the playground's own server, and
// pageinspect's answer (every function of the page's access method, ask.ts) set beside
// pgpage's decode of the same bytes, field by field: agree or differ.
import { useState } from 'react';
import type { FileEntry } from '../files';
import { decodeWithCore, fileKindOf } from '../lib/spans';
import { loadWasm } from '../core';
import { compareAnswer, pageinspectFunctions, type AskPage, type AskVerdict } from './ask';
import type { FromPlay, ToPlay } from './protocol';

export interface AskProps {
  entry: FileEntry;
  block: number;
  /** The relation's oid in the playground's server, if the file is one of its snapshots. */
  relation: number | null;
  /** Its columns as the server has them (PlayRelation.columns), for the core's decode. */
  columns: string | null;
  request<T extends FromPlay>(m: ToPlay, transfer?: Transferable[]): Promise<T>;
  nextJob(): number;
}

interface Answer extends AskVerdict {
  functions: string[];
  answer: Record<string, unknown>;
}

/** The fields shown in full; a heap page has thousands, the disagreements come first. */
const SHOWN = 400;

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
      const ours = decodeWithCore(w, page, p.block, false, p.entry.fork, fileKind, 18, {
        columns: p.entry.fork === 'main' ? (p.columns ?? undefined) : undefined,
      });
      const question: AskPage = { kind: ours.kind, block: p.block, fork: p.entry.fork, relation: p.relation };
      const m = await p.request<Extract<FromPlay, { type: 'ask' }>>({ type: 'ask', job: p.nextJob(), page, question });
      if (m.error || !m.answer) throw new Error(m.error ?? 'no answer');
      setState({
        busy: false,
        answer: { ...compareAnswer(question, ours, m.answer), functions: pageinspectFunctions(question), answer: m.answer },
        error: null,
      });
    } catch (e) {
      setState({ busy: false, answer: null, error: e instanceof Error ? e.message : String(e) });
    }
  };
  const a = state.answer;
  const differ = a ? a.fields.filter((f) => !f.agree) : [];
  const byFn = a ? a.functions.map((fn) => ({ fn, fields: a.fields.filter((f) => f.fn === fn), silent: a.silent.find((s) => s.fn === fn) })) : [];
  return (
    <div
      className="play-ask"
      data-testid="ask-postgres"
      data-state={state.busy ? 'running' : a ? (differ.length === 0 ? 'agree' : 'differ') : state.error ? 'error' : 'idle'}
    >
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
            pageinspect on the same bytes:{' '}
            {differ.length === 0 ? `agrees with pgpage on all ${a.fields.length} fields.` : `${differ.length} of ${a.fields.length} fields differ from pgpage.`}
          </p>
          <ul className="play-ask-fns">
            {byFn.map(({ fn, fields, silent }) => (
              <li key={fn} data-testid="ask-function" data-fn={fn} data-state={silent ? 'silent' : fields.every((f) => f.agree) ? 'agree' : 'differ'}>
                <code>{fn}</code>: {silent ? silent.why : `${fields.filter((f) => f.agree).length} of ${fields.length} fields agree`}
              </li>
            ))}
          </ul>
          {a.notes.map((n) => (
            <p key={n} className="notice" data-testid="ask-note">
              Not compared: {n}
            </p>
          ))}
          <details open={differ.length > 0}>
            <summary>Field by field{a.fields.length > SHOWN ? ` (the first ${SHOWN}, disagreements first)` : ''}</summary>
            <table className="play-ask-fields">
              <thead>
                <tr>
                  <th>function</th>
                  <th>field</th>
                  <th>pgpage</th>
                  <th>PostgreSQL</th>
                  <th />
                </tr>
              </thead>
              <tbody>
                {[...differ, ...a.fields.filter((f) => f.agree)].slice(0, SHOWN).map((f, i) => (
                  <tr key={i} data-testid="ask-field" data-agree={f.agree ? 'true' : 'false'}>
                    <td>{f.fn}</td>
                    <td>{f.field}</td>
                    <td>{f.pgpage}</td>
                    <td>{f.postgres}</td>
                    <td>{f.agree ? 'agree' : 'differ'}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </details>
          <details>
            <summary>PostgreSQL&apos;s answer</summary>
            <pre data-testid="ask-answer">{JSON.stringify(a.answer, null, 1)}</pre>
          </details>
        </>
      )}
    </div>
  );
}
