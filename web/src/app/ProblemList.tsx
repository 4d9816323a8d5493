// The problem list: one row per problem page of all files (the contract's
// [data-testid=problem] rows); clicking one, or Enter on it, shows that page. Up to
// ALL_IN_DOM rows are all in the document (tests and users' scripts read them); a longer list
// renders the rows in view only, and scrolls to the selected one.
import { memo, useEffect, useRef, useState } from 'react';
import { useVirtualizer } from '@tanstack/react-virtual';
import { measureAfterLayout } from './virtual';
import { checksumDecHex, sentence } from '../lib/messages';
import { STATUS_WORDS } from '../lib/status';
import type { FileEntry } from '../files';
import type { Chance, ProblemPage } from '../worker/protocol';
import { ZERO_BETWEEN_ROWS, type ProblemRef, type Selection } from './selection';
import { relationWords } from './catalog';
import { findingAt, shownReport } from '../report/shown';
import './lists.css';

/** The contract's promise: this many problem rows are all in the DOM. */
export const ALL_IN_DOM = 1000;
const ROW_ESTIMATE = 24;
/** Rows a list's picture keeps (share/png.ts); it says how many more there are. A list of
 * thousands would be a picture too tall to read or to paste. */
export const PNG_ROWS = 60;

/** The picture's cut of a list of `total` `noun`. */
const pngCut = (total: number, noun: string) => ({ 'data-png-most': PNG_ROWS, 'data-png-total': total, 'data-png-noun': noun });
const OVERSCAN = 20;

interface ListProps {
  problems: readonly ProblemRef[];
  sel: Selection | null;
  onPick(s: Selection): void;
}

export function ProblemList(p: ListProps) {
  if (p.problems.length === 0) return null;
  return p.problems.length <= ALL_IN_DOM ? <AllRows {...p} /> : <RowsInView {...p} />;
}

function Head() {
  return (
    <thead>
      <tr>
        <th>file</th>
        <th>block</th>
        <th>relation block</th>
        <th>status</th>
        <th>stored</th>
        <th>computed</th>
        <th>hint</th>
      </tr>
    </thead>
  );
}

const isSelected = (x: ProblemRef, sel: Selection | null) => sel !== null && sel.fileId === x.f.id && sel.block === x.p.block;

function AllRows(p: ListProps) {
  return (
    <table className="problems">
      <Head />
      <tbody {...pngCut(p.problems.length, 'problem pages')}>
        {p.problems.map((x) => (
          <ProblemRow key={`${x.f.id}:${x.p.block}`} x={x} current={isSelected(x, p.sel)} onPick={p.onPick} />
        ))}
      </tbody>
    </table>
  );
}

function RowsInView(p: ListProps) {
  const box = useRef<HTMLDivElement>(null);
  const v = useVirtualizer({
    count: p.problems.length,
    getScrollElement: () => box.current,
    estimateSize: () => ROW_ESTIMATE,
    getItemKey: (i) => `${p.problems[i].f.id}:${p.problems[i].p.block}`,
    overscan: OVERSCAN,
    measureElement: measureAfterLayout,
  });
  // `n` and `N` pick problems out of view: bring the picked row into the box.
  const selectedAt = p.sel ? p.problems.findIndex((x) => isSelected(x, p.sel)) : -1;
  useEffect(() => {
    if (selectedAt >= 0) v.scrollToIndex(selectedAt, { align: 'auto' });
  }, [selectedAt, v]);
  const items = v.getVirtualItems();
  const before = items.length > 0 ? items[0].start : 0;
  const after = items.length > 0 ? v.getTotalSize() - items[items.length - 1].end : 0;
  return (
    <div className="list-scroll" ref={box} data-testid="problems-scroll">
      <table className="problems">
        <Head />
        <tbody {...pngCut(p.problems.length, 'problem pages')}>
          {before > 0 && (
            <tr className="spacer" aria-hidden="true" style={{ height: before }}>
              <td colSpan={7} />
            </tr>
          )}
          {items.map((it) => {
            const x = p.problems[it.index];
            return <ProblemRow key={it.key} x={x} index={it.index} measure={v.measureElement} current={isSelected(x, p.sel)} onPick={p.onPick} />;
          })}
          {after > 0 && (
            <tr className="spacer" aria-hidden="true" style={{ height: after }}>
              <td colSpan={7} />
            </tr>
          )}
        </tbody>
      </table>
    </div>
  );
}

