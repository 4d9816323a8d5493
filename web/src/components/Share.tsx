// The share actions: PNG pictures of the page view, the page map and the problem list, the
// Markdown report of a page and a link to it. They read the page afresh (share/page.ts), so
// each is one element wired in with a line wherever it sits.
import { useState } from 'react';
import type { FileEntry } from '../files';
import { markdownReport, markdownReportAll } from '../lib/report';
import { pngName, type BandInfo } from '../share/band';
import { fileSummary, readReportPage } from '../share/page';
import { exportPng } from '../share/png';
import { VERSION } from '../share/version';
import '../share/print.css';

export interface SharedPage {
  entry: FileEntry;
  block: number;
}

/** Writes to the clipboard, starting inside the click even while `data` is still coming: some browsers allow no later start. */
function clipboardWrite(type: string, data: Promise<Blob>): Promise<boolean> {
  try {
    return navigator.clipboard.write([new ClipboardItem({ [type]: data })]).then(
      () => true,
      () => false,
    );
  } catch {
    return Promise.resolve(false);
  }
}

const textBlob = (t: string) => new Blob([t], { type: 'text/plain' });

/**
 * Exports the `<section>` it sits in as a PNG with a caption band naming the shown page.
 * While rendering the button is only disabled: a changed label would be in the picture.
 */
export function PngButton(p: SharedPage & { what: string; suffix: string; testid: string }) {
  const [msg, setMsg] = useState<string | null>(null);
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
          const info: Promise<BandInfo> = readReportPage(p.entry, p.block).then((r) => ({
            what: p.what,
            path: r.path,
            block: r.block,
            absoluteBlock: r.absoluteBlock,
            status: r.status,
            stored: r.stored,
            computed: r.computed,
            version: VERSION,
          }));
          exportPng(el, info, pngName(p.entry.path, p.block, p.suffix))
            .then(setMsg, (err: unknown) => setMsg(`could not make the picture: ${err instanceof Error ? err.message : String(err)}`))
            .finally(() => setBusy(false));
        }}
      >
        PNG of the {p.what}
      </button>
      {msg && (
        <span role="status" data-testid={`${p.testid}-status`}>
          {' '}
          {msg}
        </span>
      )}
    </span>
  );
}

/** The page view's share row: picture, Markdown report (shown as it is copied), link. */
export function PageShare(p: SharedPage) {
  const [report, setReport] = useState<string | null>(null);
  const [msg, setMsg] = useState<string | null>(null);
  const say = (ok: boolean, what: string) => setMsg(ok ? `copied ${what}` : `the browser did not allow copying ${what}: select it and copy by hand`);
  return (
    <div className="share-row" data-noprint="">
      Share: <PngButton {...p} what="page view" suffix="" testid="png-page" />{' '}
      <button
        type="button"
        data-testid="copy-report"
        onClick={() => {
          const text = readReportPage(p.entry, p.block).then((r) => markdownReport(r, fileSummary(p.entry), VERSION));
          const copied = clipboardWrite('text/plain', text.then(textBlob));
          text.then(
            (t) => {
              setReport(t);
              return copied.then((ok) => say(ok, 'the Markdown report'));
            },
            (err: unknown) => setMsg(`could not make the report: ${err instanceof Error ? err.message : String(err)}`),
          );
        }}
      >
        Copy Markdown report
      </button>{' '}
      <button type="button" data-testid="copy-link" onClick={() => void clipboardWrite('text/plain', Promise.resolve(textBlob(location.href))).then((ok) => say(ok, 'the link to this page'))}>
        Copy link
      </button>
      {msg && (
        <span role="status" data-testid="share-status">
          {' '}
          {msg}
        </span>
      )}
      {report !== null && <ReportBox text={report} testid="report" onClose={() => setReport(null)} />}
    </div>
  );
}

/** The report as copied, so the user sees what goes out and can copy it by hand. */
function ReportBox(p: { text: string; testid: string; onClose(): void }) {
  return (
    <div className="report" role="dialog" aria-label="Markdown report">
      <textarea data-testid={p.testid} readOnly value={p.text} rows={16} onFocus={(e) => e.currentTarget.select()} />
      <button type="button" onClick={p.onClose}>
        Close
      </button>
    </div>
  );
}

/** Pages in the all-problems report: enough for any bug report, short enough to paste. */
const MAX_REPORT_PAGES = 50;

/** One Markdown report of every problem page of every file (the first 50 in full). */
/** `noted`: files with notes but no problem page (zero pages between rows), listed too. */
export function ProblemsReport(p: { problems: { f: FileEntry; p: { block: number } }[]; noted?: readonly FileEntry[] }) {
  const [report, setReport] = useState<string | null>(null);
  const [msg, setMsg] = useState<string | null>(null);
  return (
    <div className="share-row" data-noprint="">
      <button
        type="button"
        data-testid="copy-report-all"
        onClick={() => {
          const shown = p.problems.slice(0, MAX_REPORT_PAGES);
          const files = [...new Set([...p.problems.map((x) => x.f), ...(p.noted ?? [])])];
          const text = Promise.all(shown.map((x) => readReportPage(x.f, x.p.block))).then((pages) =>
            markdownReportAll(
              pages,
              files.map((f) => ({ path: f.path, summary: fileSummary(f) })),
              p.problems.length - shown.length,
              VERSION,
            ),
          );
          const copied = clipboardWrite('text/plain', text.then(textBlob));
          text.then(
            (t) => {
              setReport(t);
              return copied.then((ok) => setMsg(ok ? 'copied the report' : 'the browser did not allow copying the report: select it and copy by hand'));
            },
            (err: unknown) => setMsg(`could not make the report: ${err instanceof Error ? err.message : String(err)}`),
          );
        }}
      >
        Copy Markdown report of all problem pages
      </button>
      {msg && (
        <span role="status" data-testid="copy-report-all-status">
          {' '}
          {msg}
        </span>
      )}
      {report !== null && <ReportBox text={report} testid="report-all" onClose={() => setReport(null)} />}
    </div>
  );
}
