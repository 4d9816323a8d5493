// The playground: a SQL editor over a real PostgreSQL (PGlite, in its own worker). Every
// statement ends in a snapshot of every relation's files, which the app opens like dropped
// files, so the page map, hex dump and decoded panels are the inspector's own. Snapshots step
// back and forth and compare; lessons type the statements for you; "Ask PostgreSQL" shows
// pageinspect's answer for the page on screen.
import { useCallback, useEffect, useRef, useState, useSyncExternalStore, type KeyboardEvent } from 'react';
import { createPortal } from 'react-dom';
import type { ChosenFile } from '../app/useFiles';
import type { FileEntry } from '../files';
import { editsOf, subscribeEdits } from '../lab/edited';
import { afterDrawn, drawnCount } from '../lib/drawn';
import { withCode } from '../tour/Tour';
import { heapLines, loadWasm } from '../core';
import { AskPostgres } from './AskPostgres';
import { useAskSlot } from './askSlot';
import { LinePointers } from './LinePointers';
import { LESSONS, sayOf, type Lesson, type LessonShow, type LessonStep, type StepOutcome } from './lessons';
import { START_JOB, type FromPlay, type ResultSet, type ServerError, type SnapFileMsg, type StartPhase, type StartPlay, type ToPlay } from './protocol';
import type { PlayRelation } from './relations';
import { compareSnapshots, SnapshotDiff } from './SnapshotDiff';
import './playground.css';

export interface PlaygroundProps {
  /** Adds files to the inspector (as a drop does) and returns their entries. */
  add(list: ChosenFile[]): Promise<FileEntry[]>;
  /** Shows a page of a loaded file, with a lesson step's outline as the tour draws one. */
  open(entry: FileEntry, block: number, outline?: Pick<LessonShow, 'item' | 'header'>): void;
  /** The page on screen, for "Ask PostgreSQL". */
  shown: { entry: FileEntry; block: number } | null;
  /** Of the playground's files, the inspector's files table lists only these paths (the
   * snapshot being viewed); older snapshots are reached from the snapshot list. */
  listed(paths: ReadonlySet<string>): void;
  onClose(): void;
}

/** One file of a snapshot, as the inspector holds it. */
export interface SnapFile {
  relation: PlayRelation;
  fork: 'main' | 'fsm' | 'vm';
  path: string;
  entry: FileEntry;
  /** Its bytes differ from the previous snapshot's (or it is new). */
  changed: boolean;
  /** The blocks that differ from the previous snapshot's. */
  changedBlocks: number[];
}

export interface Snapshot {
  step: number;
  sql: string;
  error: ServerError | null;
  results: ResultSet[];
  notices: string[];
  files: SnapFile[];
  note: string | null;
  ms: number;
}

type Boot =
  { state: 'loading'; phase: StartPhase; received: number; total: number } | { state: 'ready'; version: string } | { state: 'error'; message: string };

const mb = (n: number) => (n / 1048576).toFixed(1);
/** PGlite's block size. */
const BS = 8192;
const hex2 = (b: number) => b.toString(16).padStart(2, '0');
/** The bit "Flip a byte for me" flips: in an ASCII digit or letter it gives another printable
 * character ('1' becomes '!'), so the changed value shows in the query's result. */
const FLIP_MASK = 0x10;
/** The longest the save of the data directory waits for the statement's page to be drawn. */
const SAVE_WAIT_MS = 1000;

let nextJob = 1;

/** Before the first statement: a server with no relations, so the first snapshot diffs too. */
const EMPTY: Snapshot = { step: 0, sql: '', error: null, results: [], notices: [], files: [], note: null, ms: 0 };

