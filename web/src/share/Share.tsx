// The share actions: PNG pictures of the page view, the page map and the problem list, the
// Markdown report of a page and a link to it. They read the page afresh (share/page.ts), so
// each is one element wired in with a line wherever it sits.
import { useState, type ReactNode } from 'react';
import type { FileEntry } from '../files';
import { DETAILED_PAGES, markdownReport, markdownReportAll, type ProblemRow, type ZeroRow } from '../lib/report';
import { zeroRuns } from '../app/selection';
import { findingAt, shownReport } from '../report/shown';
import type { ReportJson } from '../report/protocol';
import { isReadAsEmpty } from '../lib/status';
import type { ProblemPage } from '../worker/protocol';
import { bandLines, listBandLines, mapBandLines, pngName } from './band';
import { fileSummary, readFiledump, readRedaction, readReportPage } from './page';
import { exportPng } from './png';
import { cardOf } from './card';
import { maskCopy, redactOn, setRedact, useRedact } from './redact';
import { loadWasm } from '../core';
import { relationWords } from '../app/catalog';
import { VERSION } from './version';
import './print.css';

export interface SharedPage {
  entry: FileEntry;
  block: number;
}

/** Writes to the clipboard, starting inside the click even while `data` is still coming: some browsers allow no later start. */
export function clipboardWrite(type: string, data: Promise<Blob>): Promise<boolean> {
  try {
    return navigator.clipboard.write([new ClipboardItem({ [type]: data })]).then(
      () => true,
      () => false,
    );
  } catch {
    return Promise.resolve(false);
  }
}

export const textBlob = (t: string) => new Blob([t], { type: 'text/plain' });

/** The band's lines for what the picture shows: the page, the file's map, or the list. */
function captionOf(
  p: SharedPage & { what: string; problems?: readonly { f: FileEntry; p: ProblemPage }[]; notes?: readonly string[] },
  el: HTMLElement,
): Promise<string[]> {
  if (p.what === 'problem list') {
    return Promise.resolve(
      listBandLines(
        (p.problems ?? []).map((x) => ({
          path: x.f.path,
          block: x.p.block,
          status: x.p.status,
          relation: (x.f.naming && relationWords(x.f.naming)) ?? undefined,
        })),
        VERSION,
        p.notes,
      ),
    );
  }
  if (p.what === 'page map') {
    const s = fileSummary(p.entry);
    const cols = Number(el.querySelector<HTMLCanvasElement>('canvas[data-cols]')?.dataset.cols ?? 0);
    return Promise.resolve(mapBandLines(p.entry.path, s.blocks, cols, s.counts, s.pending, VERSION));
  }
  return readReportPage(p.entry, p.block, redactOn()).then((r) => [
    ...bandLines({
      what: p.what,
      path: r.path,
      block: r.block,
      absoluteBlock: r.absoluteBlock,
      status: r.status,
      stored: r.stored,
      computed: r.computed,
      version: VERSION,
      zeroNote: r.zeroNote !== undefined,
    }),
    ...(r.redaction ? [`${r.redaction.note}; masked bytes show as xx`] : []),
  ]);
}

/** With the switch on, the page view's picture masks its row data (share/redact.ts). */
async function maskRowData(p: SharedPage, copy: HTMLElement): Promise<void> {
  const [wasm, r] = await Promise.all([loadWasm(), readRedaction(p.entry, p.block)]);
  maskCopy(copy, r, (c) => wasm.is_row_data_column(c));
}

/** The "Redact row data" switch: on, every export of the page masks the bytes that may hold
 * row data and says so; remembered for the tab's session. */
export function RedactSwitch() {
  const on = useRedact();
  return (
    <label
      className="redact-switch"
      data-testid="redact-switch"
      data-state={on ? 'on' : 'off'}
      title="Mask tuple data, index keys and free space in the PNG, the Markdown reports, hexdump -C and pg_filedump texts: headers, line pointers, tuple headers and checksums are kept"
    >
      {/* The box and its words on one line: a narrow screen wraps before them, never between. */}
      <span className="redact-label" data-testid="redact-label">
        <input type="checkbox" role="switch" data-testid="redact" checked={on} onChange={(e) => setRedact(e.currentTarget.checked)} /> Redact row data
      </span>
      <span className="redact-state"> ({on ? 'on: exports carry no row data' : 'off'})</span>
    </label>
  );
}

/** The link to the page: where it is (file, block, offset, and the relation the catalogs
 * name, for whoever opens it without the files), never its bytes. */
function pageLink(entry: FileEntry): string {
  const h = new URLSearchParams(location.hash.slice(1));
  const keep = new URLSearchParams();
  for (const k of ['file', 'block', 'off']) {
    const v = h.get(k);
    if (v !== null) keep.set(k, v);
  }
  const rel = entry.naming ? relationWords(entry.naming) : null;
  if (rel) keep.set('rel', rel);
  return `${location.origin}${location.pathname}#${keep.toString()}`;
}

