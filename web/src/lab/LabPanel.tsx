// The checksum lab's panel under the page view: bit-flip experiments on the page shown (the
// edited copy in lab mode) and the benchmark of the simd128 and scalar wasm builds, both run
// by the lab worker. The main thread only posts requests and renders at most 10 tallies a second.
import { useEffect, useRef, useState } from 'react';
import './lab.css';
import type { LoadedPage } from '../lib/pageVerdict';
import { loadWasm } from '../core';
import { checksumLayout, flippableBits, sameLanePairCount, type ChecksumLayout } from './bits';
import { flipsPerTrial, trialsOf, type ExperimentKind, type ExperimentSpec, type Tally } from './experiment';
import type { CancelMessage } from '../worker/bridge';
import type { BenchRow, FromLab, ToLab } from './protocol';

interface Run {
  job: number;
  /** The page it ran on: block within the file, and whether it was the lab's edited copy. */
  block: number;
  edited: boolean;
  kind: ExperimentKind;
  flips: number;
  total: number;
  tally: Tally | null;
  state: 'queued' | 'running' | 'paused' | 'done' | 'cancelled' | 'error';
  elapsedMs: number | null;
  message?: string;
}

const KIND_WORDS: Record<ExperimentKind, string> = {
  random: 'random bits',
  exhaustive: 'every single bit once',
  same_lane: 'same bit of two words in one lane, at random',
  same_lane_all: 'same bit of two words in one lane, every pair',
};
const BENCH_BYTES = 32 << 20;
const MAX_TRIALS = 1_000_000;
const MAX_ROWS = 40;
// Thousands separated by hand: the first toLocaleString call loads ICU data, a 30 ms task
// on the main thread just as a dropped file's first page renders.
const fmt = (n: number): string => String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
const pct = (a: number, b: number): string => (b === 0 ? '—' : `${((100 * a) / b).toFixed(4)}%`);
const clampInt = (v: string, lo: number, hi: number): number => Math.min(hi, Math.max(lo, Math.floor(Number(v)) || lo));

let nextJob = 1;