export default function Playground(p: PlaygroundProps) {
  const worker = useRef<Worker | null>(null);
  const [boot, setBoot] = useState<Boot>({ state: 'loading', phase: 'download', received: 0, total: 0 });
  const [sql, setSql] = useState("create table t (id int primary key, v text);\ninsert into t values (1, 'hello');");
  // 'run' while the statement runs, 'save' while the worker saves the data directory after
  // it, 'restore' while a new server starts from the last one saved.
  const [running, setRunning] = useState<{ job: number; sql: string; phase: 'run' | 'save' | 'restore' } | null>(null);
  const [snaps, setSnaps] = useState<Snapshot[]>([]);
  const [at, setAt] = useState(-1);
  const [compare, setCompare] = useState(false);
  // `said`: the explanation of the step just run, as fits what it did; `writes`: the lab's
  // writes into the server's files by then.
  const [lesson, setLesson] = useState<{ lesson: Lesson; next: number; said?: string; writes?: number } | null>(null);
  const [writes, setWrites] = useState(0);
  // What "Flip a byte for me" did, until the next lesson step runs.
  const [flipped, setFlipped] = useState<string | null>(null);
  const writesRef = useRef(writes);
  writesRef.current = writes;
  // What each step of the lesson did so far, for the explanations that depend on it.
  const outcomes = useRef<StepOutcome[]>([]);
  const [cancelled, setCancelled] = useState<{ sql: string; why: string | null; from: number | null } | null>(null);
  // The data directory after the last statement that completed (dumpDataDir), and the
  // snapshot it belongs to: a cancel starts the new server from it.
  const saved = useRef<{ dump: Blob; step: number } | null>(null);
  const savedWait = useRef(new Map<number, (dump: Blob | null) => void>());
  // The lesson step that made a snapshot (by its step number): its expectations and outline.
  const lessonOf = useRef(new Map<number, LessonStep>());
  const slot = useAskSlot();
  const pending = useRef(new Map<number, (m: FromPlay) => void>());
  const snapsRef = useRef<Snapshot[]>([]);
  snapsRef.current = snaps;
  const runningRef = useRef(running);
  runningRef.current = running;
  const restartRef = useRef<((sql: string, why: string | null) => Promise<void>) | null>(null);
  const { add, open, listed } = p;

  const startWorker = useCallback((from: Blob | null) => {
    const w = new Worker(new URL('./pglite.worker.ts', import.meta.url), { type: 'module' });
    w.onmessage = (e: MessageEvent<FromPlay>) => {
      const m = e.data;
      if (m.type === 'saved') {
        savedWait.current.get(m.job)?.(m.dump);
        savedWait.current.delete(m.job);
      } else if (m.type === 'progress') setBoot({ state: 'loading', phase: m.phase, received: m.received, total: m.total });
      else if (m.type === 'ready') setBoot({ state: 'ready', version: m.version });
      else if (m.type === 'fatal') setBoot({ state: 'error', message: m.message });
      else {
        const done = pending.current.get(m.job);
        pending.current.delete(m.job);
        done?.(m);
      }
    };
    w.onerror = (e) => {
      // The server died inside a statement (out of memory, say): start again from the last
      // save, as a cancel does, and say why.
      const r = runningRef.current;
      if (r?.phase === 'run') void restartRef.current?.(r.sql, `PostgreSQL stopped: ${e.message || 'its worker failed'}`);
      else setBoot({ state: 'error', message: e.message || 'the PostgreSQL worker failed to start' });
    };
    w.postMessage({ type: 'start', job: START_JOB, saved: from } satisfies StartPlay);
    worker.current = w;
    return w;
  }, []);

  useEffect(() => {
    startWorker(null);
    return () => worker.current?.terminate();
  }, [startWorker]);

  const request = useCallback(<T extends FromPlay>(m: ToPlay, transfer: Transferable[] = []): Promise<T> => {
    return new Promise((resolve) => {
      pending.current.set(m.job, resolve as (m: FromPlay) => void);
      worker.current?.postMessage(m, transfer);
    });
  }, []);

  /** The snapshot's files as the inspector's entries: a file that did not change keeps its entry. */
  const toSnapshot = useCallback(
    async (step: number, files: SnapFileMsg[]): Promise<SnapFile[]> => {
      const prev = new Map((snapsRef.current.at(-1)?.files ?? []).map((f) => [f.path, f]));
      const fresh = files.filter((f) => f.bytes !== null || !prev.has(f.path));
      const chosen: ChosenFile[] = fresh.map((f) => {
        const before = prev.get(f.path);
        return {
          file: new File([f.bytes ?? new Uint8Array(0)], f.path.split('/').pop()!),
          path: `playground/${step}/${f.path}`,
          fromFolder: true,
          ...(before ? { earlier: { entry: before.entry, changedBlocks: f.changedBlocks } } : {}),
        };
      });
      const entries = chosen.length > 0 ? await add(chosen) : [];
      const byPath = new Map(entries.map((e) => [e.path, e]));
      return files.flatMap((f): SnapFile[] => {
        const entry = byPath.get(`playground/${step}/${f.path}`) ?? prev.get(f.path)?.entry;
        return entry ? [{ relation: f.relation, fork: f.fork, path: f.path, entry, changed: f.bytes !== null, changedBlocks: f.changedBlocks }] : [];
      });
    },
    [add],
  );

  /** Opens what a statement changed: the first changed page of the first changed table (or index). */
  const showChanged = useCallback(
    (s: Snapshot) => {
      const f = s.files.find((x) => x.changed && x.fork === 'main' && x.entry.size > 0) ?? s.files.find((x) => x.entry.size > 0);
      if (f) open(f.entry, f.changedBlocks[0] ?? 0);
    },
    [open],
  );

  const run = useCallback(
    async (text: string) => {
      if (running || boot.state !== 'ready' || text.trim() === '') return;
      const job = nextJob++;
      setRunning({ job, sql: text, phase: 'run' });
      setCancelled(null);
      const dump = new Promise<Blob | null>((resolve) => savedWait.current.set(job, resolve));
      const m = await request<Extract<FromPlay, { type: 'result' }>>({ type: 'run', job, sql: text, snapshot: true });
      // The bench reads these marks: the worker's answer here, the page opened below.
      performance.mark('playground-result');
      const step = snapsRef.current.length + 1;
      const files = m.files ? await toSnapshot(step, m.files) : (snapsRef.current.at(-1)?.files ?? []);
      const s: Snapshot = { step, sql: text, error: m.error, results: m.results, notices: m.notices, files, note: m.snapshotNote, ms: m.ms };
      snapsRef.current = [...snapsRef.current, s];
      // In the same render as the snapshot (an effect would render the whole page again).
      listed(new Set(files.map((f) => f.entry.path)));
      setSnaps(snapsRef.current);
      setAt(snapsRef.current.length - 1);
      setRunning({ job, sql: text, phase: 'save' });
      const seen = drawnCount();
      showChanged(s);
      performance.mark('playground-open');
      // The save, once the page it opened is drawn. The next statement waits for it: a cancel
      // of it starts from this one's files.
      await afterDrawn(seen, SAVE_WAIT_MS);
      worker.current?.postMessage({ type: 'save', job } satisfies ToPlay);
      const d = await dump;
      if (d) saved.current = { dump: d, step };
      setRunning(null);
    },
    [running, boot.state, request, toSnapshot, showChanged, listed],
  );

  /**
   * Ends the statement by ending its server (PGlite runs it to the end in its worker, and
   * cannot be interrupted), and starts a new one from the data directory saved after the last
   * statement that completed: nothing of the cancelled statement is left.
   */
  const restart = useCallback(
    async (sql: string, why: string | null) => {
      worker.current?.terminate();
      pending.current.clear();
      savedWait.current.clear();
      const from = saved.current;
      setCancelled({ sql, why, from: from?.step ?? null });
      setBoot({ state: 'loading', phase: 'download', received: 0, total: 0 });
      startWorker(from?.dump ?? null);
      const job = nextJob++;
      setRunning({ job, sql: '', phase: 'restore' });
      // Answered once the new server is up.
      await request({ type: 'run', job, sql: 'select 1', snapshot: false });
      setRunning(null);
    },
    [startWorker, request],
  );
  restartRef.current = restart;
  const cancel = useCallback(() => {
    if (running?.phase === 'run') void restart(running.sql, null);
  }, [running, restart]);

  // The worker is up again after a cancel: the statement queued in restart now runs.
  const ready = boot.state === 'ready';

  const onKey = (e: KeyboardEvent<HTMLTextAreaElement>) => {
    if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) {
      e.preventDefault();
      void run(sql);
    }
  };

  const lessonStep = async () => {
    if (!lesson) return;
    const step = lesson.lesson.steps[lesson.next];
    if (!step) return;
    setFlipped(null);
    setSql(step.sql);
    const made = snapsRef.current.length + 1;
    lessonOf.current.set(made, step);
    setCompare(true);
    await run(step.sql);
    // The explanation comes with the result, never before it, and says what the step did: a
    // lesson whose steps can go otherwise (the learner skipped an edit) reads the outcome.
    let said = step.say;
    const b = snapsRef.current.at(-1);
    if (b?.step === made && lesson.lesson.steps.some((x) => x.otherwise)) {
      const diff = await compareSnapshots(await loadWasm(), snapsRef.current.at(-2) ?? EMPTY, b);
      const o: StepOutcome = { error: b.error?.message ?? null, notices: b.notices, diff, earlier: outcomes.current.slice(0, lesson.next) };
      outcomes.current = [...o.earlier, o];
      said = sayOf(step, o);
    }
    setLesson({ lesson: lesson.lesson, next: lesson.next + 1, said, writes: writesRef.current });
    const show = step.show;
    const f = show && snapsRef.current.at(-1)?.files.find((x) => x.relation.name === show.relation && x.fork === (show.fork ?? 'main'));
    if (show && f && f.entry.size > show.block * 8192) open(f.entry, show.block, { item: show.item, header: show.header });
  };

  // Stepping to another snapshot shows the same page of the same file in it, when the page on
  // screen is one of the playground's.
  const go = (i: number) => {
    const to = snaps[i];
    if (!to) return;
    setAt(i);
    listed(new Set(to.files.map((f) => f.entry.path)));
    const from = p.shown ? snaps.flatMap((x) => x.files).find((f) => f.entry.id === p.shown?.entry.id) : undefined;
    const same = from && to.files.find((f) => f.path === from.path);
    if (same && p.shown) open(same.entry, Math.max(0, Math.min(p.shown.block, same.entry.size / 8192 - 1)));
  };

  const cur = at >= 0 ? snaps[at] : null;
  const prev = at > 0 ? snaps[at - 1] : null;
  const state = boot.state === 'error' ? 'error' : !ready ? 'loading' : running ? 'running' : 'ready';
  const said = lesson && lesson.next > 0 ? lesson.lesson.steps[lesson.next - 1] : null;
  const seeAlso = said?.see ? LESSONS.find((l) => l.id === said.see) : undefined;
  const pickLesson = (id: string) => {
    const l = LESSONS.find((x) => x.id === id);
    outcomes.current = [];
    setLesson(l ? { lesson: l, next: 0 } : null);
    setFlipped(null);
    if (l) setSql(l.steps[0].sql);
  };

  // The edit a lesson step asks for, made for the learner: one bit of the last byte of the
  // shown line pointer's tuple (the end of its text, so the header and line pointers stay
  // sane and only the checksum can tell), written into the server's file with the checksum
  // left as it was, as a flip on a disk or in memory leaves it.
  const flipForMe = async (show: LessonShow) => {
    const file = snapsRef.current.at(-1)?.files.find((f) => f.relation.name === show.relation && f.fork === 'main');
    if (!file) {
      setFlipped(`Not flipped: ${show.relation} has no file in the last snapshot.`);
      return;
    }
    const [w, buf] = await Promise.all([loadWasm(), file.entry.file.slice(show.block * BS, (show.block + 1) * BS).arrayBuffer()]);
    const page = new Uint8Array(buf);
    const lp = show.item ?? 1;
    const lines = heapLines(w, page, show.block, false);
    const item = lines?.items.find((i) => i.lp === lp && i.lp_flags === 'LP_NORMAL' && i.lp_len > 0);
    if (!item) {
      setFlipped(`Not flipped: block ${show.block} of ${show.relation} has no tuple at lp ${lp}.`);
      return;
    }
    const at = item.lp_off + item.lp_len - 1;
    const was = page[at];
    page[at] = was ^ FLIP_MASK;
    const m = await request<Extract<FromPlay, { type: 'written' }>>({ type: 'write', job: nextJob++, path: file.path, block: show.block, page });
    if (m.error) {
      setFlipped(`Not written: ${m.error}`);
      return;
    }
    setWrites((n) => n + 1);
    const ch = (b: number) => (b >= 0x20 && b < 0x7f ? ` '${String.fromCharCode(b)}'` : '');
    setFlipped(
      `Flipped bit ${Math.log2(FLIP_MASK)} of byte ${at} of block ${show.block} of ${file.path}: 0x${hex2(was)}${ch(was)} became 0x${hex2(page[at])}${ch(page[at])}. ` +
        `It is the last byte of lp ${lp}'s tuple, the end of its last column's value, so the page header and line pointers stay sane and only the checksum can tell. ` +
        "The stored checksum was left as it was, as a flip on a disk or in memory leaves it, and the server's buffer of the page was evicted: its next read is the file's.",
    );
  };
  const upcoming = lesson ? lesson.lesson.steps[lesson.next] : undefined;
  // A step that asks for a write into the server's file gates the next: run without it, the
  // lesson would walk to its end with nothing damaged.
  const waiting = said?.then === 'lab-write' && lesson !== null && lesson.writes === writes;
  const curLesson = cur ? lessonOf.current.get(cur.step) : undefined;
  const shownFile = p.shown ? snaps.flatMap((x) => x.files).find((f) => f.entry.id === p.shown?.entry.id) : undefined;
  const ask = p.shown && ready && (
    <AskPostgres
      key={`${p.shown.entry.id}:${p.shown.block}`}
      entry={p.shown.entry}
      block={p.shown.block}
      relation={shownFile?.relation.oid ?? null}
      columns={shownFile?.relation.columns ?? null}
      request={request}
      nextJob={() => nextJob++}
    />
  );

  const picture = p.shown &&
    shownFile &&
    shownFile.fork === 'main' &&
    HEAP_RELKINDS.has(shownFile.relation.relkind) &&
    p.shown.entry.size > p.shown.block * 8192 && (
      <LinePointers key={`lp:${p.shown.entry.id}:${p.shown.block}`} entry={p.shown.entry} block={p.shown.block} relation={shownFile.relation.name} />
    );

  return (
    <section className="playground" data-testid="playground" data-state={state}>
      <header className="play-head">
        <h2>Playground</h2>
        <span className="play-version" data-testid="play-version">
          {boot.state === 'ready' ? `PostgreSQL ${boot.version} (PGlite), data checksums on, in this tab` : ''}
        </span>
        <button type="button" onClick={p.onClose}>
          Close playground
        </button>
      </header>

      {boot.state === 'loading' && (
        <div className="play-loading" role="status" data-testid="play-loading">
          {boot.phase === 'download' ? (
            <>
              Loading PostgreSQL: {mb(boot.received)} MB{boot.total > 0 ? ` of ${mb(boot.total)} MB` : ''}, then initdb (a few seconds)…
              <progress max={boot.total || 1} value={boot.total ? boot.received : 0} />
            </>
          ) : (
            <>Loading pageinspect…</>
          )}
          {cancelled !== null && (
            <p>Starting PostgreSQL again from its data directory as it was {cancelled.from === null ? 'at the start' : `after snapshot ${cancelled.from}`}…</p>
          )}
        </div>
      )}
      {boot.state === 'error' && (
        <p className="error" role="alert" data-testid="play-fatal">
          PostgreSQL could not start: {boot.message}
        </p>
      )}

      <div className="play-lessons">
        <label>
          Lesson{' '}
          <select data-testid="lesson-select" value={lesson?.lesson.id ?? ''} onChange={(e) => pickLesson(e.target.value)}>
            <option value="">(none: free SQL)</option>
            {LESSONS.map((l) => (
              <option key={l.id} value={l.id}>
                {l.title}
              </option>
            ))}
          </select>
        </label>
      </div>
      {lesson && (
        <div className="lesson-box" data-testid="lesson-box">
          {said && (
            <div className="lesson-said" data-testid="lesson-said" data-step={lesson.next}>
              <h3>
                Step {lesson.next} of {lesson.lesson.steps.length}: what happened
              </h3>
              {said.predict && <p className="lesson-asked">You were asked: {said.predict}</p>}
              <p className="lesson-say" data-testid="lesson-say">
                {withCode(lesson.said ?? said.say)}
              </p>
              {seeAlso && (
                <p className="lesson-see">
                  <button type="button" className="link" data-testid="lesson-see" data-lesson={seeAlso.id} onClick={() => pickLesson(seeAlso.id)}>
                    Go on with the lesson &quot;{seeAlso.title}&quot;
                  </button>
                </p>
              )}
            </div>
          )}
          {upcoming ? (
            <div className="lesson-upcoming" data-testid="lesson-upcoming" data-step={lesson.next + 1}>
              <h3>
                {lesson.next === 0 ? 'First' : 'Next'}, step {lesson.next + 1} of {lesson.lesson.steps.length}: predict, then run
              </h3>
              <pre className="lesson-sql" data-testid="lesson-next-sql">
                {upcoming.sql}
              </pre>
              {waiting && (
                <p className="notice" data-testid="lesson-waiting" id="lesson-waiting">
                  Step {lesson.next + 1} waits for the damage: step {lesson.next} asks you to change a byte of the page and write it into the server&apos;s
                  file, and nothing has been written since (run now, the server would read the page as it wrote it, and the lesson would show nothing).{' '}
                  {said.show && (
                    <button type="button" data-testid="lesson-flip" disabled={!ready || running !== null} onClick={() => void flipForMe(said.show!)}>
                      Flip a byte for me
                    </button>
                  )}
                </p>
              )}
              {flipped !== null && (
                <p role="status" data-testid="lesson-flipped">
                  {flipped}
                </p>
              )}
              {upcoming.predict && (
                <p className="lesson-predict" data-testid="lesson-predict">
                  <strong>Predict:</strong> {upcoming.predict}
                </p>
              )}
              <button
                type="button"
                data-testid="lesson-next"
                disabled={!ready || running !== null || waiting}
                aria-describedby={waiting ? 'lesson-waiting' : undefined}
                onClick={() => void lessonStep()}
              >
                Run step {lesson.next + 1} of {lesson.lesson.steps.length}
              </button>
              {/* Beside the button too: a learner who skims the step's text must not find it dead. */}
              {waiting && (
                <span className="lesson-next-why" data-testid="lesson-next-why">
                  {' '}
                  Waits for the damage: press &quot;Flip a byte for me&quot; above, or write an edited page with the lab.
                </span>
              )}
            </div>
          ) : (
            <p className="lesson-done" data-testid="lesson-done">
              Lesson done. Step back through the snapshots above to see each page again, or pick another lesson.
            </p>
          )}
        </div>
      )}

      <textarea
        className="play-sql"
        data-testid="play-sql"
        aria-label="SQL"
        spellCheck={false}
        rows={5}
        value={sql}
        onChange={(e) => setSql(e.target.value)}
        onKeyDown={onKey}
      />
      <div className="play-buttons">
        <button type="button" data-testid="play-run" disabled={!ready || running !== null} onClick={() => void run(sql)}>
          Run (Ctrl+Enter)
        </button>
        <button type="button" data-testid="play-cancel" disabled={running?.phase !== 'run'} onClick={cancel}>
          Cancel
        </button>
        {running?.phase === 'run' && <span role="status">Running…</span>}
        {running?.phase === 'save' && <span role="status">Saving the data directory…</span>}
      </div>
      {cancelled !== null && ready && !running && (
        <p className="notice" role="status" data-testid="play-cancelled">
          Cancelled <code className="play-stmt">{cancelled.sql.length > 80 ? `${cancelled.sql.slice(0, 80)}…` : cancelled.sql}</code>
          {cancelled.why ? ` (${cancelled.why})` : ''}: PostgreSQL in this tab cannot be interrupted inside a statement, so it was stopped and started again
          from its data directory as saved {cancelled.from === null ? 'before the first statement' : `after snapshot ${cancelled.from}`}. The cancelled
          statement left nothing behind; a transaction block left open before it was rolled back.
        </p>
      )}

      {cur && (
        <div className="play-snap" data-testid="play-snapshot" data-step={cur.step}>
          <div className="play-steps">
            <button type="button" data-testid="snap-back" disabled={at <= 0} onClick={() => go(at - 1)} aria-label="previous snapshot">
              ←
            </button>
            <span>
              Snapshot {cur.step} of {snaps.length}: <code className="play-stmt">{cur.sql.length > 80 ? `${cur.sql.slice(0, 80)}…` : cur.sql}</code> (
              {Math.round(cur.ms)} ms)
            </span>
            <button type="button" data-testid="snap-forward" disabled={at >= snaps.length - 1} onClick={() => go(at + 1)} aria-label="next snapshot">
              →
            </button>
            <select aria-label="snapshot" data-testid="snap-list" value={at} onChange={(e) => go(Number(e.target.value))}>
              {snaps.map((s, i) => (
                <option key={s.step} value={i}>
                  {s.step}: {s.sql.replace(/\s+/g, ' ').slice(0, 60)}
                  {s.error ? ' (error)' : ''}
                </option>
              ))}
            </select>
            <label>
              <input type="checkbox" data-testid="snap-compare" checked={compare} onChange={(e) => setCompare(e.target.checked)} /> compare with{' '}
              {prev ? `snapshot ${prev.step}` : 'the empty server'}
            </label>
          </div>
          {cur.error && <ServerErrorView error={cur.error} sql={cur.sql} />}
          {curLesson?.error && (
            <p className="lesson-checks" data-testid="lesson-check" data-ok={curLesson.error.test(cur.error?.message ?? '') ? 'true' : 'false'}>
              {curLesson.error.test(cur.error?.message ?? '') ? '✓ ' : 'expected, did not happen: '}the server&apos;s own error: {curLesson.error.source}
            </p>
          )}
          {cur.notices.map((n, i) => (
            <p key={i} className="notice" data-testid="play-notice">
              {n}
            </p>
          ))}
          {cur.note && <p className="notice">{cur.note}</p>}
          {cur.results
            .filter((r) => r.fields.length > 0)
            .slice(-1)
            .map((r, i) => (
              <ResultTable key={i} r={r} />
            ))}
          <FilesList snap={cur} open={open} shown={p.shown} />
          {compare && <SnapshotDiff a={prev ?? EMPTY} b={cur} open={open} expect={curLesson?.expect} />}
        </div>
      )}
      {p.shown && ready && <LabWrite entry={p.shown.entry} snaps={snaps} request={request} onWritten={() => setWrites((n) => n + 1)} />}
      {/* Beside the decoded page panels when the app shows its slot, else here. */}
      {(picture || ask) &&
        (slot ? (
          createPortal(
            <>
              {picture}
              {ask}
            </>,
            slot,
          )
        ) : (
          <>
            {picture}
            {ask}
          </>
        ))}
    </section>
  );
}