const ProblemRow = memo(function ProblemRow(p: {
  x: ProblemRef;
  current: boolean;
  onPick(s: Selection): void;
  index?: number;
  measure?(el: Element | null): void;
}) {
  const { f, p: page } = p.x;
  const pick = () => p.onPick({ fileId: f.id, block: page.block, offset: 0 });
  // A page whose status the server accepts but whose access method refuses it (a B-tree's
  // zero page its links reach): the hint is the server's own message.
  const refusal = page.status === 'zero' ? f.pageFindings.find((x) => x.block === page.block && x.amcheck && x.evidence === 'server') : undefined;
  // Once the incident report names the page, the first part of its one line says what
  // happened: the diagnosis a shared picture of the list must carry (the rest is the report's).
  const report = shownReport.use();
  // A file written as another segment or at another offset is said once, for the file.
  const whole = f.findings.some((x) => /written_(as_segment|at_offset)$/.test(x.code));
  const told = whole ? null : findingAt(report, f.path, page.block);
  return (
    <tr
      ref={p.measure}
      data-index={p.index}
      data-testid="problem"
      data-file={f.name}
      data-path={f.path}
      data-block={page.block}
      data-status={page.status}
      data-stored={page.stored}
      data-computed={page.computed ?? ''}
      tabIndex={0}
      className={p.current ? 'current' : undefined}
      aria-current={p.current ? 'true' : undefined}
      onClick={pick}
      onKeyDown={(e) => {
        // As a button: Enter or Space (which would otherwise scroll the page).
        if (e.key !== 'Enter' && e.key !== ' ') return;
        e.preventDefault();
        pick();
      }}
    >
      <td>{f.path}</td>
      <td>{page.block}</td>
      <td>{page.absoluteBlock}</td>
      <td>{refusal ? 'all-zero page that the index leads to: the server refuses it' : STATUS_WORDS[page.status]}</td>
      <td>{checksumDecHex(page.stored)}</td>
      <td>{page.computed === null ? '—' : checksumDecHex(page.computed)}</td>
      <td data-testid="hint" data-damage={told?.damage} data-claim={page.misplaced?.claim ? page.misplaced.block : undefined}>
        {refusal
          ? `the server refuses it: ${refusal.message}`
          : hint(page, f.chance) || (told ? `${DAMAGE_NAMES[told.damage] ?? told.damage}: ${told.headline.split('; ')[0]}` : '')}
      </td>
    </tr>
  );
});

/** The report's damage classes as a person reads them. */
const DAMAGE_NAMES: Record<string, string> = {
  bit_flip: 'bit flip',
  checksum: 'checksum mismatch',
  header_field: 'header field',
  key_mismatch: 'key mismatch',
  older: 'older than its table',
  missing: "missing: past the file's end",
};

/** What corroborates a claimed block, by the core's finding. */
const CLAIMED_BY: Record<string, string> = {
  misplaced_by_tuple_ids: "its tuples' t_ctid name it",
  misplaced_by_sibling_links: "its btree siblings' links name it",
};

/** `about 0.0018`, `about 2`: expected chance matches, to two figures. */
const about = (x: number): string => `about ${x >= 10 ? Math.round(x) : Number(x.toPrecision(2))}`;

/** The row's hint from the core's verdict: where the page was written (a claim, said with
 * its evidence), a candidate block with the odds of chance, or the block its tuples name. */
export function hint(p: ProblemPage, chance: Chance | null): string {
  const m = p.misplaced;
  const where = (b: number, inFile: number | null) => (inFile !== null ? `block ${inFile}` : `relation block ${b}`);
  if (m?.claim) return `written for ${where(m.block, m.inFile)}: its checksum is valid there and ${CLAIMED_BY[m.by] ?? 'other evidence agrees'}`;
  if (m) {
    const odds = chance ? `${about(chance.expected)} expected matches in the ${chance.searched} blocks searched` : 'unknown';
    return `checksum also valid for ${where(m.block, m.inFile)} — chance: ${odds}; not a claim`;
  }
  if (p.tupleBlock !== null && p.findings.includes('heap_tid_other_block')) return `its tuples' t_ctid name relation block ${p.tupleBlock}`;
  return '';
}

/** A link's accessible name: where it goes (the file, the block, the relation the catalogs
 * name), so that a screen reader's list of buttons tells apart the rows that all show the
 * same path. */
