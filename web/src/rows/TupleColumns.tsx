// The page view's selected heap tuple as columns: names and types from the catalogs of the
// file's data directory, else from a type list the user types (the core's fit check warns
// when the tuple's length does not fit it). Decoded in the rows worker.
import { useEffect, useMemo, useState } from 'react';
import type { FileEntry } from '../files';
import { acquire, discard, listen, release, send } from './pool';
import type { TupleMessage } from './protocol';
import { catalogSource, typesSource } from './source';
import './rows.css';

export function TupleColumns(p: { entry: FileEntry; files: readonly FileEntry[]; page: Uint8Array; lp: number }) {
  const { entry, files, page, lp } = p;
  const catalog = useMemo(() => catalogSource(entry), [entry]);
  const [types, setTypes] = useState('');
  const [got, setGot] = useState<TupleMessage | { error: string } | null>(null);
  const wanted = catalog !== null || types.trim() !== '';

  useEffect(() => {
    setGot(null);
    const s = catalog ?? (types.trim() ? typesSource(entry, files, types.trim()) : null);
    if (!s) return;
    // The relation's worker (its catalogs and TOAST chunk index kept from the last tuple);
    // an answer that comes after the selection moved on is dropped, the worker kept.
    let current = true;
    const w = acquire(s.key);
    listen(w, (m) => {
      if (current && m.type === 'tuple') setGot(m);
      else if (current && m.type === 'error') setGot({ error: m.message });
      if (m.type === 'error') discard(w);
      else release(w);
    });
    send(w, { type: 'tuple', job: 1, from: s.from, page: page.slice(), lp }, s);
    return () => {
      current = false;
    };
    // The catalog source is derived from entry and files.
  }, [entry, files, page, lp, types]);

  return (
    <section
      className="tuple-columns"
      data-testid="tuple-columns"
      data-state={got === null ? (wanted ? 'loading' : 'idle') : 'error' in got ? 'error' : 'done'}
    >
      <h3>Item {lp} as columns</h3>
      {!catalog && (
        <label className="rows-types">
          Column types, in order (as <code>pg_filedump -D</code> takes them)
          <input
            type="text"
            data-testid="tuple-types"
            value={types}
            placeholder="int4,text,timestamptz"
            spellCheck={false}
            onChange={(e) => setTypes(e.target.value)}
          />
        </label>
      )}
      {got && 'error' in got && (
        <p className="rows-error" role="alert">
          {got.error}
        </p>
      )}
      {got && !('error' in got) && (
        <>
          {got.problem && (
            <p className="rows-error" role="alert" data-testid="tuple-problem">
              {got.problem.attnum !== null && `attribute ${got.problem.attnum}: `}
              {got.problem.message}
            </p>
          )}
          {got.note && <p data-testid="tuple-note">{got.note}</p>}
          {!got.problem && (
            <table>
              <thead>
                <tr>
                  <th scope="col">column</th>
                  <th scope="col">type</th>
                  <th scope="col">value</th>
                </tr>
              </thead>
              <tbody>
                {got.columns.map((c, i) => (
                  <tr key={i} data-testid="tuple-column">
                    <td>{c.name}</td>
                    <td>{c.type}</td>
                    <td className={c.value === null ? 'rows-null' : undefined}>{c.value ?? 'NULL'}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </>
      )}
    </section>
  );
}
