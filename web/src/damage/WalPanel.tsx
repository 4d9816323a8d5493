// The damage panel's good copy from WAL: the newest full-page image of the open block in the
// WAL dropped (a data directory's pg_wal/, segment files, an archive folder) or in the pages
// `pg_waldump --save-fullpage` wrote, with the records after it that the image alone does not
// replay, the block rebuilt with them as `pgpage recover` does (when its data directory is
// known), the image beside the damaged page, and the image as the repaired copy's page.
import { useEffect, useMemo, useRef, useState } from 'react';
import { readControls } from '../app/control';
import { droppedFiles } from '../rows/dropped';
import type { Wasm } from '../core';
import { sentence } from '../lib/messages';
import type { DamagePanelProps } from './DamagePanel';
import { PagePair } from './PagePair';
import { rebuildOf, WalRebuild } from './WalRebuild';
import type { WalBlock, WalTouch } from './walProtocol';
import {
  ensureWalScan,
  locationOf,
  lsnValue,
  pickWal,
  tripleKey,
  useWalState,
  walInputs,
  walPage,
  withRedoLsn,
  type FileLocation,
  type RecoverPlace,
  type SavedPage,
  type WalScan,
} from './walStore';

const fmt = (n: number): string => String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
const recordName = (t: WalTouch): string => `${t.rmgr}/${t.record_type}`;

/** The newest good copy of the block: an image in the WAL scanned, or a saved page. */
type Newest = { kind: 'wal'; lsn: string; block: WalBlock } | { kind: 'saved'; lsn: string; saved: SavedPage };

export function WalPanel(p: DamagePanelProps & { wasm: Wasm }) {
  const { entry, page, wasm } = p;
  const { scans, pickedVersion } = useWalState();
  const loc = useMemo(() => locationOf(entry), [entry]);
  // The dropped files change with each drop, which renders the page view and this panel again.
  const inputs = useMemo(() => walInputs(wasm, loc.root), [wasm, loc.root, p.files, pickedVersion]);
  const rel = entry.rel?.relfilenode ?? null;
  const absolute = page.absoluteBlock;
  const first = absolute - page.block;
  // The file's damaged pages are watched together, so that each one opened after this is
  // answered by the same scan.
  const watch = useMemo(() => {
    if (rel === null) return [];
    const blocks = new Set([absolute, ...entry.problems.filter((x) => x.problem).map((x) => first + x.block)]);
    return [...blocks].map((block) => ({ relfilenode: rel, fork: entry.fork, block }));
  }, [rel, absolute, first, entry.problems, entry.fork]);
  const [systemId, setSystemId] = useState<string | null>(null);
  useEffect(() => {
    let live = true;
    void readControls(wasm, droppedFiles()).then((cs) => {
      const c = cs.find((x) => x.root === loc.root && x.control);
      const text = typeof c?.control?.text === 'string' ? c.control.text : '';
      if (live) setSystemId(/Database system identifier:\s+(\d+)/.exec(text)?.[1] ?? '');
    });
    return () => {
      live = false;
    };
  }, [wasm, loc.root, p.files]);
  // `pgpage recover` reads the file's tablespace and database from its path and its cluster's
  // settings from pg_control: without both the blocks are not rebuilt.
  const place = useMemo((): RecoverPlace | null => {
    if (loc.root === null || loc.spcOid === null || loc.dbOid === null) return null;
    const controlPath = `${loc.root}global/pg_control`;
    const control = droppedFiles().find((x) => x.path === controlPath);
    return control ? { control: control.file, controlPath, spcOid: loc.spcOid, dbOid: loc.dbOid } : null;
  }, [loc, p.files]);
  useEffect(() => {
    if (systemId === null || inputs.segments.length === 0 || watch.length === 0) return;
    ensureWalScan(entry.id, inputs.segments, watch, systemId, page.blockSize, place);
  }, [entry.id, inputs.segments, watch, systemId, page.blockSize, place]);
  const scan = scans.get(entry.id) ?? null;
  const files = useRef<HTMLInputElement>(null);
  const folder = useRef<HTMLInputElement>(null);
  const pick = (list: FileList | null, fromFolder: boolean) =>
    pickWal(Array.from(list ?? [], (file) => ({ file, path: fromFolder ? file.webkitRelativePath || file.name : file.name })));

  const scanned = scan && scan.state === 'done' && scan.watch.has(tripleKey(rel ?? -1, entry.fork, absolute)) ? scan : null;
  const { blocks, saved, newest } = useMemo(() => {
    const here = (b: { relfilenode: number; fork: string; block: number; tablespace_oid: number; database_oid: number }) =>
      b.relfilenode === rel &&
      b.fork === entry.fork &&
      b.block === absolute &&
      (loc.dbOid === null || (b.database_oid === loc.dbOid && b.tablespace_oid === loc.spcOid));
    const blocks = scanned ? scanned.blocks.filter(here) : [];
    const saved = inputs.saved.filter(here);
    const all: Newest[] = [
      ...blocks.filter((b) => b.image !== null && b.image_record).map((b): Newest => ({ kind: 'wal', lsn: b.image_record!.lsn, block: b })),
      ...saved.map((s): Newest => ({ kind: 'saved', lsn: s.lsn, saved: s })),
    ];
    // A page pg_waldump saved from the same WAL is the same image: the scan's is kept.
    const newest = all.sort((a, b) => lsnValue(b.lsn) - lsnValue(a.lsn) || (a.kind === 'wal' ? -1 : 1))[0] ?? null;
    return { blocks, saved, newest };
  }, [scanned, inputs.saved, rel, entry.fork, absolute, loc]);
  const state =
    inputs.segments.length === 0 && saved.length === 0
      ? 'none'
      : scan?.state === 'running' || (inputs.segments.length > 0 && !scanned && scan?.state !== 'error')
        ? 'running'
        : scan?.state === 'error'
          ? 'error'
          : 'done';

  return (
    <div className="wal" data-testid="wal" data-state={state}>
      <h4>Newest full-page image in WAL</h4>
      <p>
        After each checkpoint the server writes a block's whole page into WAL the first time it changes it (full_page_writes): a good copy of the block as of
        that record.{' '}
        {loc.dbOid === null && rel !== null && <>This file came without its data directory, so images of relfilenode {rel} in any database count. </>}
        <button type="button" data-testid="wal-pick" onClick={() => files.current?.click()}>
          Read WAL segment files…
        </button>{' '}
        <button type="button" onClick={() => folder.current?.click()}>
          Read a pg_wal or archive folder…
        </button>
        <input ref={files} type="file" multiple hidden data-testid="wal-input" onChange={(e) => (pick(e.target.files, false), (e.target.value = ''))} />
        <input ref={folder} type="file" hidden {...{ webkitdirectory: '' }} onChange={(e) => (pick(e.target.files, true), (e.target.value = ''))} />
      </p>
      {state === 'none' && (
        <p data-testid="wal-none">
          No WAL was dropped: drop the data directory with its pg_wal/, WAL segment files, an archive folder, or the files pg_waldump --save-fullpage writes.
        </p>
      )}
      {scan && <ScanLine scan={scan} />}
      {state === 'done' && !newest && (
        <p data-testid="wal-no-image">
          The WAL read holds no full-page image of block {absolute} of relfilenode {rel} ({entry.fork} fork)
          {blocks.some((b) => b.records_after.length > 0) && <>, though {blocks.reduce((n, b) => n + b.records_after.length, 0)} records touched it</>}.
        </p>
      )}
      {state === 'done' && newest && <NewestImage {...p} newest={newest} scan={scanned} loc={loc} />}
    </div>
  );
}