/**
 * Exports the `<section>` it sits in as a PNG with a caption band saying what it shows. The
 * picture leaves the app's controls out, this button among them.
 */
export function PngButton(
  p: SharedPage & {
    what: string;
    suffix: string;
    testid: string;
    problems?: readonly { f: FileEntry; p: ProblemPage }[];
    notes?: readonly string[];
    name?: string;
  },
) {
  const [msg, setMsg] = useState<{ text: string; caption: string; slices?: number; columns?: string; boxes?: string } | null>(null);
  const [busy, setBusy] = useState(false);
  return (
    <span className="share" data-noprint="">
      <button
        type="button"
        data-testid={p.testid}
        disabled={busy}
        onClick={(e) => {
          const el = e.currentTarget.closest('section');
          if (!el) return;
          setBusy(true);
          setMsg(null);
          const lines = captionOf(p, el);
          // The page view's picture is a card (share/card.ts), masked first when redacting.
          const card =
            p.what === 'page view'
              ? async (copy: HTMLElement) => {
                  if (redactOn()) await maskRowData(p, copy);
                  cardOf(copy);
                }
              : undefined;
          exportPng(el, lines, p.name ?? pngName(p.entry.path, p.block, p.suffix), card)
            .then(
              async ({ text, slices, columns, boxes }) =>
                setMsg({
                  text,
                  caption: (await lines).join('\n'),
                  slices,
                  columns: JSON.stringify(columns),
                  boxes: JSON.stringify(boxes.map((b) => [b.x, b.y, b.w, b.h])),
                }),
              (err: unknown) => setMsg({ text: `could not make the picture: ${err instanceof Error ? err.message : String(err)}`, caption: '' }),
            )
            .finally(() => setBusy(false));
        }}
      >
        PNG of the {p.what}
      </button>
      {msg && (
        // data-slices: how many tasks painted the picture (each short: the page stays responsive);
        // data-columns: where each table column's text was drawn (none runs into the next);
        // data-boxes: [x, y, width, height] of every run of text in the picture's pixels.
        <span
          role="status"
          data-testid={`${p.testid}-status`}
          data-caption={msg.caption}
          data-slices={msg.slices}
          data-columns={msg.columns}
          data-boxes={msg.boxes}
        >
          {' '}
          {msg.text}
        </span>
      )}
    </span>
  );
}

/** The page view's share row: picture, Markdown report (shown as it is copied), link. */
export function PageShare(p: SharedPage) {
  const [report, setReport] = useState<string | null>(null);
  const [filedump, setFiledump] = useState<string | null>(null);
  const [msg, setMsg] = useState<string | null>(null);
  const say = (ok: boolean, what: string) => setMsg(ok ? `copied ${what}` : `the browser did not allow copying ${what}: select it and copy by hand`);
  return (
    <div className="share-row" data-noprint="">
      Share: <PngButton {...p} what="page view" suffix="" testid="png-page" />{' '}
      <button
        type="button"
        data-testid="copy-report"
        onClick={() => {
          const text = readReportPage(p.entry, p.block, redactOn()).then((r) => markdownReport(r, fileSummary(p.entry), VERSION));
          const copied = clipboardWrite('text/plain', text.then(textBlob));
          text.then(
            (t) => {
              setFiledump(null);
              setReport(t);
              return copied.then((ok) => say(ok, 'the Markdown report'));
            },
            (err: unknown) => setMsg(`could not make the report: ${err instanceof Error ? err.message : String(err)}`),
          );
        }}
      >
        Copy Markdown report
      </button>{' '}
      <button
        type="button"
        data-testid="copy-filedump"
        title="The text pg_filedump -f -i -R prints for this block, as pasted into pgsql-hackers threads"
        onClick={() => {
          const text = readFiledump(p.entry, p.block, redactOn());
          const copied = clipboardWrite('text/plain', text.then(textBlob));
          text.then(
            (t) => {
              setReport(null);
              setFiledump(t);
              return copied.then((ok) => say(ok, 'the pg_filedump -fi text'));
            },
            (err: unknown) => setMsg(`could not make the pg_filedump text: ${err instanceof Error ? err.message : String(err)}`),
          );
        }}
      >
        Copy as pg_filedump -fi
      </button>{' '}
      <button
        type="button"
        data-testid="copy-link"
        title="The link holds the file's path, the block and the offset: none of the page's bytes; it opens this page for someone who drops the same files"
        onClick={() =>
          void clipboardWrite('text/plain', Promise.resolve(textBlob(pageLink(p.entry)))).then((ok) =>
            say(
              ok,
              `the link to this page: it opens block ${p.block} of ${p.entry.path} for someone who drops the same files; no page bytes, nothing uploaded`,
            ),
          )
        }
      >
        Copy link
      </button>{' '}
      <small className="link-note" data-testid="copy-link-note">
        (the link opens block {p.block} of <code>{p.entry.path}</code> for someone who drops the same files under the same names
        {p.entry.path.includes('/') ? (
          <>
            {' '}
            (the folder <code>{p.entry.path.split('/')[0]}</code>)
          </>
        ) : null}
        : it holds the path, block and offset; nothing is uploaded)
      </small>{' '}
      <RedactSwitch />
      {msg && (
        <span role="status" data-testid="share-status">
          {' '}
          {msg}
        </span>
      )}
      {report !== null && <ReportBox text={report} testid="report" onClose={() => setReport(null)} />}
      {filedump !== null && <ReportBox text={filedump} testid="filedump" label="pg_filedump -fi text" onClose={() => setFiledump(null)} />}
    </div>
  );
}