export function openName(f: FileEntry, block: number, what?: string): string {
  const rel = f.naming ? relationWords(f.naming) : null;
  return `Open ${f.path}, block ${block}${rel ? `, of ${rel}` : ''}${what ? `: ${what}` : ''}`;
}

/** The core's findings about whole files, once per file: a short read at its block, pages
 * written as another segment, all-zero pages between pages with rows (a note: the server
 * reads them, but rows may be gone). Checksums off is said once for all the files whose own
 * pages say so (where pg_control says so, its panel does). Then what a heap's _vm and _fsm
 * say of its pages, page by page (pages the server reads, so not problem rows; amcheck's
 * are AmcheckFindings'). A finding at a block opens it. */
export function FileFindings({ files, onPick, part = 'all' }: { files: readonly FileEntry[]; onPick?(s: Selection): void; part?: 'all' | 'zeros' | 'rest' }) {
  const off = 'checksums_disabled';
  // The all-zero pages between rows (which the server reads) have a section of their own,
  // apart from the problem pages it refuses: `part` picks them or the rest.
  const wanted = (code: string) => code !== off && (part === 'all' || (part === 'zeros') === (code === ZERO_BETWEEN_ROWS));
  const rows = files.flatMap((f) => f.findings.map((x, i) => ({ f, x, i })).filter(({ x }) => wanted(x.code)));
  const offFiles = part === 'zeros' ? [] : files.filter((f) => f.checksums !== 2 && f.findings.some((x) => x.code === off));
  // Routine notes (the FSM's, which the server corrects itself) are RoutineNotes', after the list.
  const pageRows = part === 'zeros' ? [] : files.flatMap((f) => f.pageFindings.filter((x) => !x.amcheck && x.evidence !== 'note').map((x) => ({ f, x })));
  if (rows.length === 0 && offFiles.length === 0 && pageRows.length === 0) return null;
  const names = offFiles.slice(0, 5).map((f) => f.path);
  return (
    <ul className="file-findings" data-png-most={PNG_ROWS} data-png-noun="findings">
      {offFiles.length > 0 && (
        <li data-testid="file-finding" data-code={off} data-files={offFiles.length}>
          {offFiles.length === 1 ? <code>{names[0]}</code> : `${offFiles.length} files (${names.join(', ')}${offFiles.length > names.length ? ', …' : ''})`}: no
          page stores a checksum: {offFiles[0].findings.find((x) => x.code === off)?.message}
        </li>
      )}
      {rows.map(({ f, x, i }) => {
        // The core's message names the block itself for zero pages ("block 7: ...").
        const block = x.block !== undefined && x.code !== 'zero_page_between_rows' ? `, block ${x.block}` : '';
        const open = x.block !== undefined && onPick ? () => onPick({ fileId: f.id, block: x.block ?? 0, offset: 0 }) : null;
        return (
          <li
            key={`${f.id}:${x.code}:${i}`}
            className={x.evidence === 'note' ? 'note' : undefined}
            data-testid="file-finding"
            data-file={f.name}
            data-path={f.path}
            data-code={x.code}
            data-block={x.block}
            data-pages={x.pages}
          >
            {open ? (
              <button type="button" className="link" aria-label={openName(f, x.block ?? 0, x.code.replace(/_/g, ' '))} onClick={open}>
                {f.path}
              </button>
            ) : (
              <code>{f.path}</code>
            )}
            {block}: {x.message}
          </li>
        );
      })}
      {pageRows.map(({ f, x }) => (
        <li
          key={`${f.id}:${x.block}:${x.code}`}
          className={x.evidence === 'note' ? 'note' : undefined}
          data-testid="page-finding"
          data-file={f.name}
          data-path={f.path}
          data-code={x.code}
          data-block={x.block}
        >
          {onPick ? (
            <button type="button" className="link" aria-label={openName(f, x.block)} onClick={() => onPick({ fileId: f.id, block: x.block, offset: 0 })}>
              {f.path}
            </button>
          ) : (
            <code>{f.path}</code>
          )}
          , block {x.block}: {x.message}
        </li>
      ))}
    </ul>
  );
}

/** Pages the incident report finds wrong although the server reads them without an error
 * (an older version of the block, a structure amcheck rejects under a valid checksum): no
 * checksum makes them problem pages, so without this they would be missing from the list
 * and from its picture, the most insidious damage of all. Each opens its page. */