function ServerErrorView({ error, sql }: { error: ServerError; sql: string }) {
  // The caret under the position the server names, as psql prints it.
  let where: string | null = null;
  if (error.position !== undefined) {
    const before = sql.slice(0, error.position - 1);
    const lineStart = before.lastIndexOf('\n') + 1;
    const lineEnd = sql.indexOf('\n', lineStart);
    const line = sql.slice(lineStart, lineEnd < 0 ? undefined : lineEnd);
    where = `${line}\n${' '.repeat(before.length - lineStart)}^`;
  }
  return (
    <div className="error play-error" role="alert" data-testid="play-error" data-code={error.code ?? ''}>
      <strong>{error.severity ?? 'ERROR'}:</strong> <span data-testid="play-error-message">{error.message}</span>
      {error.code && <span className="play-code"> (SQLSTATE {error.code})</span>}
      {where && <pre>{where}</pre>}
      {error.detail && <p>DETAIL: {error.detail}</p>}
      {error.hint && <p>HINT: {error.hint}</p>}
    </div>
  );
}

function ResultTable({ r }: { r: ResultSet }) {
  return (
    <div className="play-result">
      <table data-testid="play-result">
        <thead>
          <tr>
            {r.fields.map((f, i) => (
              <th key={i}>{f}</th>
            ))}
          </tr>
        </thead>
        <tbody>
          {r.rows.map((row, i) => (
            <tr key={i}>
              {row.map((v, j) => (
                <td key={j}>{v.length > 120 ? `${v.slice(0, 120)}…` : v}</td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
      <p className="play-count">
        ({r.rowCount} {r.rowCount === 1 ? 'row' : 'rows'}
        {r.rowCount > r.rows.length ? `, the first ${r.rows.length} shown` : ''})
      </p>
    </div>
  );
}

/** "changed: blocks 0, 3 and 9 more" */
function changedWords(blocks: number[]): string {
  if (blocks.length === 0) return 'changed';
  const shown = blocks.slice(0, 6).join(', ');
  return `changed: block${blocks.length === 1 ? '' : 's'} ${shown}${blocks.length > 6 ? ` and ${blocks.length - 6} more` : ''}`;
}

/** Relation kinds whose main fork is a heap (pg_class.relkind). */
const HEAP_RELKINDS = new Set(['r', 't', 'm']);

const ROLE: Record<string, string> = { r: 'table', i: 'index', t: 'TOAST table', S: 'sequence', m: 'materialized view' };

function FilesList({ snap, open, shown }: { snap: Snapshot; open(e: FileEntry, block: number): void; shown: PlaygroundProps['shown'] }) {
  if (snap.files.length === 0) return <p className="notice">No relations in the public schema yet.</p>;
  return (
    <table className="play-files" data-testid="play-files">
      <thead>
        <tr>
          <th>relation</th>
          <th>kind</th>
          <th>file</th>
          <th>pages</th>
          <th>this statement</th>
        </tr>
      </thead>
      <tbody>
        {snap.files.map((f) => (
          <tr
            key={f.path}
            data-testid="play-file"
            data-relation={f.relation.name}
            data-fork={f.fork}
            data-changed={f.changed ? 'true' : 'false'}
            data-filenode={f.relation.filenode}
            className={shown?.entry.id === f.entry.id ? 'sel' : undefined}
          >
            <td>
              {f.relation.name}
              {f.relation.owner && f.relation.owner !== f.relation.name ? <span className="play-owner"> of {f.relation.owner}</span> : null}
            </td>
            <td>
              {ROLE[f.relation.relkind] ?? f.relation.relkind}
              {f.relation.am && f.relation.relkind !== 'r' && f.relation.relkind !== 't' ? ` (${f.relation.am})` : ''}
              {f.fork !== 'main' ? `, ${f.fork === 'fsm' ? 'free space map' : 'visibility map'}` : ''}
            </td>
            <td>
              <button type="button" className="link" data-testid="play-open" disabled={f.entry.size === 0} onClick={() => open(f.entry, 0)}>
                {f.path}
              </button>
            </td>
            <td>{f.entry.size / 8192}</td>
            <td>{f.changed ? changedWords(f.changedBlocks) : ''}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** Writes the lab's edited pages of the file on screen into the server's relation file. */
function LabWrite({
  entry,
  snaps,
  request,
  onWritten,
}: {
  entry: FileEntry;
  snaps: Snapshot[];
  request<T extends FromPlay>(m: ToPlay, transfer?: Transferable[]): Promise<T>;
  onWritten(): void;
}) {
  const pages = useSyncExternalStore(subscribeEdits, () => editsOf(entry.id));
  const [said, setSaid] = useState<string | null>(null);
  // By id: the store may hand out a new object for the same file.
  const file = snaps.flatMap((s) => s.files).find((f) => f.entry.id === entry.id);
  if (!file || !pages || pages.size === 0) return null;
  const write = async () => {
    const errors: string[] = [];
    for (const [block, page] of pages) {
      const m = await request<Extract<FromPlay, { type: 'written' }>>({ type: 'write', job: nextJob++, path: file.path, block, page: page.slice() });
      if (m.error) errors.push(m.error);
    }
    if (errors.length === 0) onWritten();
    setSaid(
      errors.length > 0
        ? `Not written: ${errors.join('; ')}`
        : `Written: ${[...pages.keys()].map((b) => `block ${b}`).join(', ')} of ${file.path}. Run a statement that reads ${file.relation.name}.`,
    );
  };
  return (
    <p className="play-labwrite">
      <button type="button" data-testid="play-write-lab" onClick={() => void write()}>
        Write the lab&apos;s page{pages.size === 1 ? '' : 's'} into PostgreSQL&apos;s file ({file.path})
      </button>{' '}
      {said && (
        <span role="status" data-testid="play-written">
          {said}
        </span>
      )}
    </p>
  );
}
