// The inspector: load files, verify them in a worker, summarise, map, list problems and
// show one page at a time as an annotated hex dump with decoded panels. The parts live in
// app/ (the files store, the files table, the problem list, keys, drops); this file wires
// them to the selection and lays out the page.
import { RowsPanel } from './rows/RowsPanel';
import { lazy, Suspense, useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { PageMap } from './components/PageMap';
import { PageView } from './components/PageView';
import { SamplesPicker, useSampleLoader } from './components/Samples';
import { PngButton, ProblemsReport } from './components/Share';
import { setAskSlot } from './playground/askSlot';
import { Tour, type TourView } from './tour/Tour';
import { summaryState, type FileEntry } from './files';
import { FilePickers, useDrop } from './app/drop';
import { BlockSizeSelect, ByteOrderSelect, FilesTable } from './app/FilesTable';
import { ControlPanel } from './app/ControlPanel';
import { CatalogNotes } from './app/CatalogNotes';
import { AmcheckFindings, FileFindings, ProblemList } from './app/ProblemList';
import { ambiguousWords, resolveFileRef } from './app/fileRef';
import { AffectedFiles, firstPageToSee, Verdict, zeroRuns } from './app/Verdict';
import { problemsOf, type Selection } from './app/selection';
import { useFiles, type ChosenFile } from './app/useFiles';
import { useKeys } from './app/useKeys';
import { GoToDialog } from './app/GoToDialog';
import { setReportControls } from './share/cluster';
import { blocksPerSegmentFor } from './app/control';
import { ReportPanel } from './report/ReportPanel';

type Theme = 'auto' | 'light' | 'dark';

// The playground (PGlite, ~5 MB gzipped) is a chunk of its own, fetched when first opened.
const Playground = lazy(() => import('./playground/Playground'));

/** The page a link names; `block` null when it names only the file. */
function readHash(): { file: string; block: number | null; offset: number } | null {
  const h = new URLSearchParams(location.hash.slice(1));
  const file = h.get('file');
  if (!file) return null;
  const block = h.get('block');
  return { file, block: block === null ? null : Number(block) || 0, offset: Number(h.get('off') ?? 0) || 0 };
}

export function App() {
  const [sel, setSel] = useState<Selection | null>(null);
  const onReplace = useCallback((old: FileEntry, fresh: FileEntry) => setSel((s) => (s && s.fileId === old.id ? { ...s, fileId: fresh.id } : s)), []);
  const { files, filesRef, allChoice, amcheck, controls, catalogs, actions } = useFiles(onReplace);
  const [theme, setTheme] = useState<Theme>(() => (localStorage.getItem('pgpage-theme') as Theme) ?? 'auto');
  const [notice, setNotice] = useState<string | null>(null);
  const [tour, setTour] = useState<{ open: boolean; view: TourView | null }>({ open: false, view: null });
  const pendingHash = useRef(readHash());
  // A file opened without a block named, before its verdict was known: it shows block 0 at
  // once and moves to the page the verdict points at (firstPageToSee) when it comes, unless
  // the user has moved meanwhile.
  const opening = useRef<number | null>(null);
  const open = useCallback((f: FileEntry) => {
    const at = f.state === 'done' ? firstPageToSee(f) : null;
    opening.current = f.state === 'done' ? null : f.id;
    setSel({ fileId: f.id, block: at ?? 0, offset: 0 });
  }, []);

  useEffect(() => {
    document.documentElement.dataset.theme = theme;
    localStorage.setItem('pgpage-theme', theme);
  }, [theme]);

  // New files show the page the URL named (once, for a reload), else the first one's block 0.
  const addFiles = useCallback(
    async (list: ChosenFile[]) => {
      const { added, notice } = await actions.add(list);
      setNotice(notice);
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
        open(added[0]);
      }
    },
    [actions, filesRef, open],
  );
  const drop = useDrop(addFiles);

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
      const highlight = outline.item !== undefined ? { start: 24 + 4 * (outline.item - 1), end: 28 + 4 * (outline.item - 1) } : outline.header ? { start: 0, end: 24 } : { start: 0, end: 0 };
      setTour((t) => ({ open: t.open, view: { fileId: f.id, block, highlight, item: outline.item, header: outline.header } }));
    }
  }, []);

  const rowActions = useMemo(() => ({ ...actions, select: open }), [actions, open]);

  // Stable, so the page view (memoized) skips the renders that progress messages cause.
  const setOffset = useCallback((offset: number) => setSel((s) => s && { ...s, offset }), []);
  const setBlock = useCallback((block: number) => setSel((s) => s && { ...s, block, offset: 0 }), []);

  const allProblems = useMemo(() => problemsOf(listed), [listed]);
  const selFile = sel ? files.find((f) => f.id === sel.fileId) ?? null : null;
  // The reports name the cluster of the pg_control files dropped.
  useEffect(() => setReportControls(controls), [controls]);
  const [goTo, setGoTo] = useState(false);
  // How Ctrl+G read a relation-wide block number, shown while its page is.
  const [goToNote, setGoToNote] = useState<{ fileId: number; block: number; text: string } | null>(null);
  const openGoTo = useCallback(() => setGoTo(true), []);
  useKeys({ files: listed, problems: allProblems, sel, setSel, openGoTo });

  // A link pasted while files are loaded opens its page, or says why it cannot.
  useEffect(() => {
    const onHash = () => {
      const h = readHash();
      if (!h) return;
      const found = resolveFileRef(filesRef.current, h.file);
      if ('file' in found) {
        if (h.block === null) open(found.file);
        else setSel({ fileId: found.file.id, block: h.block, offset: h.offset });
      }
      else if ('ambiguous' in found) setNotice(ambiguousWords(h.file, found.ambiguous));
      else pendingHash.current = h;
    };
    window.addEventListener('hashchange', onHash);
    return () => window.removeEventListener('hashchange', onHash);
  }, [filesRef, open]);

  // The opened file's verdict is in: go to its first problem page, if the user is still at block 0.
  useEffect(() => {
    const id = opening.current;
    if (id === null || !sel) return;
    if (sel.fileId !== id || sel.block !== 0 || sel.offset !== 0) {
      opening.current = null;
      return;
    }
    const f = files.find((x) => x.id === id);
    if (!f || f.state === 'queued' || f.state === 'running') return;
    opening.current = null;
    const at = f.state === 'done' ? firstPageToSee(f) : null;
    if (at !== null && at !== 0) setSel({ fileId: id, block: at, offset: 0 });
  }, [files, sel]);

  // The URL's hash keeps file, block and offset.
  useEffect(() => {
    if (!sel || !selFile) return;
    history.replaceState(null, '', `#file=${encodeURIComponent(selFile.path)}&block=${sel.block}&off=${sel.offset}`);
  }, [sel, selFile]);

  const state = summaryState(listed);
  // Files whose verdict has notes the report should carry (zero pages between rows).
  const noted = useMemo(() => listed.filter((f) => zeroRuns(f).length > 0), [listed]);

  return (
    // One landmark for everything: the header's controls and the keys line belong to the tool.
    <main className={`app${drop.dragging ? ' dragging' : ''}`} {...drop.handlers}>
      <header className="top">
        <h1>pgpage</h1>
        <span className="tagline">PostgreSQL page inspector — files stay on this machine</span>
        <label>
          Block size{' '}
          <BlockSizeSelect label="block size of all files" value={allChoice.blockSize} onChange={(blockSize) => actions.chooseForAll({ ...allChoice, blockSize })} />
        </label>
        <label>
          Byte order{' '}
          <ByteOrderSelect label="byte order of all files" value={allChoice.byteOrder} onChange={(byteOrder) => actions.chooseForAll({ ...allChoice, byteOrder })} />
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
          <FilePickers add={addFiles} />
        </p>
        <SamplesPicker load={loadSamples} />
        {notice && (
          <p className="notice" role="status">
            {notice}
          </p>
        )}
      </section>

      {play && (
        <Suspense fallback={<p role="status" data-testid="playground-chunk">Loading the playground…</p>}>
          <Playground add={playAdd} open={playOpen} listed={setPlayListed} shown={selFile && sel ? { entry: selFile, block: sel.block } : null} onClose={() => setPlay(false)} />
        </Suspense>
      )}

      <ReportPanel files={files} controls={controls} onPick={setSel} />
      <section className="summary" data-testid="summary" data-state={state}>
        <h2>Summary</h2>
        <div aria-live="polite">
          {state === 'idle' && <p>No files yet.</p>}
          <Verdict files={listed} problems={allProblems} state={state} />
        </div>
        <AffectedFiles files={listed} onPick={setSel} />

        <section className="problems" hidden={listed.length === 0}>
          <h3>Problem pages ({allProblems.length})</h3>
          {selFile && sel && allProblems.length > 0 && (
            <PngButton entry={selFile} block={sel.block} what="problem list" suffix="-problems" testid="png-problems" problems={allProblems} />
          )}
          {(allProblems.length > 0 || noted.length > 0) && <ProblemsReport problems={allProblems} noted={noted} />}
          <FileFindings files={listed} onPick={setSel} />
          <ProblemList problems={allProblems} sel={sel} onPick={setSel} />
          <AmcheckFindings files={listed} onPick={setSel} />
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

      {controls.length > 0 && <ControlPanel controls={controls} />}

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
            onPick={setBlock}
          />
        </section>
      )}

      {selFile && selFile.state === 'done' && selFile.size === 0 && (
        <section className="empty-file-view" data-testid="empty-file-view">
          <h2>{selFile.path}</h2>
          <p>
            An empty file: no pages to show. That is a normal state: an unlogged table's init fork is empty, and so is a relation created but never written to (or
            truncated).
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
          onBlock={setBlock}
          hold={state === 'running'}
          files={files}
          {...(tour.view && tour.view.fileId === sel.fileId && tour.view.block === sel.block
            ? { highlight: tour.view.highlight, highlightItem: tour.view.item, highlightHeader: tour.view.header }
            : {})}
        />
      )}
      {play && selFile && sel && <div className="ask-slot" data-testid="ask-slot" ref={setAskSlot} />}
      {/* Below the page view: its state changing moves nothing under the pointer. */}
      {selFile && selFile.fork === 'main' && selFile.state === 'done' && selFile.blocks > 0 && <RowsPanel key={`rows-${selFile.id}`} entry={selFile} files={files} />}
      {goTo && selFile && (
        <GoToDialog
          files={files}
          entry={selFile}
          blocksPerSegment={blocksPerSegmentFor(controls, selFile.path)}
          onGo={(to, note) => {
            setSel(to);
            setGoToNote(note === null ? null : { fileId: to.fileId, block: to.block, text: note });
            setGoTo(false);
          }}
          onClose={() => setGoTo(false)}
        />
      )}
      {tour.open && <Tour files={files} loadSamples={loadSamples} show={showTourView} onClose={() => setTour({ open: false, view: null })} />}
      <footer className="keys">
        Keys: <kbd>[</kbd> <kbd>]</kbd> previous/next page, <kbd>n</kbd>/<kbd>N</kbd> next/previous problem, <kbd>Ctrl</kbd>+<kbd>G</kbd> go to block, arrows in the hex view.
      </footer>
    </main>
  );
}