export function ReadWithoutError({ files, problems, onPick }: { files: readonly FileEntry[]; problems: readonly ProblemRef[]; onPick(s: Selection): void }) {
  const shown = shownReport.use();
  if (!shown) return null;
  const byPath = new Map(files.map((f) => [f.path, f]));
  const listed = new Set(problems.map((x) => `${x.f.path}\u0000${x.p.block}`));
  const rows = shown.report.relations.flatMap((rel) =>
    rel.blocks.flatMap((b) => {
      const f = byPath.get(shown.root + b.file);
      // The all-zero pages have their own section; problem pages their row above, and the
      // report's own status says which those are while the inventory is still verifying.
      if (!f || b.damage === 'zeroed' || b.status !== 'ok' || listed.has(`${f.path}\u0000${b.block_in_file}`)) return [];
      return [{ rel, b, f }];
    }),
  );
  if (rows.length === 0) return null;
  return (
    <div className="read-without-error" data-testid="read-without-error">
      <h3>Pages the server reads without an error that the incident report finds wrong ({rows.length})</h3>
      <ul className="file-findings" {...pngCut(rows.length, 'pages')}>
        {rows.map(({ rel, b, f }) => (
          <li key={`${f.id}:${b.block_in_file}`} data-testid="read-without-error-page" data-path={f.path} data-block={b.block_in_file} data-damage={b.damage}>
            <button
              type="button"
              className="link"
              aria-label={openName(f, b.block_in_file, b.damage)}
              onClick={() => onPick({ fileId: f.id, block: b.block_in_file, offset: 0 })}
            >
              {f.path}
            </button>
            , block {b.block_in_file}
            {rel.relation ? ` (${rel.relation})` : ''}: {b.damage}: {b.headline.split('; ')[0]}
          </li>
        ))}
      </ul>
    </div>
  );
}

/** Notes the server needs no help with (a free space map promising more room than a page
 * has: the server corrects it when an insert finds less), one line per kind with its count,
 * after the problems; each page is listed inside, closed. */
export function RoutineNotes({ files, onPick }: { files: readonly FileEntry[]; onPick(s: Selection): void }) {
  const byCode = new Map<string, { f: FileEntry; x: FileEntry['pageFindings'][number] }[]>();
  // A note the core finds not routine on its page (the damage's possible trace) is the
  // incident report's to say, with that page's damage: counted here as the report counts.
  for (const f of files)
    for (const x of f.pageFindings) if (!x.amcheck && x.evidence === 'note' && !x.notRoutine) byCode.set(x.code, [...(byCode.get(x.code) ?? []), { f, x }]);
  if (byCode.size === 0) return null;
  return (
    <ul className="file-findings routine-notes">
      {[...byCode].map(([code, rows]) => {
        const fileCount = new Set(rows.map((r) => r.f.id)).size;
        return (
          <li key={code} className="note" data-testid="note-group" data-code={code} data-pages={rows.length}>
            <details>
              <summary>
                Note, {rows.length === 1 ? '1 page' : `${rows.length.toLocaleString('en-US')} pages`} in{' '}
                {fileCount === 1 ? '1 file' : `${fileCount.toLocaleString('en-US')} files`}: {sentence(rows[0].x.message)}
              </summary>
              <ul {...pngCut(rows.length, 'pages')}>
                {rows.map(({ f, x }) => (
                  <li key={`${f.id}:${x.block}`} data-testid="page-finding" data-file={f.name} data-path={f.path} data-code={x.code} data-block={x.block}>
                    <button
                      type="button"
                      className="link"
                      aria-label={openName(f, x.block)}
                      onClick={() => onPick({ fileId: f.id, block: x.block, offset: 0 })}
                    >
                      {f.path}
                    </button>
                    , block {x.block}
                  </li>
                ))}
              </ul>
            </details>
          </li>
        );
      })}
    </ul>
  );
}

/** amcheck findings shown before "show all": a damaged relation can have thousands. */
export const AMCHECK_SHOWN = 50;
/** Of those on problem pages, which the problem list already names. */
const AMCHECK_REFUSED_SHOWN = 10;

/** What amcheck's per-page checks find, after the problem pages (the server reads these
 * pages): one row per finding, at the relation block and offset pg_amcheck prints, in its
 * words; a click opens the page. */