/** The report as copied, so the user sees what goes out and can copy it by hand. */
function ReportBox(p: { text: string; testid: string; label?: string; onClose(): void }) {
  return (
    <div className="report" role="dialog" aria-label={p.label ?? 'Markdown report'}>
      <textarea data-testid={p.testid} readOnly value={p.text} rows={16} onFocus={(e) => e.currentTarget.select()} />
      <button type="button" onClick={p.onClose}>
        Close
      </button>
    </div>
  );
}

/** A problem page's appendix row: where, status, checksums and what else is known. */
function problemRow(f: FileEntry, p: ProblemPage): ProblemRow {
  const note = p.misplaced?.claim ? `written for relation block ${p.misplaced.block}` : p.findings.filter((x) => x !== p.status).join(', ');
  return { path: f.path, block: p.block, absoluteBlock: p.absoluteBlock, status: p.status, stored: p.stored, computed: p.computed, note };
}

/** The all-zero pages of `files` that the server reads as empty though rows may have been
 * there: the core's notes, and the incident report's zeroed pages (said so). */
export function zeroRowsOf(files: readonly FileEntry[], report: { root: string; report: ReportJson } | null): ZeroRow[] {
  return files.flatMap((f) => {
    const blocks = new Set(zeroRuns(f).flatMap((x) => (x.block === undefined ? [] : Array.from({ length: x.pages ?? 1 }, (_, i) => (x.block ?? 0) + i))));
    if (report && f.path.startsWith(report.root)) {
      const file = f.path.slice(report.root.length);
      for (const rel of report.report.relations) for (const b of rel.blocks) if (b.file === file && isReadAsEmpty(b)) blocks.add(b.block_in_file);
    }
    return [...blocks]
      .sort((a, b) => a - b)
      .map((block) => ({ path: f.path, block, readAsEmpty: isReadAsEmpty(findingAt(report, f.path, block) ?? { damage: '' }) }));
  });
}

/** The checksum inventory of every file verified as one Markdown post: a summary, the first
 * few problem pages in full and an appendix row per page. `noted`: files with notes but no
 * problem page (zero pages between rows); `all`: every file listed, whose all-zero pages the
 * incident report counts are in the summary's table too. */
export function ProblemsReport(p: {
  problems: { f: FileEntry; p: ProblemPage }[];
  noted?: readonly FileEntry[];
  all?: readonly FileEntry[];
  /** Shown first on the row (the problem list's picture). */
  children?: ReactNode;
}) {
  const [report, setReport] = useState<string | null>(null);
  const [msg, setMsg] = useState<string | null>(null);
  const incident = shownReport.use();
  return (
    <div className="share-row" data-noprint="">
      {p.children}
      {p.children ? ' ' : null}
      <button
        type="button"
        data-testid="copy-report-all"
        onClick={() => {
          const shown = p.problems.slice(0, DETAILED_PAGES);
          const zeros = zeroRowsOf(p.all ?? p.noted ?? [], incident);
          const zeroFiles = new Set(zeros.map((z) => z.path));
          const files = [...new Set([...p.problems.map((x) => x.f), ...(p.noted ?? []), ...(p.all ?? []).filter((f) => zeroFiles.has(f.path))])];
          const text = Promise.all(shown.map((x) => readReportPage(x.f, x.p.block, redactOn()))).then((pages) =>
            markdownReportAll(
              p.problems.map((x) => problemRow(x.f, x.p)),
              pages,
              files.map((f) => ({ path: f.path, summary: fileSummary(f) })),
              VERSION,
              // One cluster line when every page comes from one cluster.
              new Set(pages.map((x) => x.cluster)).size === 1 ? pages[0]?.cluster : undefined,
              zeros,
            ),
          );
          const copied = clipboardWrite('text/plain', text.then(textBlob));
          text.then(
            (t) => {
              setReport(t);
              return copied.then((ok) =>
                setMsg(
                  ok ? 'copied the report of the checksum inventory' : 'the browser did not allow copying the checksum inventory: select it and copy by hand',
                ),
              );
            },
            (err: unknown) => setMsg(`could not make the checksum inventory: ${err instanceof Error ? err.message : String(err)}`),
          );
        }}
      >
        Copy the checksum inventory (Markdown)
      </button>
      {msg && (
        <span role="status" data-testid="copy-report-all-status">
          {' '}
          {msg}
        </span>
      )}
      {report !== null && <ReportBox text={report} testid="report-all" label="checksum inventory in Markdown" onClose={() => setReport(null)} />}
    </div>
  );
}
