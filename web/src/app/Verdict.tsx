// The first thing the page says once files are in: is anything wrong, and where. The verdict
// counts the core's problem pages and the files they are in; the affected files follow, each
// with what is wrong in it, and a link to its first problem page. Notes (pages the server
// accepts though rows may be gone there) are said beside it, never counted as problems.
import type { FileEntry } from '../files';
import { zeroRuns, type ProblemRef, type Selection } from './selection';
import { useFileKind } from './kind';
import { relationWords } from './catalog';
import { countsOf } from './groups';
import { READ_AS_EMPTY, READ_AS_EMPTY_WORDS, STATUS_NAMES } from '../lib/status';
import { findingAt, shownReport } from '../report/shown';
import { loadWasm } from '../core';
import { useEffect, useState } from 'react';
import './first.css';

const plural = (n: number, one: string, many = `${one}s`) => `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`;

/** The blocks of a run of all-zero pages. */
const zeroBlocks = (x: { block?: number; pages?: number }): number[] =>
  x.block === undefined ? [] : Array.from({ length: x.pages ?? 1 }, (_, i) => (x.block ?? 0) + i);

const zeroPages = (f: FileEntry) => zeroRuns(f).reduce((n, x) => n + (x.pages ?? 1), 0);
const problemPages = (f: FileEntry) => f.problems.filter((p) => p.problem).length;
/** What the core's verdict lists against the file: problem pages, a short read, notes. */
const affected = (f: FileEntry) => f.problem || zeroRuns(f).length > 0;

