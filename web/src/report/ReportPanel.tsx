// The incident report, the first thing shown after a drop: the core's report (computed in
// the report worker, the same the CLI prints) as a verdict, the findings in rank order (what
// the server refuses or what loses rows, then what is wrong but readable, then the routine
// notes counted in one line each), the steps, the Markdown download and a pgsql-bugs message.
// A finding with a block opens that page in the page view.
import { useEffect, useState, type ReactNode } from 'react';
import type { FileEntry } from '../files';
import type { ClusterControl } from '../app/control';
import type { Selection } from '../app/selection';
import { BUG_FIELDS, bugMessage, type BugFields } from './bugs';
import type { ReportBlock, ReportJson, ReportRelation, Severity } from './protocol';
import { useReport } from './useReport';
import { setRedact, useRedact } from '../share/redact';
import { shownReport } from './shown';
import { clipboardWrite, textBlob } from '../share/Share';
import { isReadAsEmpty, READ_AS_EMPTY, READ_AS_EMPTY_WORDS, severityBadge } from '../lib/status';
import './report.css';

const RANK: Record<Severity, number> = { error: 0, warning: 1, note: 2 };

/** Every damaged block by severity alone, errors first, the report's JSON order kept within
 * each: the page view's opening after a drop (which the tests of loose files' first problem
 * page hold), not the order the panel lists them in. */
export function bySeverity(r: ReportJson): { rel: ReportRelation; b: ReportBlock }[] {
  return r.relations.flatMap((rel) => rel.blocks.map((b) => ({ rel, b }))).sort((x, y) => RANK[x.b.severity] - RANK[y.b.severity]);
}

/** Every damaged block in the order the core's text and Markdown list them: errors first, then
 * warnings, then notes, and within each the pages read as empty first (nothing else points at
 * them); the report's order kept otherwise. A ticket and this screen then read alike. */
export function ranked(r: ReportJson): { rel: ReportRelation; b: ReportBlock }[] {
  return r.relations
    .flatMap((rel) => rel.blocks.map((b) => ({ rel, b })))
    .sort((x, y) => RANK[x.b.severity] - RANK[y.b.severity] || Number(isReadAsEmpty(y.b)) - Number(isReadAsEmpty(x.b)));
}