export function AmcheckFindings({ files, onPick }: { files: readonly FileEntry[]; onPick(s: Selection): void }) {
  const [all, setAll] = useState(false);
  const [allRefused, setAllRefused] = useState(false);
  // The pages the server reads (the verdict's sentence counts these) apart from the problem
  // pages it refuses anyway, whose findings follow under their own heading.
  const refusedPages = new Set(files.flatMap((f) => f.problems.filter((p) => p.problem).map((p) => `${f.id}:${p.block}`)));
  const found = files.flatMap((f) => f.pageFindings.filter((x) => x.amcheck).map((x) => ({ f, x })));
  const rows = found.filter(({ f, x }) => !refusedPages.has(`${f.id}:${x.block}`));
  const onRefused = found.filter(({ f, x }) => refusedPages.has(`${f.id}:${x.block}`));
  const refusedWithFindings = new Set(onRefused.map(({ f, x }) => `${f.id}:${x.block}`)).size;
  const shownRefused = allRefused ? onRefused : onRefused.slice(0, AMCHECK_REFUSED_SHOWN);
  const unlisted = files.filter((f) => f.amcheckUnlisted > 0);
  if (found.length === 0) return null;
  const shown = all ? rows : rows.slice(0, AMCHECK_SHOWN);
  const row = ({ f, x }: (typeof found)[number]) => (
    <li
      key={`${f.id}:${x.block}:${x.code}:${x.offset ?? 0}`}
      className={x.evidence === 'note' ? 'note' : undefined}
      data-testid="page-finding"
      data-amcheck="true"
      data-file={f.name}
      data-path={f.path}
      data-code={x.code}
      data-block={x.block}
      data-relation-block={x.absoluteBlock}
      data-offset={x.offset}
    >
      <button type="button" className="link" aria-label={openName(f, x.block)} onClick={() => onPick({ fileId: f.id, block: x.block, offset: 0 })}>
        {f.path}
      </button>
      {`, block ${x.absoluteBlock}${x.offset ? `, offset ${x.offset}` : ''}: ${x.checker === 'pgpage' ? 'pgpage: ' : ''}${x.message}`}
    </li>
  );
  return (
    <>
      {(rows.length > 0 || unlisted.length > 0) && (
        <ul
          className="file-findings"
          data-testid="amcheck-findings"
          data-findings={rows.length}
          {...(all ? pngCut(rows.length + unlisted.length, 'lines') : {})}
        >
          {shown.map(row)}
          {shown.length < rows.length && (
            <li>
              <button
                type="button"
                data-testid="amcheck-all"
                data-png-words={`… and ${(rows.length - shown.length).toLocaleString('en-US')} more amcheck findings, not in this picture`}
                onClick={() => setAll(true)}
              >
                Show all {rows.length.toLocaleString('en-US')} amcheck findings
              </button>
            </li>
          )}
          {unlisted.map((f) => (
            <li key={`unlisted:${f.id}`} className="note" data-testid="amcheck-unlisted" data-path={f.path} data-pages={f.amcheckUnlisted}>
              <code>{f.path}</code>: and {f.amcheckUnlisted.toLocaleString('en-US')} more pages with amcheck findings, not listed (the file&apos;s first 1,000
              are)
            </li>
          ))}
        </ul>
      )}
      {onRefused.length > 0 && (
        <div className="amcheck-refused" data-testid="amcheck-findings-refused" data-findings={onRefused.length} data-pages={refusedWithFindings}>
          <h4>
            Structural checks&apos; findings (amcheck&apos;s, and pgpage&apos;s own marked &quot;pgpage:&quot;) on the problem pages above:{' '}
            {onRefused.length.toLocaleString('en-US')} on {refusedWithFindings.toLocaleString('en-US')} {refusedWithFindings === 1 ? 'page' : 'pages'} the
            server refuses anyway
          </h4>
          <ul className="file-findings" {...(allRefused ? pngCut(onRefused.length, 'findings') : {})}>
            {shownRefused.map(row)}
            {/* A few first: the problem pages are listed above, and a torn or misplaced
                page can fault every one of its items. */}
            {shownRefused.length < onRefused.length && (
              <li>
                <button
                  type="button"
                  data-testid="amcheck-refused-all"
                  data-png-words={`… and ${(onRefused.length - shownRefused.length).toLocaleString('en-US')} more findings on these pages, not in this picture`}
                  onClick={() => setAllRefused(true)}
                >
                  Show all {onRefused.length.toLocaleString('en-US')} findings on these pages
                </button>
              </li>
            )}
          </ul>
        </div>
      )}
    </>
  );
}