export function Verdict(p: { files: readonly FileEntry[]; problems: readonly ProblemRef[]; state: string }) {
  const { files } = p;
  const report = shownReport.use();
  if (p.state === 'running') {
    const done = files.filter((f) => f.state !== 'queued' && f.state !== 'running').length;
    return (
      <p className="verdict-line running" data-testid="verdict-progress">
        Verifying: {done.toLocaleString('en-US')} of {plural(files.length, 'file')} done
        {p.problems.length > 0 ? `, ${plural(p.problems.length, 'problem page')} so far` : ''}…
      </p>
    );
  }
  if (p.state !== 'done') return null;
  const problemFiles = files.filter((f) => f.problem).length;
  const short = files.filter((f) => f.findings.some((x) => x.code === 'read_short')).length;
  const zeros = files.filter((f) => zeroRuns(f).length > 0);
  const ok = p.problems.length === 0 && short === 0;
  // The server reads the maps zeroing what fails (RBM_ZERO_ON_ERROR): not a refusal.
  const mapProblems = p.problems.filter((x) => x.f.rel?.fork === 'vm' || x.f.rel?.fork === 'fsm').length;
  const verified = files.filter((f) => f.state === 'done').length;
  const pagesOfZeros = zeros.reduce((n, f) => n + zeroPages(f), 0);
  // What a heap's _vm says wrong of its pages (the FSM's notes the server corrects itself).
  const mapPages = files.reduce((n, f) => n + new Set(f.pageFindings.filter((x) => !x.amcheck && x.evidence !== 'note').map((x) => x.block)).size, 0);
  // What amcheck's per-page checks find (verify_heapam's, bt_index_check's...): corruption
  // the server reads without complaint.
  // A page the server already refuses (a checksum failure) is counted with the problem
  // pages, not here: these are the pages it reads.
  const refused = new Set(p.problems.map((x) => `${x.f.id}:${x.p.block}`));
  const corrupt = files
    .flatMap((f) => f.pageFindings.filter((x) => x.amcheck && x.evidence !== 'note').map((x) => `${f.id}:${x.block}`))
    .filter((k) => !refused.has(k));
  const amcheckPages = new Set(corrupt).size + files.reduce((n, f) => n + f.amcheckUnlisted, 0);
  const counts = countsOf(files);
  const blocks = STATUS_NAMES.reduce((n, s) => n + counts[s], 0);
  // Of the all-zero pages between rows, those the report finds zeroed with rows lost.
  const readAsEmpty = zeros.reduce(
    (n, f) => n + zeroRuns(f).reduce((m, x) => m + zeroBlocks(x).filter((b) => findingAt(report, f.path, b)?.damage === 'zeroed').length, 0),
    0,
  );
  return (
    <div className="verdict-box" data-verdict={ok ? 'ok' : 'problems'}>
      <p className={`verdict verdict-line ${ok ? 'ok' : 'bad'}`} data-testid="verdict">
        {ok
          ? `No problem pages in ${verified} verified files.`
          : p.problems.length === 0
            ? `${plural(short, 'file')} of the ${plural(files.length, 'file')} verified ${short === 1 ? 'ends' : 'end'} in a partial page: the server counts whole pages only and never reads ${short === 1 ? 'it' : 'them'}, but pg_checksums fails on ${short === 1 ? 'that file' : 'those files'}.`
            : `${plural(p.problems.length, 'problem page')}${short > 0 ? ` and ${plural(short, 'file')} that ${short === 1 ? 'ends' : 'end'} in a partial page` : ''} in ${plural(problemFiles, 'file')} of the ${plural(files.length, 'file')} verified: ${
                mapProblems === 0
                  ? 'the server would refuse to read them.'
                  : mapProblems === p.problems.length
                    ? `${mapProblems === 1 ? 'a visibility or free space map page, which the server zeroes' : 'visibility or free space map pages, which the server zeroes'} as it reads ${mapProblems === 1 ? 'it' : 'them'} (no row is lost).`
                    : `the server would refuse to read ${p.problems.length - mapProblems} of them, and zeroes the ${plural(mapProblems, 'visibility or free space map page', 'visibility or free space map pages')} as it reads ${mapProblems === 1 ? 'it' : 'them'} (no row is lost).`
              }`}
      </p>
      {!ok && <AffectedRelations files={files} />}
      {zeros.length > 0 && (
        <p className="verdict-note" data-testid="verdict-notes" data-read-as-empty={readAsEmpty}>
          {ok ? 'But ' : 'Also '}
          {plural(pagesOfZeros, 'all-zero page')} between pages with rows in {plural(zeros.length, 'file')}:{' '}
          {pagesOfZeros === 1
            ? 'the server reads it as an empty new page, so rows stored there would be gone (relation extension also leaves such pages: then nothing is lost).'
            : 'the server reads them as empty new pages, so rows stored there would be gone (relation extension also leaves such pages: then nothing is lost).'}
          {readAsEmpty > 0 &&
            ` The incident report finds ${readAsEmpty === pagesOfZeros ? (readAsEmpty === 1 ? 'it' : 'them') : plural(readAsEmpty, 'of them', 'of them')} ${READ_AS_EMPTY}: ${readAsEmpty === 1 ? READ_AS_EMPTY_WORDS : READ_AS_EMPTY_WORDS.replace('a zeroed page whose', 'zeroed pages whose').replace('reads it', 'reads them').replace('as an empty page', 'as empty pages')}.`}
        </p>
      )}
      <p className="verdict-note" data-testid="verdict-counts" data-blocks={blocks} data-files={files.length}>
        {plural(blocks, 'block')} in {plural(files.length, 'file')} verified, as <code>pgpage verify</code> and pg_checksums count them (
        {STATUS_NAMES.filter((s) => counts[s] > 0)
          .map((s) => `${counts[s].toLocaleString('en-US')} ${s}`)
          .join(', ')}
        )
        {report && files.some((f) => f.path.startsWith(report.root))
          ? `; the incident report reads the ${plural(report.report.pages, 'main-fork page')} of them in ${plural(report.report.files, 'main-fork file')} (the tables' and indexes' own data, without free space and visibility maps)`
          : ''}
        .
      </p>
      <ChecksumChange files={files} />
      {mapPages > 0 && (
        <p className="verdict-note" data-testid="verdict-maps">
          {ok && zeros.length === 0 ? 'But ' : 'Also '}
          {plural(mapPages, 'page')} that {mapPages === 1 ? 'its' : 'their'} relation's visibility map disagrees with, listed below: the server reads{' '}
          {mapPages === 1 ? 'it' : 'them'}, and no checksum shows it.
        </p>
      )}
      {amcheckPages > 0 && (
        <p className="verdict-note" data-testid="verdict-amcheck" data-pages={amcheckPages}>
          {ok && zeros.length === 0 && mapPages === 0 ? 'But ' : 'Also '}
          {plural(amcheckPages, 'page')} where amcheck&apos;s checks find corruption, listed below in its words: the server reads{' '}
          {amcheckPages === 1 ? 'it' : 'them'}, and no checksum shows it.
        </p>
      )}
    </div>
  );
}

/** While a PostgreSQL 19 cluster turns checksums on or off: what the server does then and how
 * many pages carry a valid checksum, in the words `pgpage verify` says them (the core's). */
