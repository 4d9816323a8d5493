// The inspector: load files, verify them in a worker, summarise, map, list problems and
// show one page at a time as an annotated hex dump with decoded panels. The parts live in
// app/ (the files store, the files table, the problem list, keys, drops); this file wires
// them to the selection and lays out the page.
import { RowsPanel } from './rows/RowsPanel';
import { lazy, Suspense, useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { PageMap } from './pageview/PageMap';
import { PageView } from './pageview/PageView';
import { SamplesPicker, useSampleLoader } from './samples/Samples';
import { PngButton, ProblemsReport, zeroRowsOf } from './share/Share';
import { setAskSlot } from './playground/askSlot';
import { Tour, type TourView } from './tour/Tour';
import { summaryState, type FileEntry } from './files';
import { FilePickers, useDrop } from './app/drop';
import { BlockSizeSelect, ByteOrderSelect, FilesTable } from './app/FilesTable';
import { ControlPanel } from './app/ControlPanel';
import { CatalogNotes } from './app/CatalogNotes';
import { AmcheckFindings, FileFindings, ProblemList, ReadWithoutError, RoutineNotes } from './app/ProblemList';
import { ambiguousWords, resolveFileRef } from './app/fileRef';
import { AffectedFiles, firstPageToSee, Verdict } from './app/Verdict';
import { problemsOf, stopsOf, zeroRuns, type Selection } from './app/selection';
import { useFiles, type ChosenFile } from './app/useFiles';
import { useKeys } from './app/useKeys';
import { GoToDialog } from './app/GoToDialog';
import { LinkWants, type LinkedPage } from './app/LinkWants';
import { setReportControls } from './share/cluster';
import { listPngName } from './share/band';
import { READ_AS_EMPTY, READ_AS_EMPTY_WORDS, ZERO_NOTE_WORDS } from './lib/status';
import { databaseOf, qualified } from './app/catalog';
import { blocksPerSegmentFor } from './app/control';
import { bySeverity, ReportPanel } from './report/ReportPanel';
import { shownReport, toldButOk } from './report/shown';
import { VERSION } from './share/version';

type Theme = 'auto' | 'light' | 'dark';

/** The database and `schema.name` the catalogs give a file, for names of exports. */
const relationOf = (f: FileEntry): [string, string] | null => (f.naming?.relation ? [databaseOf(f.naming.relation), qualified(f.naming.relation)] : null);

// The playground (PGlite, ~5 MB gzipped) is a chunk of its own, fetched when first opened.
const Playground = lazy(() => import('./playground/Playground'));

/** The page a link names; `block` null when it names only the file. */
function readHash(): LinkedPage | null {
  const h = new URLSearchParams(location.hash.slice(1));
  const file = h.get('file');
  if (!file) return null;
  const block = h.get('block');
  return { file, block: block === null ? null : Number(block) || 0, offset: Number(h.get('off') ?? 0) || 0, rel: h.get('rel') };
}

export function App() {
  const [sel, setSelState] = useState<Selection | null>(null);
  // After a drop: block 0 of the first file at once, then the first problem page of the
  // files dropped as soon as a verdict names one (once every verdict is in and none names a
  // problem page, the first file's page the core notes, like an all-zero page between rows),
  // unless the user has chosen a page meanwhile (setSel): the ids of the files dropped, the
  // one shown first.
  const opening = useRef<readonly number[] | null>(null);
  const onReplace = useCallback((old: FileEntry, fresh: FileEntry) => {
    // A file verified again (its catalogs came) is a new entry: the selection and the
    // opening follow it.
    const o = opening.current;
    if (o && o.includes(old.id)) opening.current = o.map((id) => (id === old.id ? fresh.id : id));
    setSelState((s) => (s && s.fileId === old.id ? { ...s, fileId: fresh.id } : s));
  }, []);
  // After a drop, once the incident report is in: its first finding's page (the worst, as
  // the report ranks), which wins over the verdict's first problem page; unless the user has
  // chosen a page meanwhile.
  // `stale`: the report shown when the files were dropped, which is not theirs.
  const reportOpening = useRef<{ stale: object | null } | null>(null);
  // What the user chose (a page, a block, a byte): the opening after a drop stops there.
  const setSel = useCallback((s: Selection | ((s: Selection | null) => Selection | null)) => {
    opening.current = null;
    reportOpening.current = null;
    setSelState(s);
  }, []);
  const { files, filesRef, allChoice, amcheck, controls, catalogs, actions } = useFiles(onReplace);
  const [theme, setTheme] = useState<Theme>(() => (localStorage.getItem('pgpage-theme') as Theme) ?? 'auto');
  const [notice, setNotice] = useState<string | null>(null);
  // The paths the last drop skipped, which its notice counts: a reader can check that none of
  // them was a relation file. Under the inventory's verdict when the drop added files (the
  // verdict comes first), else in the drop zone (there is no verdict).
  const [skipped, setSkipped] = useState<{ notice: string | null; paths: readonly string[]; added: boolean }>({ notice: null, paths: [], added: false });
  const [tour, setTour] = useState<{ open: boolean; view: TourView | null }>({ open: false, view: null });
  const pendingHash = useRef(readHash());
  // The link the page was opened with, shown until its files are loaded.
  const [linked, setLinked] = useState<LinkedPage | null>(pendingHash.current);
  // Bumped at each opening, so that the verdicts' effect below runs after it even when every
  // verdict came in before the opening was set (a small file verified during the drop).
  const [openings, setOpenings] = useState(0);
  const open = useCallback((f: FileEntry, batch: readonly FileEntry[] = [f]) => {
    const at = { fileId: f.id, block: (f.state === 'done' ? firstPageToSee(f) : null) ?? 0, offset: 0 };
    setSelState(at);
    opening.current = [f.id, ...batch.filter((x) => x !== f).map((x) => x.id)];
    reportOpening.current = { stale: shownReport.get()?.report ?? null };
    setOpenings((n) => n + 1);
  }, []);
  // A jump (n/N, a problem or finding link, the page map, go-to, a difference listed) brings
  // the page view into sight; `jumps` counts them.
  const [jumps, setJumps] = useState(0);
  const jump = useCallback(
    (s: Selection) => {
      setSel(s);
      setJumps((n) => n + 1);
    },
    [setSel],
  );

  useEffect(() => {
    document.documentElement.dataset.theme = theme;
    localStorage.setItem('pgpage-theme', theme);
  }, [theme]);

  // New files show the page the URL named (once, for a reload), else the first one's block 0.
  const addFiles = useCallback(
    async (list: ChosenFile[]) => {
      const { added, notice, skipped } = await actions.add(list);
      setNotice(null);
      setSkipped({ notice, paths: skipped, added: added.length > 0 });
      if (added.length === 0) return;
      const h = pendingHash.current;
      // The link's file by its path, or by a bare name (older links) when one file has it.
      const found = h ? resolveFileRef(filesRef.current, h.file) : null;
      if (found && 'ambiguous' in found && h) {
        pendingHash.current = null;
        setNotice(ambiguousWords(h.file, found.ambiguous));
      }
      if (found && 'file' in found && h) {
        pendingHash.current = null;
        if (h.block === null) open(found.file);
        else setSel({ fileId: found.file.id, block: h.block, offset: h.offset });
      } else {
        open(added[0], added);
      }
    },
    [actions, filesRef, open],
  );
  const addChosen = useCallback((list: ChosenFile[]) => void addFiles(list), [addFiles]);
  const drop = useDrop(addChosen);

  const loadSamples = useSampleLoader(filesRef, addFiles);
  const showTourView = useCallback((view: TourView) => {
    setTour({ open: true, view });
    setSel({ fileId: view.fileId, block: view.block, offset: view.highlight.start });
  }, []);

  const [play, setPlay] = useState(false);
  // The playground's snapshot being viewed: of the playground's files, the summary and the
  // files table list only its (every statement's snapshot would otherwise add rows).
  const [playListed, setPlayListed] = useState<ReadonlySet<string> | null>(null);
  const listed = useMemo(() => (playListed ? files.filter((f) => !f.path.startsWith('playground/') || playListed.has(f.path)) : files), [files, playListed]);
  const playAdd = useCallback(async (list: ChosenFile[]) => (await actions.add(list)).added, [actions]);
  // A lesson step outlines what it shows as a tour step does (PageView's highlight props):
  // the line pointer (bufpage.h: 4 bytes each after the 24-byte header) or the header.
  const playOpen = useCallback((f: FileEntry, block: number, outline?: { item?: number; header?: boolean }) => {
    setSel({ fileId: f.id, block, offset: 0 });
    if (outline) {
      const highlight =
        outline.item !== undefined
          ? { start: 24 + 4 * (outline.item - 1), end: 28 + 4 * (outline.item - 1) }
          : outline.header
            ? { start: 0, end: 24 }
            : { start: 0, end: 0 };
      setTour((t) => ({ open: t.open, view: { fileId: f.id, block, highlight, item: outline.item, header: outline.header } }));
    }
  }, []);

  const rowActions = useMemo(() => ({ ...actions, select: open }), [actions, open]);

  // Stable, so the page view (memoized) skips the renders that progress messages cause.
  const setOffset = useCallback((offset: number) => setSel((s) => s && { ...s, offset }), []);
  const jumpBlock = useCallback((block: number) => {
    setSel((s) => s && { ...s, block, offset: 0 });
    setJumps((n) => n + 1);
  }, []);

  const allProblems = useMemo(() => problemsOf(listed), [listed]);
  const selFile = sel ? (files.find((f) => f.id === sel.fileId) ?? null) : null;
  // The reports name the cluster of the pg_control files dropped.
  useEffect(() => setReportControls(controls), [controls]);
  const [goTo, setGoTo] = useState(false);
  // How Ctrl+G read a relation-wide block number, shown while its page is.
  const [goToNote, setGoToNote] = useState<{ fileId: number; block: number; text: string } | null>(null);
  const openGoTo = useCallback(() => setGoTo(true), []);
  const stops = useMemo(() => stopsOf(listed), [listed]);
  useKeys({ files: listed, problems: stops, sel, setSel, jump, openGoTo });

  // A link pasted while files are loaded opens its page, or says why it cannot.
  useEffect(() => {
    const onHash = () => {
      const h = readHash();
      if (!h) return;
      const found = resolveFileRef(filesRef.current, h.file);
      if ('file' in found) {
        if (h.block === null) open(found.file);
        else setSel({ fileId: found.file.id, block: h.block, offset: h.offset });
      } else if ('ambiguous' in found) setNotice(ambiguousWords(h.file, found.ambiguous));
      else {
        pendingHash.current = h;
        setLinked(h);
      }
    };
    window.addEventListener('hashchange', onHash);
    return () => window.removeEventListener('hashchange', onHash);
  }, [filesRef, open]);

  // The dropped files' verdicts come in: go to the first page one names (see `opening`).
  useEffect(() => {
    const o = opening.current;
    if (o === null) return;
    // In the order dropped (the one shown first): the first problem page is the first
    // file's that names one, so a later file verified sooner waits for those before it.
    const byId = new Map(files.map((f) => [f.id, f]));
    const batch = o.map((id) => byId.get(id)).filter((f): f is FileEntry => f !== undefined);
    const all = batch.every((f) => f.state === 'done');
    const pending = batch.findIndex((f) => f.state !== 'done');
    const settled = pending === -1 ? batch : batch.slice(0, pending);
    const shown = batch.find((f) => f.id === o[0] && f.state === 'done');
    const hit = settled.find((f) => f.problem && f.problems.some((x) => x.problem)) ?? (all && shown && firstPageToSee(shown) !== null ? shown : undefined);
    // Nothing to open yet: a verdict can come in before its problem list (a later pass of
    // the same file), so the opening waits until the user chooses a page.
    if (!hit) return;
    opening.current = null;
    const at = firstPageToSee(hit);
    if (at !== null) setSelState({ fileId: hit.id, block: at, offset: 0 });
  }, [files, openings]);

  const report = shownReport.use();
  // The all-zero pages the inventory's Markdown lists beside its problem pages.
  const inventoryZeros = useMemo(() => zeroRowsOf(listed, report), [listed, report]);
  useEffect(() => {
    if (!report || !reportOpening.current || reportOpening.current.stale === report.report) return;
    if (report.report.relations.every((r) => r.blocks.length === 0)) {
      reportOpening.current = null;
      return;
    }
    const first = bySeverity(report.report)
      .map(({ b }) => ({ b, f: files.find((f) => f.path === `${report.root}${b.file}`) }))
      .find((x) => x.f !== undefined);
    if (!first?.f) return;
    reportOpening.current = null;
    // The verdict's opening is over too: it would move the page view away from the finding.
    opening.current = null;
    setSelState({ fileId: first.f.id, block: first.b.block_in_file, offset: 0 });
  }, [report, files]);

  // After a jump, the page view's top in sight: scrolled to when it is above the window or
  // in the lower half of it (the page's head and verdict would be out of sight).
  useEffect(() => {
    if (jumps === 0) return;
    const frame = requestAnimationFrame(() => {
      const view = document.querySelector('[data-testid=page-view]');
      if (!view) return;
      const top = view.getBoundingClientRect().top;
      if (top < 0 || top > window.innerHeight / 2) view.scrollIntoView({ block: 'start' });
    });
    return () => cancelAnimationFrame(frame);
  }, [jumps]);

  // The URL's hash keeps file, block and offset.
  useEffect(() => {
    if (!sel || !selFile) return;
    history.replaceState(null, '', `#file=${encodeURIComponent(selFile.path)}&block=${sel.block}&off=${sel.offset}`);
  }, [sel, selFile]);

  const state = summaryState(listed);
  const zeroPageCount = useMemo(() => listed.reduce((n, f) => n + zeroRuns(f).reduce((m, x) => m + (x.pages ?? 1), 0), 0), [listed]);
  // Files whose verdict has notes the report should carry (zero pages between rows).
  const noted = useMemo(() => listed.filter((f) => zeroRuns(f).length > 0), [listed]);
  // The problem list picture's band says them too, a line each.
  const zeroNotes = useMemo(
    () =>
      noted.flatMap((f) =>
        zeroRuns(f).map(
          (x) =>
            `${f.path} ${x.pages !== undefined && x.pages > 1 ? `blocks ${x.block} to ${(x.block ?? 0) + x.pages - 1}` : `block ${x.block}`}: ${ZERO_NOTE_WORDS}`,
        ),
      ),
    [noted],
  );

  return (
    // One landmark for everything: the header's controls and the keys line belong to the tool.
    <main className={`app${drop.dragging ? ' dragging' : ''}`} {...drop.handlers}>
      <header className="top">
        <h1>pgpage</h1>
        <span className="tagline">PostgreSQL page inspector — files stay on this machine</span>
        <label>
          Block size{' '}
          <BlockSizeSelect
            label="block size of all files"
            value={allChoice.blockSize}
            onChange={(blockSize) => actions.chooseForAll({ ...allChoice, blockSize })}
          />
        </label>
        <label>
          Byte order{' '}
          <ByteOrderSelect
            label="byte order of all files"
            value={allChoice.byteOrder}
            onChange={(byteOrder) => actions.chooseForAll({ ...allChoice, byteOrder })}
          />
        </label>
        <label title="verify_heapam's and bt_index_check's checks of each page, as pgpage verify --amcheck runs them: about 15 µs of worker time a page, so verifying takes up to twice as long">
          <input type="checkbox" data-testid="amcheck-switch" checked={amcheck} onChange={(e) => actions.amcheck(e.target.checked)} /> amcheck
        </label>
        <button type="button" data-testid="playground-start" onClick={() => setPlay(true)} disabled={play}>
          Playground
        </button>
        <button type="button" data-testid="tour-start" onClick={() => setTour({ open: true, view: null })}>
          Tour
        </button>
        <button type="button" onClick={() => setTheme(theme === 'auto' ? 'dark' : theme === 'dark' ? 'light' : 'auto')} aria-label="switch theme">
          Theme: {theme}
        </button>
      </header>

      <section className="dropzone" data-testid="dropzone">
        <p>
          Drop relation files (<code>base/16384/16385</code>, <code>16385.2</code>, <code>16385_fsm</code>) or a whole data directory here, or{' '}
          <FilePickers add={addChosen} />
        </p>
        {files.length === 0 && (
          <p className="drop-what" data-testid="drop-what">
            What you get: first an incident report (which pages are damaged and how, the rows lost, what to do, as Markdown to share), then every page, its rows
            and the checksums of every file. Nothing leaves this browser.
          </p>
        )}
        <SamplesPicker load={loadSamples} />
        {linked && files.length === 0 && <LinkWants link={linked} />}
        {notice && (
          <p className="notice" role="status">
            {notice}
          </p>
        )}
        {!skipped.added && <Skipped {...skipped} />}
      </section>

      {play && (
        <Suspense
          fallback={
            <p role="status" data-testid="playground-chunk">
              Loading the playground…
            </p>
          }
        >
          <Playground
            add={playAdd}
            open={playOpen}
            listed={setPlayListed}
            shown={selFile && sel ? { entry: selFile, block: sel.block } : null}
            onClose={() => setPlay(false)}
          />
        </Suspense>
      )}

      <ReportPanel files={files} controls={controls} onPick={setSel} />
      {/* Hidden until files come: an empty inventory on the landing page says nothing. */}
      <section className="summary" data-testid="summary" data-state={state} aria-labelledby="inventory-title" hidden={state === 'idle'}>
        <h2 id="inventory-title">Checksum inventory</h2>
        {state !== 'idle' && (
          <p className="inventory-intro" data-testid="inventory-intro">
            Every file verified, forks and segments included, as pg_checksums counts them
            {report ? ': the checksum evidence beside the incident report above' : ''}.
          </p>
        )}
        <div aria-live="polite">
          <Verdict files={listed} problems={allProblems} state={state} />
        </div>
        {skipped.added && <Skipped {...skipped} />}
        <AffectedFiles files={listed} onPick={jump} />

        <section className="problems" hidden={listed.length === 0}>
          {/* A count of 0 while files are still being verified would read as "nothing wrong". */}
          <h3 data-testid="problems-heading" data-state={state}>
            {state !== 'running'
              ? `Problem pages (${allProblems.length})`
              : allProblems.length === 0
                ? 'Problem pages: still verifying…'
                : `Problem pages (${allProblems.length} so far; still verifying…)`}
          </h3>
          {/* The picture and the Markdown on one row: the first screen keeps the first problem page in view. */}
          {(allProblems.length > 0 || inventoryZeros.length > 0) && (
            <ProblemsReport problems={allProblems} noted={noted} all={listed}>
              {selFile && sel && allProblems.length > 0 && (
                <PngButton
                  entry={selFile}
                  block={sel.block}
                  what="problem list"
                  suffix="-problems"
                  testid="png-problems"
                  problems={allProblems}
                  notes={zeroNotes}
                  name={listPngName(allProblems.map((x) => ({ path: x.f.path, relation: relationOf(x.f) })))}
                />
              )}
            </ProblemsReport>
          )}
          <FileFindings files={listed} onPick={jump} part="rest" />
          <ProblemList problems={allProblems} sel={sel} onPick={jump} />
          <ReadWithoutError files={listed} problems={allProblems} onPick={jump} />
          {zeroPageCount > 0 && (
            <div className="read-as-empty" data-testid="read-as-empty" data-pages={zeroPageCount}>
              <h3>
                All-zero pages between pages with rows ({zeroPageCount}), apart from the problem pages: the server reads them without an error, as empty pages
              </h3>
              <p className="verdict-note">
                Where the incident report finds rows lost in one, it names it {READ_AS_EMPTY}: {READ_AS_EMPTY_WORDS}.
              </p>
              <FileFindings files={listed} onPick={jump} part="zeros" />
            </div>
          )}
          <AmcheckFindings files={listed} onPick={jump} />
          <RoutineNotes files={listed} onPick={jump} />
        </section>

        <CatalogNotes catalogs={catalogs} />
        {listed.length > 0 && (
          <>
            <h3>
              Files ({listed.length.toLocaleString('en-US')}) by {catalogs.some((c) => c.state === 'done') ? 'database and relation' : 'folder and relation'}
            </h3>
            <FilesTable files={listed} selectedId={selFile?.id ?? null} actions={rowActions} />
          </>
        )}
      </section>

      {selFile && selFile.blocks > 0 && (
        <section className="map">
          <h2>Page map of {selFile.path}</h2>
          {sel && <PngButton entry={selFile} block={sel.block} what="page map" suffix="-map" testid="png-map" />}
          <PageMap
            statuses={selFile.statuses}
            blocks={selFile.blocks}
            version={selFile.bytesDone}
            selected={sel?.block ?? null}
            // pg_control said so: the chunks' mismatches are no problem while the verdict is due.
            checksumsDisabled={selFile.checksumsDisabled || selFile.checksums === 2}
            noted={zeroRuns(selFile).flatMap((x) => (x.block === undefined ? [] : [{ block: x.block, pages: x.pages ?? 1 }]))}
            told={toldButOk(report, selFile.path)}
            onPick={jumpBlock}
          />
        </section>
      )}

      {selFile && selFile.state === 'done' && selFile.size === 0 && (
        <section className="empty-file-view" data-testid="empty-file-view">
          <h2>{selFile.path}</h2>
          <p>
            An empty file: no pages to show. That is a normal state: an unlogged table's init fork is empty, and so is a relation created but never written to
            (or truncated).
          </p>
        </section>
      )}

      {goToNote && sel && goToNote.fileId === sel.fileId && goToNote.block === sel.block && (
        <p className="goto-note" role="status" data-testid="goto-note">
          {goToNote.text}
        </p>
      )}
      {selFile && sel && !(selFile.state === 'done' && selFile.size === 0) && (
        <PageView
          // A new copy of the same file (the playground's next snapshot) re-reads its page in
          // the mounted view: a remount would draw an empty view and every panel anew.
          key={selFile.lineage}
          entry={selFile}
          block={sel.block}
          offset={sel.offset}
          onOffset={setOffset}
          onBlock={jumpBlock}
          hold={state === 'running'}
          files={files}
          {...(tour.view && tour.view.fileId === sel.fileId && tour.view.block === sel.block
            ? { highlight: tour.view.highlight, highlightItem: tour.view.item, highlightHeader: tour.view.header }
            : {})}
        />
      )}
      {play && selFile && sel && <div className="ask-slot" data-testid="ask-slot" ref={setAskSlot} />}
      {/* Below the page view: its state changing moves nothing under the pointer. */}
      {selFile && selFile.fork === 'main' && selFile.state === 'done' && selFile.blocks > 0 && (
        <RowsPanel key={`rows-${selFile.id}`} entry={selFile} files={files} />
      )}
      {/* After the damaged page and its rows: pg_control is the cluster's background. */}
      {controls.length > 0 && <ControlPanel controls={controls} open={selFile?.path} />}
      {goTo && selFile && (
        <GoToDialog
          files={files}
          entry={selFile}
          blocksPerSegment={blocksPerSegmentFor(controls, selFile.path)}
          onGo={(to, note) => {
            jump(to);
            setGoToNote(note === null ? null : { fileId: to.fileId, block: to.block, text: note });
            setGoTo(false);
          }}
          onClose={() => setGoTo(false)}
        />
      )}
      {tour.open && <Tour files={files} loadSamples={loadSamples} show={showTourView} onClose={() => setTour({ open: false, view: null })} />}
      <footer className="keys">
        Keys: <kbd>[</kbd> <kbd>]</kbd> previous/next page, <kbd>n</kbd>/<kbd>N</kbd> next/previous problem, <kbd>Ctrl</kbd>+<kbd>G</kbd> go to block, arrows in
        the hex view.
        <span className="build" data-testid="build-version">
          {' '}
          pgpage {VERSION}
        </span>
      </footer>
    </main>
  );
}

/** The notice of the files a drop skipped, and their names folded under it. */
function Skipped(p: { notice: string | null; paths: readonly string[] }) {
  return (
    <>
      {p.notice && (
        <p className="notice" role="status" data-testid="skipped-notice">
          {p.notice}
        </p>
      )}
      {p.paths.length > 0 && (
        <details className="skipped-files" data-testid="skipped-files" data-count={p.paths.length}>
          <summary>
            {p.paths.length === 1 ? 'The name of the file skipped' : `The names of the ${p.paths.length.toLocaleString('en-US')} files skipped`}
          </summary>
          <ul>
            {p.paths.map((path) => (
              <li key={path} data-testid="skipped-file">
                <code>{path}</code>
              </li>
            ))}
          </ul>
        </details>
      )}
    </>
  );
}