export function LabPanel({ page, edited }: { page: LoadedPage; edited: boolean }) {
  const worker = useRef<Worker | null>(null);
  const [runs, setRuns] = useState<Run[]>([]);
  const [bench, setBench] = useState<{ job: number; rows: BenchRow[] | null; pages: number; blockSize: number; error?: string } | null>(null);
  const [maxFlips, setMaxFlips] = useState(4);
  const [trials, setTrials] = useState(10_000);
  const [seed, setSeed] = useState(1);
  // Experiments stop between batches while paused; a run started then waits before its first trial.
  const [paused, setPaused] = useState(false);

  // Where the checksum reads a page comes from the core, for the trial counts.
  const [layout, setLayout] = useState<ChecksumLayout | null>(null);

  useEffect(() => () => worker.current?.terminate(), []);
  useEffect(() => {
    let live = true;
    void loadWasm().then((w) => live && setLayout(checksumLayout(w)));
    return () => {
      live = false;
    };
  }, []);

  const onMessage = (ev: MessageEvent<FromLab>) => {
    const m = ev.data;
    if (m.type === 'bench') {
      setBench({ job: m.job, rows: m.rows, pages: m.pages, blockSize: m.blockSize });
      return;
    }
    setBench((b) =>
      b && b.job === m.job && (m.type === 'error' || m.type === 'cancelled') ? { ...b, rows: [], error: m.type === 'error' ? m.message : 'cancelled' } : b,
    );
    setRuns((rs) =>
      rs.map((r): Run => {
        if (r.job !== m.job) return r;
        switch (m.type) {
          case 'progress':
            return { ...r, tally: m.tally, state: 'running' };
          case 'paused':
            return { ...r, tally: m.tally, state: 'paused' };
          case 'done':
            return { ...r, tally: m.tally, state: 'done', elapsedMs: m.elapsedMs };
          case 'cancelled':
            return { ...r, state: 'cancelled' };
          case 'error':
            return { ...r, state: 'error', message: m.message };
        }
      }),
    );
  };
  const send = (m: ToLab | CancelMessage): void => {
    if (!worker.current) {
      worker.current = new Worker(new URL('./lab.worker.ts', import.meta.url), { type: 'module' });
      worker.current.onmessage = onMessage;
    }
    worker.current.postMessage(m);
  };

  const checksummed = page.computed !== null && layout !== null;
  const live = (r: Run) => r.state === 'queued' || r.state === 'running' || r.state === 'paused';
  const busy = runs.some(live) || (bench !== null && bench.rows === null);

  const start = (specs: ExperimentSpec[]): void => {
    if (layout === null) return;
    const added = specs.map((spec): Run => {
      const job = nextJob++;
      send({ type: 'experiment', job, page: page.bytes.slice(), absoluteBlock: page.absoluteBlock, bigEndian: page.bigEndian, spec });
      return {
        job,
        block: page.block,
        edited,
        kind: spec.kind,
        flips: flipsPerTrial(spec),
        total: trialsOf(layout, spec, page.bytes.length),
        tally: null,
        state: 'queued',
        elapsedMs: null,
      };
    });
    // Earlier rows stay, for comparison (the newest last), up to a screenful.
    setRuns((rs) => [...rs, ...added].slice(-MAX_ROWS));
  };
  const cancel = (): void => {
    for (const r of runs) if (live(r)) send({ type: 'cancel', job: r.job });
    if (bench && bench.rows === null) send({ type: 'cancel', job: bench.job });
  };

  const [open, setOpen] = useState(false);
  const scalar = bench?.rows?.find((r) => r.build === 'scalar')?.nsPerPage ?? null;

  return (
    // Closed, only the summary renders: the page view's first paint stays light.
    <details className="lab" data-testid="lab" onToggle={(e) => setOpen(e.currentTarget.open)}>
      <summary>
        <h2>Checksum lab</h2>
      </summary>
      {open && (
        <>
          <p className="labhint">
            Flip bits of a copy of this page (block {page.absoluteBlock}
            {page.bytes.length !== 8192 && `, ${page.bytes.length}-byte pages`}) and count how often PostgreSQL's checksum notices: a trial is detected when
            pg_checksum_page differs from the unmodified page's. pd_checksum's own 16 bits are never flipped. The 32-bit column is the sum before{' '}
            <code>% 65535 + 1</code> folds it to 16 bits.
          </p>
          {!checksummed && <p className="warn">This page has no checksum to test (a new page): choose a page with a header.</p>}
          <div className="labform">
            <label>
              flip 1 to{' '}
              <input
                type="number"
                data-testid="lab-max-flips"
                min={1}
                max={16}
                value={maxFlips}
                onChange={(e) => setMaxFlips(clampInt(e.target.value, 1, 16))}
              />{' '}
              bits,
            </label>{' '}
            <label>
              trials per row{' '}
              <input
                type="number"
                data-testid="lab-trials"
                min={1}
                max={MAX_TRIALS}
                step={1000}
                value={trials}
                onChange={(e) => setTrials(clampInt(e.target.value, 1, MAX_TRIALS))}
              />
            </label>{' '}
            <label>
              seed <input type="number" data-testid="lab-seed" min={1} value={seed} onChange={(e) => setSeed(clampInt(e.target.value, 1, 0xffffffff))} />
            </label>
            <div>
              <button
                type="button"
                data-testid="lab-run-random"
                disabled={!checksummed || busy}
                onClick={() => start(Array.from({ length: maxFlips }, (_, i) => ({ kind: 'random', flips: i + 1, trials, seed: seed + i })))}
              >
                Flip random bits
              </button>{' '}
              <button
                type="button"
                data-testid="lab-run-exhaustive"
                disabled={!checksummed || busy}
                onClick={() => start([{ kind: 'exhaustive', flips: 1, trials: 0, seed }])}
              >
                Flip every bit once ({layout ? fmt(flippableBits(layout, page.bytes.length)) : '…'} trials)
              </button>{' '}
              <button
                type="button"
                data-testid="lab-run-same-lane"
                disabled={!checksummed || busy}
                onClick={() =>
                  start([
                    { kind: 'same_lane', flips: 2, trials, seed },
                    { kind: 'random', flips: 2, trials, seed },
                  ])
                }
              >
                Same bit twice in one lane vs two random bits
              </button>{' '}
              <button
                type="button"
                data-testid="lab-run-same-lane-all"
                disabled={!checksummed || busy}
                onClick={() => start([{ kind: 'same_lane_all', flips: 2, trials: 0, seed }])}
              >
                Every same-lane pair ({layout ? fmt(sameLanePairCount(layout, page.bytes.length)) : '…'} trials)
              </button>{' '}
              <button
                type="button"
                data-testid="lab-pause"
                data-paused={paused}
                onClick={() => {
                  send({ type: paused ? 'resume' : 'pause', job: nextJob++ });
                  setPaused(!paused);
                }}
              >
                {paused ? 'Resume' : 'Pause'}
              </button>{' '}
              <button type="button" data-testid="lab-cancel" disabled={!busy} onClick={cancel}>
                Cancel
              </button>{' '}
              <button type="button" data-testid="lab-clear" disabled={busy || runs.length === 0} onClick={() => setRuns([])}>
                Clear results
              </button>
            </div>
          </div>
          {runs.length > 0 && (
            // Wider than a phone: it scrolls in this box, which the keyboard can reach.
            <div className="lab-scroll" tabIndex={0} role="region" aria-label="experiment results">
              <table className="labresults" data-testid="lab-results">
                <thead>
                  <tr>
                    <th>page</th>
                    <th>flips</th>
                    <th>which bits</th>
                    <th>trials</th>
                    <th>detected</th>
                    <th>rate</th>
                    <th>32-bit sum differs</th>
                    <th>undetected flips (bit = byte × 8 + bit)</th>
                  </tr>
                </thead>
                <tbody>
                  {runs.map((r) => {
                    const t = r.tally;
                    return (
                      <tr
                        key={r.job}
                        data-testid="lab-result"
                        data-kind={r.kind}
                        data-flips={r.flips}
                        data-state={r.state}
                        data-trials={t?.trials ?? 0}
                        data-detected={t?.detected ?? 0}
                        data-fold-differs={t?.foldDiffers ?? 0}
                      >
                        <td>
                          block {r.block}
                          {r.edited && ' (edited)'}
                        </td>
                        <td>{r.flips}</td>
                        <td>{KIND_WORDS[r.kind]}</td>
                        <td>
                          {r.state === 'done' ? fmt(r.total) : <progress max={r.total} value={t?.trials ?? 0} aria-label={`trials done of ${r.total}`} />}
                          {r.elapsedMs !== null && ` in ${(r.elapsedMs / 1000).toFixed(2)} s`}
                          {r.state === 'paused' && ' paused'}
                          {r.state === 'cancelled' && ' cancelled'}
                          {r.state === 'error' && ` error: ${r.message}`}
                        </td>
                        <td>{t ? `${fmt(t.detected)} / ${fmt(t.trials)}` : ''}</td>
                        <td>{t ? pct(t.detected, t.trials) : ''}</td>
                        <td>{t ? `${fmt(t.foldDiffers)} (${pct(t.foldDiffers, t.trials)})` : ''}</td>
                        <td>{t?.undetected.map((u) => u.join('+')).join(', ')}</td>
                      </tr>
                    );
                  })}
                </tbody>
              </table>
            </div>
          )}
          <h3>Speed of the two wasm builds on this machine</h3>
          <p>
            <button
              type="button"
              data-testid="lab-bench"
              disabled={busy || paused}
              onClick={() => {
                const job = nextJob++;
                setBench({ job, rows: null, pages: 0, blockSize: 8192 });
                send({ type: 'bench', job, bytes: BENCH_BYTES, blockSize: 8192 });
              }}
            >
              Benchmark pg_checksum_page on 32 MB
            </button>{' '}
            {bench?.rows === null && <span role="status">running…</span>}
            {bench?.error && <span role="status">{bench.error}</span>}
          </p>
          {bench?.rows && bench.rows.length > 0 && (
            <div className="lab-scroll" tabIndex={0} role="region" aria-label="benchmark results">
              <table data-testid="lab-bench-table">
                <thead>
                  <tr>
                    <th>build</th>
                    <th>MB/s</th>
                    <th>pages/s</th>
                    <th>ns/page</th>
                    <th>speedup</th>
                  </tr>
                </thead>
                <tbody>
                  {bench.rows.map((r) => {
                    const ns = r.nsPerPage;
                    const mbps = ns === null ? null : ((bench.blockSize / ns) * 1e9) / 1e6;
                    return (
                      <tr key={r.build} data-testid="bench-row" data-build={r.build} data-ns-per-page={ns ?? ''} data-mbps={mbps ?? ''}>
                        <td>{r.build}</td>
                        {ns === null ? (
                          <td colSpan={4}>{r.error ?? 'not run'}</td>
                        ) : (
                          <>
                            <td>{fmt(Math.round(mbps!))}</td>
                            <td>{fmt(Math.round(1e9 / ns))}</td>
                            <td>{ns.toFixed(0)}</td>
                            <td>{scalar === null ? '—' : `${(scalar / ns).toFixed(2)}x`}</td>
                          </>
                        )}
                      </tr>
                    );
                  })}
                </tbody>
              </table>
            </div>
          )}
          {bench?.rows && bench.rows.length > 0 && (
            <p className="labhint">
              {fmt(bench.pages)} pages of {bench.blockSize} bytes, 8 rounds in one call, best of 5, minus a 1-round call (which the copy into wasm memory costs
              alike).
            </p>
          )}
        </>
      )}
    </details>
  );
}