function ChecksumChange({ files }: { files: readonly FileEntry[] }) {
  const changing = files.filter((f) => f.checksumsInProgress && f.checksumCounts);
  const codes = [...new Set(changing.map((f) => f.checksums))].sort();
  const sum = (k: 'checksums_valid' | 'checksums_not_yet' | 'checksums_not_yet_nonzero') => changing.reduce((n, f) => n + (f.checksumCounts?.[k] ?? 0), 0);
  const valid = sum('checksums_valid');
  const notYet = sum('checksums_not_yet');
  const nonzero = sum('checksums_not_yet_nonzero');
  const [words, setWords] = useState<string[]>([]);
  const key = `${codes.join(',')}|${valid}|${notYet}|${nonzero}`;
  useEffect(() => {
    if (codes.length === 0) return;
    let live = true;
    void loadWasm().then((w) => {
      const said = codes.map((c) => w.checksum_change_words(c)).filter((s): s is string => typeof s === 'string');
      said.push(w.checksum_counts_words(valid, notYet, nonzero));
      if (live) setWords(said);
    });
    return () => {
      live = false;
    };
    // `key` holds every input.
  }, [key]);
  if (codes.length === 0 || words.length === 0) return null;
  return (
    <p
      className={`verdict-note${nonzero > 0 ? ' warn' : ''}`}
      data-testid="verdict-checksum-change"
      data-valid={valid}
      data-not-yet={notYet}
      data-not-yet-nonzero={nonzero}
    >
      {words.map((s) => `${s.charAt(0).toUpperCase()}${s.slice(1)}.`).join(' ')}
    </p>
  );
}

/** The page of a verified file a DBA came for: its first problem page, else the block of a
 * short read, else the first all-zero page between rows; null when the verdict names none. */
export function firstPageToSee(f: FileEntry): number | null {
  return f.problems.find((x) => x.problem)?.block ?? f.findings.find((x) => x.code === 'read_short')?.block ?? zeroRuns(f)[0]?.block ?? null;
}

/** The relations the problem pages are in, as the catalogs name them, with their counts. */
function AffectedRelations({ files }: { files: readonly FileEntry[] }) {
  const by = new Map<string, number>();
  for (const f of files) {
    const pages = problemPages(f);
    const words = f.naming && relationWords(f.naming);
    if (pages === 0 || !words) continue;
    by.set(words, (by.get(words) ?? 0) + pages);
  }
  if (by.size === 0) return null;
  const list = [...by].sort((a, b) => b[1] - a[1]);
  return (
    <p className="verdict-note" data-testid="verdict-relations">
      In {plural(list.length, 'relation')}:{' '}
      {list.slice(0, 20).map(([words, pages], i) => (
        <span key={words} data-testid="affected-relation" data-relation={words} data-problems={pages}>
          {i > 0 && '; '}
          <strong>{words}</strong> ({plural(pages, 'problem page')})
        </span>
      ))}
      {list.length > 20 && `; and ${plural(list.length - 20, 'more relation')} in the files table below`}.
    </p>
  );
}

/** The files the verdict names, with what is wrong in each; a click shows its first page to look at. */
export function AffectedFiles(p: { files: readonly FileEntry[]; onPick(s: Selection): void }) {
  const list = p.files.filter(affected);
  if (list.length === 0) return null;
  return (
    <div className="affected">
      <h3>Affected files ({list.length.toLocaleString('en-US')})</h3>
      <ul>
        {list.slice(0, 200).map((f) => (
          <Affected key={f.id} f={f} onPick={p.onPick} />
        ))}
        {list.length > 200 && <li>… and {plural(list.length - 200, 'more file')}, in the files table below.</li>}
      </ul>
    </div>
  );
}

function Affected({ f, onPick }: { f: FileEntry; onPick(s: Selection): void }) {
  const kind = useFileKind(f);
  const pages = problemPages(f);
  const short = f.findings.find((x) => x.code === 'read_short');
  const zeros = zeroPages(f);
  const first = firstPageToSee(f) ?? 0;
  const what = [
    pages > 0 && plural(pages, 'problem page'),
    short && `a partial last block (${short.block})`,
    zeros > 0 && `${plural(zeros, 'all-zero page')} between pages with rows`,
  ].filter(Boolean);
  const words = f.naming && relationWords(f.naming);
  return (
    <li
      data-testid="affected-file"
      data-path={f.path}
      data-file={f.name}
      data-problems={pages}
      data-relation={words ?? undefined}
      className={f.problem ? 'bad' : 'note'}
    >
      <button type="button" className="link" onClick={() => onPick({ fileId: f.id, block: first, offset: 0 })}>
        {f.path}
      </button>{' '}
      {words && <span className="relation-name">{words}</span>} <span className="kind">{kind ?? ''}</span> {what.join(', ')}
    </li>
  );
}