function ScanLine({ scan }: { scan: WalScan }) {
  return (
    <>
      <p data-testid="wal-scan" data-state={scan.state} data-records={scan.summary?.records}>
        {scan.state === 'running' && (
          <>
            Reading {scan.segments} WAL segment file{scan.segments === 1 ? '' : 's'}… {Math.floor((100 * scan.bytesDone) / Math.max(1, scan.bytesTotal))}%{' '}
            <progress max={scan.bytesTotal} value={scan.bytesDone} />
          </>
        )}
        {scan.state === 'error' && <span className="error">{scan.error}</span>}
        {scan.state === 'done' && scan.summary && (
          <>
            Read {scan.summary.segments} segment{scan.summary.segments === 1 ? '' : 's'}
            {scan.summary.version !== null && <> of PostgreSQL {scan.summary.version}</>}: {fmt(scan.summary.records)} records
            {scan.summary.end_lsn && <>, to LSN {scan.summary.end_lsn}</>}
            {scan.ms !== null && <> in {(scan.ms / 1000).toFixed(2)} s</>}.
          </>
        )}
      </p>
      {scan.problems.length > 0 && (
        <ul className="wal-problems">
          {scan.problems.map((x, i) => (
            <li key={i} data-testid="wal-problem" data-code={x.code} className={x.evidence === 'note' ? undefined : 'warn'}>
              {x.segment !== null && <>{scan.order[x.segment] ?? `segment ${x.segment}`}: </>}
              {x.message}
            </li>
          ))}
        </ul>
      )}
    </>
  );
}

