// Ctrl+G: a modal dialog that takes a block of the shown file, a relation-wide block number as
// the server prints it, or a byte offset, and says why it refuses what it cannot go to. The
// core reads the text (pgpage::file::go_to); this finds the segment file another one names.
// Relation-wide numbers are read with the segment size pg_control records when the file's data
// directory was dropped with it, and the dialog says when 1 GB segments were assumed instead.
import { useEffect, useRef, useState } from 'react';
import type { FileEntry } from '../files';
import { entryGeometry } from '../lib/head';
import { goTo, loadWasm, type GoTo } from '../core';
import type { Selection } from './selection';
import './goto.css';

/** How the core read the segment size: from pg_control, or RELSEG_SIZE's default assumed. */
type SegmentSize = Pick<GoTo, 'blocks_per_segment' | 'blocks_per_segment_assumed'>;

export interface GoToProps {
  files: readonly FileEntry[];
  entry: FileEntry;
  /** RELSEG_SIZE as the file's cluster's pg_control records it, null when none was dropped. */
  blocksPerSegment: number | null;
  /** Goes there; `note` says how a relation-wide number was read, for the page to show. */
  onGo(sel: Selection, note: string | null): void;
  onClose(): void;
}

/** The segment size a relation-wide number was read with, and where it came from. */
export function segmentWords(s: SegmentSize): string {
  return s.blocks_per_segment_assumed
    ? `${s.blocks_per_segment.toLocaleString('en-US')} blocks per segment assumed (1 GB segments, the default: no pg_control of this file's data directory was dropped)`
    : `${s.blocks_per_segment.toLocaleString('en-US')} blocks per segment, as pg_control records (RELSEG_SIZE)`;
}

/** The loaded file holding segment `segno` of `entry`'s relation fork, if any. */
function segmentFile(files: readonly FileEntry[], entry: FileEntry, segno: number): FileEntry | undefined {
  const rel = entry.rel;
  if (!rel) return undefined;
  return files.find((f) => f.rel && f.relDir === entry.relDir && f.rel.relfilenode === rel.relfilenode && f.rel.fork === rel.fork && f.segment === segno);
}

export function GoToDialog(p: GoToProps) {
  const ref = useRef<HTMLDialogElement>(null);
  const [text, setText] = useState('');
  const [why, setWhy] = useState<string | null>(null);
  const [blocks, setBlocks] = useState<number | null>(null);
  const [segment, setSegment] = useState<SegmentSize | null>(null);
  useEffect(() => {
    const back = document.activeElement as HTMLElement | null;
    const d = ref.current;
    // showModal traps focus and makes the rest of the page inert; focus goes back on close.
    if (d && !d.open) d.showModal();
    return () => back?.focus?.();
  }, []);
  const ask = async (what: string): Promise<{ to: GoTo; fileBlocks: number }> => {
    const [wasm, { blockSize }] = await Promise.all([loadWasm(), entryGeometry(p.entry)]);
    const fileBlocks = p.entry.blocks || Math.floor(p.entry.size / blockSize);
    return { to: goTo(wasm, what, p.entry.name, p.entry.segment, blockSize, fileBlocks, p.blocksPerSegment ?? 0), fileBlocks };
  };
  useEffect(() => {
    void entryGeometry(p.entry).then(({ blockSize }) => setBlocks(p.entry.blocks || Math.floor(p.entry.size / blockSize)));
    // Block 0's answer carries the segment size the core reads relation blocks with, for the help.
    ask('0').then(
      ({ to }) => setSegment(to),
      () => setSegment(null),
    );
  }, [p.entry, p.blocksPerSegment]);

  const go = async () => {
    let to: GoTo;
    let fileBlocks: number;
    try {
      ({ to, fileBlocks } = await ask(text));
    } catch (e) {
      setWhy(e instanceof Error ? e.message : String(e));
      return;
    }
    const relationWide = `relation block ${to.relation_block.toLocaleString('en-US')} read with ${segmentWords(to)}`;
    if (to.to === 'block') {
      p.onGo(
        { fileId: p.entry.id, block: to.block, offset: to.offset },
        to.read_as === 'relation-wide block' ? `Block ${to.block} of ${p.entry.name}: ${relationWide}.` : null,
      );
      return;
    }
    const other = segmentFile(p.files, p.entry, to.segno);
    const name = to.file ?? `segment ${to.segno}`;
    if (!other) {
      const past = fileBlocks > 0 ? `past the end of ${p.entry.name} (${fileBlocks} blocks, 0 to ${fileBlocks - 1}); as ` : 'as ';
      setWhy(
        `${to.relation_block} is ${past}the server numbers blocks (relation-wide, ${segmentWords(to)}), it is block ${to.block} of segment file ${name}, which is not loaded: drop it too to see it`,
      );
      return;
    }
    if (to.block >= (other.blocks || Infinity)) {
      setWhy(`relation block ${to.relation_block} is block ${to.block} of segment file ${name}, past its end (${other.blocks} blocks; ${segmentWords(to)})`);
      return;
    }
    p.onGo({ fileId: other.id, block: to.block, offset: 0 }, `Block ${to.block} of ${other.name}: ${relationWide}.`);
  };

  return (
    <dialog
      ref={ref}
      className="goto"
      data-testid="goto"
      aria-labelledby="goto-title"
      onCancel={(e) => {
        e.preventDefault();
        p.onClose();
      }}
    >
      <form
        method="dialog"
        onSubmit={(e) => {
          e.preventDefault();
          void go();
        }}
      >
        <h2 id="goto-title">Go to</h2>
        <label htmlFor="goto-input">Block, relation block or byte offset in {p.entry.name}</label>
        <input
          id="goto-input"
          data-testid="goto-input"
          autoFocus
          autoComplete="off"
          spellCheck={false}
          value={text}
          aria-describedby="goto-help goto-error"
          aria-invalid={why !== null}
          onChange={(e) => {
            setText(e.currentTarget.value);
            setWhy(null);
          }}
        />
        <p id="goto-help" className="goto-help">
          A block of this file{blocks !== null && blocks > 0 ? ` (0 to ${blocks - 1})` : ''}; a relation-wide block number as the server prints it in its errors
          (for segment <code>.N</code>, N × blocks per segment + block
          {segment && (
            <>
              {'; '}
              <span data-testid="goto-segment" data-assumed={segment.blocks_per_segment_assumed}>
                {segmentWords(segment)}
              </span>
            </>
          )}
          ); or a byte offset in the file, <code>0x1f000</code> or <code>@126976</code>, going to the page that holds it.
        </p>
        <p id="goto-error" role="alert" data-testid="goto-error" className="goto-error">
          {why}
        </p>
        <div className="goto-buttons">
          <button type="submit" data-testid="goto-go">
            Go
          </button>{' '}
          <button type="button" onClick={p.onClose}>
            Cancel
          </button>
        </div>
      </form>
    </dialog>
  );
}