function download(text: string, name: string): void {
  const url = URL.createObjectURL(new Blob([text], { type: 'text/markdown' }));
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  a.click();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/** Named after the relation when one is damaged, else after the cluster. */
export function reportName(r: ReportJson, root: string): string {
  const names = [...new Set(r.relations.map((x) => x.relation ?? x.path.replace(/\//g, '-')))];
  const cluster = root.replace(/\/$/, '').split('/').pop() || (r.cluster.system_identifier ? `cluster-${r.cluster.system_identifier}` : 'cluster');
  return `${names.length === 1 ? names[0] : cluster}-report`;
}

/** The key of DAMAGE that says a block's class: the class, or its variant the block's fields
 * name (an all-zero index page the server refuses, random bytes over part of a page). */
export function damageKey(b: Pick<ReportBlock, 'damage' | 'server' | 'noise'>): string {
  if (b.damage === 'zeroed' && b.server) return 'zeroed_refused';
  if (b.damage === 'overwritten' && (b.noise?.length ?? 0) > 0) return 'overwritten_part';
  return b.damage;
}

export const DAMAGE: Record<string, string> = {
  zeroed: 'zeroed: an all-zero page where rows were; the server reads it as empty',
  // An index page that is all zeros where the index's links lead: the server refuses it.
  zeroed_refused: 'zeroed: an all-zero page the index still leads to; the server refuses it',
  overwritten: 'overwritten: not a PostgreSQL page (header and line pointers make no sense)',
  // Random bytes over part of a page whose header and line pointers are its own.
  overwritten_part: 'overwritten: random bytes over part of the page (its header and line pointers are its own)',
  torn: 'torn: some 512-byte sectors are from another write',
  misplaced: 'misplaced: the page holds another block',
  // A page that verifies but is older than the WAL says the latest checkpoint wrote.
  stale: 'stale: an older version of the page that the server reads without a word (a lost write, or a restore from an older copy)',
  bit_flip: 'bit flip: flipping a single bit makes the checksum valid',
  checksum: 'checksum mismatch with no single explanation',
  header: 'header: the checksum is valid but the page header is not',
  // One field out of PageIsVerified's range; the line pointers and tuples are the page's own.
  header_field: 'header field: one field of the page header is wrong, the rest of the page is its own',
  structure: 'structure: amcheck finds the page wrong although its checksum is valid',
  // A page that verifies whose rows disagree with the table's B-tree indexes (heapallindexed).
  key_mismatch:
    'key mismatch: the page passes its checksum, but its rows and the index entries disagree (a key not the one its entry holds, or no entry at all)',
  // A page that verifies whose rows look older than its table's by the table's indexes.
  older:
    "older: the page passes its checksum, but its rows look older than its table's: rows its indexes have no entry for (deleted or updated since) are back, and the server reads them without a word",
  // A block past the end of the table's file that its indexes still point into.
  missing: "missing: past the end of the table's file, though its indexes point into it; sequential scans miss its rows without a word",
};

/** The core's lines as whole sentences: a capital first letter (unless the first word is a
 * name such as pg_surgery) and a full stop. */
export const sentence = (s: string) => (/^[^\s_./=()]*\s/u.test(s) ? s.replace(/^\p{Ll}/u, (c) => c.toUpperCase()) : s) + (/[.!?]$/.test(s) ? '' : '.');

const plural = (n: number, one: string, many: string) => `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`;

/** Rows the block cannot count: their sentence is the core's reason (its `bound`) itself. */
const uncounted = (rows: NonNullable<ReportBlock['rows']>) => rows.known_from === 'unknown' || rows.lost === null;

export function rowsSentence(rows: NonNullable<ReportBlock['rows']>): string {
  // uncounted(rows), spelled out for the type of rows.lost below.
  if (rows.known_from === 'unknown' || rows.lost === null) {
    const readable = rows.readable === null ? '' : ` ${plural(rows.readable, 'row is', 'rows are')} readable.`;
    // The core's reason where it gives one (an older page: only the WAL's records tell).
    return `${rows.bound ? sentence(rows.bound) : 'How many rows this block held is not known: its header cannot be trusted and no index points into it.'}${readable}`;
  }
  const lost = rows.lost === 0 ? 'No row is lost' : `${rows.upper_bound ? 'At most ' : ''}${plural(rows.lost, 'row is', 'rows are')} lost`;
  const readable =
    rows.readable === null
      ? 'how many are readable is not known'
      : rows.readable === 0
        ? 'no row is readable'
        : `${plural(rows.readable, 'row is', 'rows are')} readable`;
  const from =
    rows.known_from === 'index'
      ? `as the entries of ${rows.index ? `the index ${rows.index}` : "the table's indexes"} that point into this block say`
      : "as the page's own line pointers say";
  // Rows, not index entries: a row updated without HOT keeps its older version's entry.
  const entries =
    rows.index_entries !== undefined && rows.index_entries !== rows.lost ? ` (${plural(rows.index_entries, 'index entry', 'index entries')})` : '';
  const said = `${lost}${entries} and ${readable}, ${from}.`.replace(/^./, (c) => c.toUpperCase());
  if (!rows.stale) return said;
  // Which keys, and where each is live, is the core's evidence beside this sentence: said once.
  return `${said} ${plural(rows.stale, 'stale version is', 'stale versions are')} counted as neither: ${rows.stale === 1 ? 'an older version of a row' : 'older versions of rows'} live on other pages, as the evidence says.`;
}

/** A finding's rows line: the rows sentence, then the core's bound on the count (`sayBound`:
 * at the first block that has it). Where the rows are not counted, the sentence is the bound
 * already: said once. */
export function rowsLine(rows: NonNullable<ReportBlock['rows']>, sayBound: boolean): string {
  const said = rowsSentence(rows);
  return rows.bound && sayBound && !uncounted(rows) ? `${said} ${sentence(rows.bound)}` : said;
}

function keyText(k: (string | null)[]): string {
  return k.length === 1 ? (k[0] ?? 'NULL') : `(${k.map((v) => v ?? 'NULL').join(', ')})`;
}

/** A lost key as listed: a repeated one with its number of index entries. */
const lostKeyText = (rows: NonNullable<ReportBlock['rows']>) => (k: (string | null)[]) => {
  const same = rows.repeated?.find((r) => r.keys.length === k.length && r.keys.every((v, i) => v === k[i]));
  if (!same) return keyText(k);
  return `${keyText(k)} (${same.entries} index entries: ${same.entries === 2 ? 'one is an older version' : 'all but one are older versions'})`;
};

function Finding({
  rel,
  b,
  entry,
  effects,
  restore,
  onOpen,
  sayBound,
}: {
  rel: ReportRelation;
  b: ReportBlock;
  entry: FileEntry | undefined;
  effects: Record<string, string>;
  /** The core's steps restore this block from its WAL image (an index's they rebuild instead). */
  restore: boolean;
  onOpen: Opener;
  sayBound: boolean;
}) {
  const name = rel.relation ?? rel.path;
  return (
    <li
      className={`finding severity-${b.severity}`}
      data-testid="finding"
      data-severity={b.severity}
      data-file={b.file}
      data-block={b.block_in_file}
      data-damage={b.damage}
    >
      <h4>
        <button
          type="button"
          className="finding-open"
          disabled={!entry}
          onClick={() => entry && onOpen(entry, b.block_in_file)}
          title={entry ? 'show this page in the page view' : 'the file was not dropped'}
        >
          {/* The contract's severity stays error (rows are lost); the badge says that the
              server raises none for a zeroed page, which is what makes it dangerous. */}
          <span className="severity">{severityBadge(b)}</span> Block {b.block} of {rel.relation ? name : `the file ${name}`}
          {rel.database ? ` in database ${rel.database}` : ''}
          {rel.relation ? ` (${b.file}${b.block !== b.block_in_file ? `, block ${b.block_in_file} of that file` : ''})` : ''}
        </button>
      </h4>
      <p className="incident-damage">{sentence(DAMAGE[damageKey(b)] ?? b.damage)}</p>
      {/* The core's one line for the block, read before its evidence. */}
      <p className="incident-headline" data-testid="finding-headline">
        <strong>{sentence(b.headline)}</strong>
      </p>
      {isReadAsEmpty(b) && (
        <p className="read-as-empty" data-testid="read-as-empty-words">
          {sentence(`${READ_AS_EMPTY}: ${READ_AS_EMPTY_WORDS}`)}
        </p>
      )}
      {b.rows && (
        <p
          className="incident-rows"
          data-testid="finding-rows"
          data-lost={b.rows.lost ?? ''}
          data-readable={b.rows.readable ?? ''}
          data-known-from={b.rows.known_from}
        >
          {rowsLine(b.rows, sayBound)}
        </p>
      )}
      {b.wal_image && <WalImageLine b={b} entry={entry} effects={effects} restore={restore} onOpen={onOpen} />}
      {b.rows?.keys && b.rows.keys.length > 0 && (
        <p className="incident-keys" data-testid="lost-keys" data-index={b.rows.index ?? ''}>
          The lost rows&apos; keys in {b.rows.index ?? 'the index'} ({b.rows.keys.length.toLocaleString('en-US')}):{' '}
          {/* A box of its own: thousands of keys would push every other finding out of sight. */}
          <span data-testid="lost-key-list" tabIndex={0} aria-label="the lost rows' keys">
            {b.rows.keys.map(lostKeyText(b.rows)).join(', ')}
          </span>
        </p>
      )}
      {b.bit_flips && b.bit_flips.length > 0 && (
        // Its own scrolling box on a phone, which the keyboard can reach.
        <div className="incident-flips" tabIndex={0} role="region" aria-label={`bit flips of block ${b.block}`}>
          <table data-testid="bit-flips">
            <caption>Single-bit flips that make the checksum valid</caption>
            <thead>
              <tr>
                <th>byte</th>
                <th>bit</th>
                <th>field</th>
                <th>item</th>
                <th>column</th>
                <th>stored</th>
                <th>flipped back</th>
                <th>rank, and why</th>
              </tr>
            </thead>
            <tbody>
              {b.bit_flips.map((f) => (
                <tr key={`${f.byte}-${f.bit}`} data-testid="bit-flip" data-item={f.item ?? ''} data-column={f.column ?? ''}>
                  <td>{f.byte}</td>
                  <td>{f.bit}</td>
                  <td>{f.field}</td>
                  <td>{f.item ?? ''}</td>
                  <td>{f.column ?? ''}</td>
                  <td className="value">{f.stored ?? ''}</td>
                  <td className="value">{f.flipped ?? ''}</td>
                  <td className="why">
                    {f.rank}. {f.why}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {(b.server || b.evidence.length > 0) && (
        // Folded: the lines above say what happened and what it costs; the server's words and
        // what the bytes show are the proof, opened by whoever checks it. Several findings
        // then fit on one screen.
        <details className="incident-why" data-testid="finding-why">
          <summary>
            Why:{' '}
            {[b.server ? "the server's words" : '', b.evidence.length > 0 ? `what the bytes show (${b.evidence.length})` : ''].filter(Boolean).join(' and ')}
          </summary>
          {b.server && (
            <>
              <p>The server says:</p>
              {/* One line per message, as the server's log prints them. */}
              <pre className="incident-server" data-testid="server-says">
                {b.server}
              </pre>
            </>
          )}
          {b.evidence.length > 0 && (
            <ul className="incident-evidence">
              {b.evidence.map((e, i) => (
                <li key={i}>{sentence(e)}</li>
              ))}
            </ul>
          )}
        </details>
      )}
    </li>
  );
}

/** Where the page view's WAL panel takes a block: to its rebuild from WAL (`pgpage recover`'s
 * replay, or why it is refused) when records after the image change it, which the image alone
 * would lose; else to the image's "Use this page". */
const walTarget = (b: ReportBlock): string =>
  (b.wal_image?.later.length ?? 0) > 0 || b.wal_image?.init ? '[data-testid=wal-rebuild-take], [data-testid=wal-rebuild-refused]' : '[data-testid=wal-use]';

/** The block's newest full-page image in the dropped WAL, the records after it and what
 * restoring it loses (the core's words), and the page view's WAL panel, which rebuilds the
 * block with those records (or puts the image alone) in the repaired copy. */
function WalImageLine({
  b,
  entry,
  effects,
  restore,
  onOpen,
}: {
  b: ReportBlock;
  entry: FileEntry | undefined;
  effects: Record<string, string>;
  restore: boolean;
  onOpen: Opener;
}) {
  const image = b.wal_image!;
  return (
    <div className="incident-wal" data-testid="finding-wal" data-lsn={image.lsn} data-records-after={image.later.length}>
      <p>
        {image.init
          ? `The WAL dropped holds no full-page image of this block, but the record at LSN ${image.lsn} builds the page from nothing`
          : `The WAL dropped holds a full-page image of this block at LSN ${image.lsn}`}
        {image.later.length === 0 ? '.' : `; after it, ${plural(image.later.length, 'record', 'records')} (${image.kinds.join(', ')}).`}{' '}
        {image.init ? "Replaying them all rebuilds the page, as the server's recovery would." : sentence(image.restoring)}
      </p>
      {image.later.length > 0 && (
        <details className="incident-wal-records" data-testid="finding-wal-records">
          <summary>each record</summary>
          <ol>
            {image.later.map((l) => (
              <li key={l.lsn}>
                {l.lsn} {l.record}
                {effects[l.effect] ? ` (${effects[l.effect]})` : ''}
              </li>
            ))}
          </ol>
        </details>
      )}
      {restore && (
        <button
          type="button"
          data-testid="finding-wal-open"
          disabled={!entry}
          onClick={() => entry && onOpen(entry, b.block_in_file, walTarget(b))}
          title={
            !entry
              ? 'the file was not dropped'
              : image.later.length > 0 || image.init
                ? 'rebuild the block from the image and the records after it, as pgpage recover does'
                : "show the image beside the damaged page, with 'Use this page'"
          }
        >
          {image.later.length > 0 || image.init ? 'Rebuild it from the WAL…' : 'Restore it from the WAL image…'}
        </button>
      )}
    </div>
  );
}

/** The core's steps restore the block from the WAL: replayed (pgpage recover) or its image. */
const fromWal = (b: ReportBlock) => b.route === 'recover';

/** A step of the core's: its sentences as prose, each command (an indented line, or a command
 * or SQL statement the sentence ends on) as code to copy exactly, never with a full stop glued
 * to it; under the WAL images' step, the blocks to restore in this app. */
export function Step({
  text,
  walBlocks,
  onOpen,
}: {
  text: string;
  walBlocks: { rel: ReportRelation; b: ReportBlock; entry: FileEntry | undefined }[];
  onOpen: Opener;
}) {
  const lines = text.split('\n');
  const commands = lines.filter((l) => l.startsWith('  ')).map((l) => l.trim());
  // Under the step whose commands restore them from the WAL.
  const here = walBlocks.length > 0 && commands.some((c) => c.startsWith('pgpage recover ')) ? walBlocks : [];
  const inApp = here.length > 0;
  return (
    <li data-testid="report-step">
      {lines.map((line, i) =>
        line.startsWith('  ') ? (
          <pre key={i} className="step-command" data-testid="step-command">
            <code>{line.trim()}</code>
          </pre>
        ) : (
          <p key={i} className="step-line">
            <Prose text={i === 0 ? capital(line) : line} last={i === lines.length - 1} />
          </p>
        ),
      )}
      {inApp && (
        <div className="step-in-app" data-testid="step-in-app">
          <p>
            In this browser, without the shell: open each block and press &quot;Rebuild block N from WAL&quot; where records after its image changed it (the
            image is replayed with them, as <code>pgpage recover</code> does), else &quot;Use this page&quot; beside its image; either puts the page in the
            Repair kit below the page (nothing is downloaded yet); then &quot;Download repaired copy of …&quot; in the Repair kit downloads the file with every
            page put there replaced.
          </p>
          <ul>
            {here.map(({ rel, b, entry }) => (
              <li key={`${b.file}:${b.block_in_file}`}>
                <button
                  type="button"
                  data-testid="step-wal-open"
                  data-file={b.file}
                  data-block={b.block_in_file}
                  disabled={!entry}
                  onClick={() => entry && onOpen(entry, b.block_in_file, walTarget(b))}
                >
                  Block {b.block} of {rel.relation ?? rel.path}: {b.wal_image!.init ? 'the record that builds the page' : 'the image'} at {b.wal_image!.lsn}
                </button>
              </li>
            ))}
          </ul>
        </div>
      )}
    </li>
  );
}

const capital = (s: string) => (/^[^\s_./=()]*\s/u.test(s) ? s.replace(/^\p{Ll}/u, (c) => c.toUpperCase()) : s);

/** A command or SQL statement inside a sentence: `pgpage fpi --relation 1/2 DIR`, `REINDEX
 * INDEX public.t_pkey`, `pg_amcheck --heapallindexed`. */
const INLINE_COMMAND =
  /\b(?:pgpage [a-z]+(?: --?[\w-]+(?: (?:[A-Z][A-Z_]*|\d(?:[\w:/]|\.(?=\w))*))?)*|pg_amcheck(?: --[\w-]+)*|REINDEX (?:INDEX|TABLE) (?:[\w"]|\.(?=[\w"]))+)/g;

/** A sentence with its commands as code; the last line of a step gets its full stop unless it
 * ends on a command, which a full stop would change when copied. */
function Prose({ text, last }: { text: string; last: boolean }) {
  const parts: ReactNode[] = [];
  let at = 0;
  for (const m of text.matchAll(INLINE_COMMAND)) {
    parts.push(text.slice(at, m.index));
    parts.push(<code key={m.index}>{m[0]}</code>);
    at = m.index + m[0].length;
  }
  const tail = text.slice(at);
  parts.push(tail);
  const endsOnCommand = at === text.length && at > 0;
  return (
    <>
      {parts}
      {last && !endsOnCommand && !/[.!?:]$/.test(text) ? '.' : ''}
    </>
  );
}

type Opener = (f: FileEntry, block: number, then?: string) => void;

function BugTemplate({
  r,
  markdown,
  storage,
  controldata,
  name,
}: {
  r: ReportJson;
  markdown: string;
  storage: string | null;
  controldata: string | null;
  name: string;
}) {
  const [fields, setFields] = useState<BugFields>({ platform: '', storage: '', happened: '', log: '' });
  return (
    <>
      {/* Said before the composer, which stays folded: storage damage does not go to pgsql-bugs. */}
      {storage !== null && (
        <p className="bugs-storage" data-testid="report-bugs-storage">
          {storage}
        </p>
      )}
      <details className="bugs" data-testid="report-bugs" data-storage-damage={storage !== null}>
        <summary>{storage === null ? 'Report it to pgsql-bugs' : 'Report it to pgsql-bugs (only for a suspected PostgreSQL bug)'}</summary>
        <p>
          A message for <code>pgsql-bugs@lists.postgresql.org</code> with PostgreSQL {r.cluster.pg_version ?? '(version not known)'}, pg_control as
          pg_controldata prints it, and this report as its evidence. Fill in what only you know, then download it.
        </p>
        {BUG_FIELDS.map((f) => (
          <label key={f.key}>
            {f.label}
            <textarea
              rows={f.key === 'log' ? 5 : 2}
              placeholder={f.hint}
              value={fields[f.key]}
              data-field={f.key}
              onChange={(e) => setFields({ ...fields, [f.key]: e.target.value })}
            />
          </label>
        ))}
        <button
          type="button"
          data-testid="report-bugs-download"
          onClick={() => download(bugMessage(r, markdown, controldata, fields), `${name}-pgsql-bugs.txt`)}
        >
          Download the pgsql-bugs message
        </button>
      </details>
    </>
  );
}

export function ReportPanel({ files, controls, onPick }: { files: readonly FileEntry[]; controls: readonly ClusterControl[]; onPick: (s: Selection) => void }) {
  const { source, report, choose } = useReport(files);
  useEffect(() => {
    shownReport.set(source && report.state === 'done' ? { root: source.root, report: report.report, redacted: report.redacted } : null);
    return () => shownReport.set(null);
  }, [source, report]);
  if (!source) return null;
  const onOpen: Opener = (f, block, then) => {
    onPick({ fileId: f.id, block, offset: 0 });
    // The page view comes with the selection: bring it into sight once it has its page, or
    // the part of it asked for (the WAL's rebuild or "Use this page") once that is there.
    let tries = 0;
    const look = () => {
      const view = document.querySelector('[data-testid=page-view]');
      const ready = view && view.getAttribute('data-state') !== 'loading';
      const target = ready && then ? view.querySelector<HTMLElement>(then) : null;
      if (target) {
        target.scrollIntoView({ block: 'center' });
        target.focus();
        keep(target, target.getBoundingClientRect().top + window.scrollY, 0);
      } else if (ready && (!then || tries >= 200)) view.scrollIntoView({ block: 'start' });
      else if (tries++ < 200) setTimeout(look, 50);
    };
    // What loads above the target after it appears (the page view's later parts) moves it out
    // of sight: for a few seconds it is brought back when it moves, never when the reader
    // scrolls (that leaves its place in the document as it was).
    const keep = (target: HTMLElement, at: number, ticks: number) => {
      if (ticks >= 40 || !target.isConnected) return;
      const now = target.getBoundingClientRect().top + window.scrollY;
      if (Math.abs(now - at) > 1) target.scrollIntoView({ block: 'center' });
      setTimeout(() => keep(target, now, ticks + 1), 100);
    };
    setTimeout(look, 0);
  };
  return (
    <section className="incident" data-testid="incident-report" data-state={report.state} aria-labelledby="report-title">
      <h2 id="report-title">Incident report</h2>
      {source.others && source.others.length > 0 && (
        <div className="note" data-testid="report-others">
          <p>
            This report is of <code>{source.root}</code>
            {source.backup ? (
              <>
                , its damaged blocks held against the base backup <code>{source.backup.root}</code>, as{' '}
                <code>
                  pgpage report --from {source.backup.root.replace(/\/$/, '')} {source.root.replace(/\/$/, '')}
                </code>{' '}
                does
              </>
            ) : null}
            . The drop holds {source.others.length === 1 ? 'another data directory' : 'other data directories'} too, whose pages are in the inventory below
            {source.backup ? '' : ' but not in this report'}:
          </p>
          <ul>
            {source.others.map((o) => (
              <li key={o}>
                <code>{o}</code>{' '}
                {source.backup?.root === o ? (
                  <button type="button" data-testid="report-backup-off" onClick={() => choose({ root: source.root })}>
                    Stop using it as the base backup
                  </button>
                ) : (
                  <button type="button" data-testid="report-backup" onClick={() => choose({ root: source.root, backup: o })}>
                    Use it as the base backup
                  </button>
                )}{' '}
                <button type="button" data-testid="report-switch" onClick={() => choose({ root: o })}>
                  Report on it instead
                </button>
              </li>
            ))}
          </ul>
        </div>
      )}
      {report.state === 'running' && (
        <p role="status" data-testid="report-progress">
          Reading the {source.root ? 'data directory' : 'files'} for the report:{' '}
          {report.total > 0
            ? `${Math.round((100 * Math.min(report.read, report.total)) / report.total)}% of ${(report.total / 1e6).toFixed(1)} MB`
            : 'starting'}
          .
          <progress max={report.total || 1} value={Math.min(report.read, report.total)} />
        </p>
      )}
      {report.state === 'error' && (
        <p role="alert" data-testid="report-error">
          No report could be made: {report.message}
        </p>
      )}
      {report.state === 'done' && (
        <ReportBody
          r={report.report}
          markdown={report.markdown}
          markdownRedacted={report.markdownRedacted}
          summary={report.summary}
          summaryRedacted={report.summaryRedacted}
          storage={report.storage}
          effects={report.effects}
          root={source.root}
          files={files}
          controls={controls}
          onOpen={onOpen}
        />
      )}
    </section>
  );
}

function ReportBody({
  r,
  markdown,
  markdownRedacted,
  summary,
  summaryRedacted,
  storage,
  effects,
  root,
  files,
  controls,
  onOpen,
}: {
  r: ReportJson;
  markdown: string;
  markdownRedacted: string;
  summary: string;
  summaryRedacted: string;
  storage: string | null;
  effects: Record<string, string>;
  root: string;
  files: readonly FileEntry[];
  controls: readonly ClusterControl[];
  onOpen: Opener;
}) {
  const blocks = ranked(r);
  const maps = r.map_pages ?? [];
  const missing = r.missing_indexes ?? [];
  const duplicates = r.duplicate_keys ?? [];
  const name = reportName(r, root);
  const control = controls.find((c) => c.root === root)?.control;
  const controldata = typeof control?.text === 'string' ? control.text : null;
  const byPath = new Map(files.map((f) => [f.path, f]));
  const walBlocks = blocks.filter(({ b }) => b.wal_image && fromWal(b)).map(({ rel, b }) => ({ rel, b, entry: byPath.get(`${root}${b.file}`) }));
  // The summary's count: every file of the drop it verified, each fork and segment.
  const verified = files.filter((f) => f.path.startsWith(root) && !f.path.startsWith('playground/')).length;
  // The page view's "Redact row data" switch holds for the report too: on, what is downloaded
  // is the core's redacted report (pgpage report --markdown --redact).
  const redacted = useRedact();
  const shared = redacted ? markdownRedacted : markdown;
  const [summaryMsg, setSummaryMsg] = useState<string | null>(null);
  const bugs = <BugTemplate r={r} markdown={shared} storage={storage} controldata={controldata} name={name} />;
  return (
    <>
      <p className={`report-verdict${blocks.length > 0 ? ' damaged' : ''}`} data-testid="report-verdict">
        {r.verdict}
      </p>
      <p className="report-cluster">
        PostgreSQL {r.cluster.pg_version ?? '(version not known)'}, data checksums {r.cluster.data_checksums}
        {r.cluster.state ? `, ${r.cluster.state}` : ''}: {plural(r.pages, 'main-fork page', 'main-fork pages')} read in{' '}
        {plural(r.files, 'main-fork file', 'main-fork files')}
        {verified > r.files
          ? ` (the tables' and indexes' own data; the checksum inventory below verifies the checksums of all ${verified.toLocaleString('en-US')} files, free space and visibility maps included)`
          : ''}
        .
      </p>
      <div className="report-actions">
        <button type="button" data-testid="report-markdown" onClick={() => download(shared, `${name}.md`)}>
          Download the report (Markdown{redacted ? ', row data redacted' : ''})
        </button>{' '}
        <button
          type="button"
          data-testid="report-summary"
          title="The verdict, the damaged blocks and each one's line: short enough for a mailing-list post (attach the whole report). As pgpage report --summary"
          onClick={() => {
            const text = redacted ? summaryRedacted : summary;
            void clipboardWrite('text/plain', Promise.resolve(textBlob(text))).then((ok) =>
              setSummaryMsg(ok ? 'copied the summary' : 'the browser did not allow copying the summary: download the report instead'),
            );
          }}
        >
          Copy a summary for a mailing list
        </button>
        {summaryMsg && (
          <span role="status" data-testid="report-summary-status">
            {' '}
            {summaryMsg}
          </span>
        )}
        <label
          className="redact-switch"
          data-testid="report-redact-switch"
          title="Leave column values and keys out of the downloaded report (keys are counted): as pgpage report --redact"
        >
          <input type="checkbox" role="switch" data-testid="report-redact" checked={redacted} onChange={(e) => setRedact(e.currentTarget.checked)} /> Redact row
          data in the download (the screen keeps it)
        </label>
      </div>
      <div
        className={`report-main${r.steps.length > 0 && (blocks.length > 0 || r.notes.length > 0 || maps.length > 0 || missing.length > 0 || duplicates.length > 0) ? ' with-steps' : ''}`}
      >
        <div className="report-findings">
          {(blocks.length > 0 || r.notes.length > 0 || maps.length > 0 || missing.length > 0 || duplicates.length > 0) && (
            <ol className="findings" aria-label="findings, the worst first">
              {blocks.map(({ rel, b }, i) => (
                // The same reason under every block would bury the blocks: said at its first.
                <Finding
                  key={`${b.file}:${b.block_in_file}`}
                  rel={rel}
                  b={b}
                  entry={byPath.get(`${root}${b.file}`)}
                  effects={effects}
                  restore={fromWal(b)}
                  onOpen={onOpen}
                  sayBound={!blocks.slice(0, i).some((x) => x.b.rows?.bound === b.rows?.bound)}
                />
              ))}
              {missing.map((m) => (
                <li
                  key={m.sql_index}
                  className="finding severity-error"
                  data-testid="finding"
                  data-severity="error"
                  data-code="missing_index"
                  data-index={m.sql_index}
                >
                  <span className="severity">error</span> {sentence(m.line)}
                </li>
              ))}
              {duplicates.map((d) => (
                <li
                  key={`dup:${d.sql_index}`}
                  className="finding severity-error"
                  data-testid="finding"
                  data-severity="error"
                  data-code="duplicate_keys"
                  data-index={d.sql_index}
                >
                  <span className="severity">error</span> {sentence(d.line)}
                </li>
              ))}
              {maps.map((m) => (
                <li
                  key={`${m.file}:${m.block}`}
                  className="finding severity-warning"
                  data-testid="finding"
                  data-severity="warning"
                  data-code="map_page"
                  data-file={m.file}
                  data-block={m.block}
                >
                  <span className="severity">warning</span> {sentence(m.line)}
                  <pre className="incident-server">{m.server}</pre>
                </li>
              ))}
              {r.notes.map((n) => (
                <li key={n.code} className="finding severity-note" data-testid="finding" data-severity="note" data-code={n.code} data-count={n.count}>
                  <span className="severity">note</span> {plural(n.count, 'time', 'times')}: {sentence(n.message)}
                </li>
              ))}
            </ol>
          )}
          {r.unknown.length > 0 && (
            <>
              <h3>Not known</h3>
              <ul data-testid="report-unknown">
                {r.unknown.map((u, i) => (
                  <li key={i}>{sentence(u)}</li>
                ))}
              </ul>
            </>
          )}
        </div>
        {r.steps.length > 0 && (
          // Open: in an incident the steps are what a DBA acts on. On a wide screen they stand
          // beside the findings, as tall as those (scrolling in their box when longer), so the
          // checksum inventory's verdict stays on the first screen.
          <div className="report-steps">
            <div className="steps-box">
              <details className="steps" open>
                <summary>What to do, in order ({r.steps.length} steps)</summary>
                <ol data-testid="report-steps">
                  {r.steps.map((s, i) => (
                    <Step key={i} text={s} walBlocks={walBlocks} onOpen={onOpen} />
                  ))}
                </ol>
              </details>
              {/* Reporting a bug is the steps' last resort: after them. */}
              {bugs}
            </div>
          </div>
        )}
      </div>
      {r.steps.length === 0 && bugs}
    </>
  );
}