function NewestImage(p: DamagePanelProps & { wasm: Wasm; newest: Newest; scan: WalScan | null; loc: FileLocation }) {
  const { newest, page, wasm, scan } = p;
  const [got, setGot] = useState<{ lsn: string; bytes: Uint8Array } | { lsn: string; error: string } | null>(null);
  useEffect(() => {
    let live = true;
    const load = async (): Promise<Uint8Array> => {
      if (newest.kind === 'saved') return new Uint8Array(await newest.saved.file.arrayBuffer());
      const image = await walPage(scan!.job, newest.block.image!);
      return newest.block.image_end_lsn ? withRedoLsn(image, newest.block.image_end_lsn, page.bigEndian) : image;
    };
    // The image's own checksum is whatever the buffer held when it was logged: shown as it
    // will be written, with the checksum for this block (a refusal is shown as it comes).
    const sealed = (bytes: Uint8Array): Uint8Array => {
      if (bytes.length !== page.bytes.length) return bytes;
      try {
        return wasm.repair_page(page.bytes, bytes, 0, 0, page.absoluteBlock >>> 0, page.bigEndian);
      } catch {
        return bytes;
      }
    };
    load().then(
      (bytes) => live && setGot({ lsn: newest.lsn, bytes: sealed(bytes) }),
      (e: unknown) => live && setGot({ lsn: newest.lsn, error: e instanceof Error ? e.message : String(e) }),
    );
    return () => {
      live = false;
    };
  }, [newest, scan, wasm, page.bytes, page.absoluteBlock, page.bigEndian]);
  const after = newest.kind === 'wal' ? newest.block.records_after : null;
  const rebuild = newest.kind === 'wal' && scan && after && after.length > 0 ? rebuildOf(scan, newest.block, p.loc) : null;
  const ready = got && got.lsn === newest.lsn ? got : null;
  const source =
    newest.kind === 'wal' ? (
      <>
        carried by a <strong data-testid="wal-record">{recordName(newest.block.image_record!)}</strong> record
        {newest.block.image_end_lsn && (
          <>
            {' '}
            (the record ends at <span data-testid="wal-image-end">{newest.block.image_end_lsn}</span>: replay sets the restored image&apos;s pd_lsn to that LSN,
            and the image shown below carries it; the page on disk in this file says pd_lsn{' '}
            <span data-testid="wal-disk-lsn">{String(page.decoded.header.lsn ?? 'unknown')}</span>)
          </>
        )}
      </>
    ) : (
      <>
        from <code>{newest.saved.path}</code>, a page <code>pg_waldump --save-fullpage</code> wrote (its pd_lsn as the image held it)
      </>
    );
  return (
    <>
      <p data-testid="wal-image" data-lsn={newest.lsn} data-kind={newest.kind}>
        Newest full-page image of block {page.absoluteBlock}: LSN <strong>{newest.lsn}</strong>, {source}.
      </p>
      {rebuild && scan && <WalRebuild {...p} scan={scan} rebuild={rebuild} loc={p.loc} />}
      {after && after.length > 0 && (
        <>
          <p data-testid="wal-after-note" data-count={after.length} className="warn">
            {after.length} record{after.length === 1 ? '' : 's'} after it touched the block: an image alone does not replay {after.length === 1 ? 'it' : 'them'}
            . The image below is the block as of LSN {newest.lsn}, without {after.length === 1 ? 'that change' : 'those changes'}; only WAL replay (
            {rebuild && 'index' in rebuild ? 'the rebuild above, or ' : ''}recovery from a base backup with this WAL) applies them.
          </p>
          {newest.kind === 'wal' && newest.block.restoring && <p data-testid="wal-restoring">{sentence(newest.block.restoring)}</p>}
          <ol data-testid="wal-after">
            {after.slice(0, 200).map((t) => (
              <li key={t.lsn} data-lsn={t.lsn}>
                {t.lsn} {recordName(t)}: {t.effect}
                {t.will_init && ' (rebuilds the page from nothing)'}
              </li>
            ))}
            {after.length > 200 && <li>and {fmt(after.length - 200)} more</li>}
          </ol>
        </>
      )}
      {after && after.length === 0 && (
        <p data-testid="wal-after-note" data-count={0}>
          No record after it touched the block in the WAL read{scan?.summary?.end_lsn && <> (to LSN {scan.summary.end_lsn})</>}: the image is the block's last
          state that this WAL holds.
        </p>
      )}
      {newest.kind === 'saved' && (
        <p data-testid="wal-after-note">Which records touched the block after it, only the WAL itself tells: drop the segments too.</p>
      )}
      {ready && 'error' in ready && <p className="error">{ready.error}</p>}
      {ready && 'bytes' in ready && ready.bytes.length !== page.bytes.length && (
        <p className="error">
          The image is {ready.bytes.length} bytes, the file's pages {page.bytes.length}: not a page of this file.
        </p>
      )}
      {ready && 'bytes' in ready && ready.bytes.length === page.bytes.length && (
        <PagePair
          {...p}
          b={ready.bytes}
          other={`the image at ${newest.lsn}`}
          image
          from={`full-page image at LSN ${newest.lsn}`}
          viewId="wal-diff-view"
          takeId="wal-use"
          // What the image alone loses is the core's sentence above (wal-restoring), as the CLI prints it;
          // an index page older than its table is no way at all (the core's effect of the records after it).
          take={
            after?.some((t) => t.effect_name === 'index_entries')
              ? undefined
              : after && after.length > 0
                ? 'Use the image alone (the older route)'
                : 'Use this page'
          }
        />
      )}
      {!ready && <div data-testid="wal-diff-view" data-state="loading" />}
    </>
  );
}
