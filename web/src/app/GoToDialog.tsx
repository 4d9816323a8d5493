// Ctrl+G: a modal dialog that takes a block of the shown file, a relation-wide block number as
// the server prints it, or a byte offset, and says why it refuses what it cannot go to. The
// core reads the text (pgpage::file::go_to); this finds the segment file another one names.
import { useEffect, useRef, useState } from 'react';
import type { FileEntry } from '../files';
import { entryGeometry } from '../lib/head';
import { loadWasm } from '../wasm';
import type { Selection } from './selection';
import './goto.css';

type GoTo =
  | { to: 'block'; block: number; offset: number; relation_block: number; read_as: string }
  | { to: 'other_segment'; segno: number; block: number; relation_block: number; file: string | null };

export interface GoToProps {
  files: readonly FileEntry[];
  entry: FileEntry;
  onGo(sel: Selection): void;
  onClose(): void;
}

/** The loaded file holding segment `segno` of `entry`'s relation fork, if any. */
function segmentFile(files: readonly FileEntry[], entry: FileEntry, segno: number): FileEntry | undefined {
  if (!entry.rel) return undefined;
  return files.find((f) => f.rel && f.relDir === entry.relDir && f.rel.relfilenode === entry.rel!.relfilenode && f.rel.fork === entry.rel!.fork && f.segment === segno);
}

export function GoToDialog(p: GoToProps) {
  const ref = useRef<HTMLDialogElement>(null);
  const [text, setText] = useState('');
  const [why, setWhy] = useState<string | null>(null);
  const [blocks, setBlocks] = useState<number | null>(null);
  useEffect(() => {
    const back = document.activeElement as HTMLElement | null;
    const d = ref.current;
    // showModal traps focus and makes the rest of the page inert; focus goes back on close.
    if (d && !d.open) d.showModal();
    return () => back?.focus?.();
  }, []);
  useEffect(() => {
    void entryGeometry(p.entry).then(({ blockSize }) => setBlocks(p.entry.blocks || Math.floor(p.entry.size / blockSize)));
  }, [p.entry]);

  const go = async () => {
    const [wasm, { blockSize }] = await Promise.all([loadWasm(), entryGeometry(p.entry)]);
    const fileBlocks = p.entry.blocks || Math.floor(p.entry.size / blockSize);
    let to: GoTo;
    try {
      to = JSON.parse(wasm.go_to(text, p.entry.name, p.entry.segment, blockSize, fileBlocks)) as GoTo;
    } catch (e) {
      setWhy(e instanceof Error ? e.message : String(e));
      return;
    }
    if (to.to === 'block') {
      p.onGo({ fileId: p.entry.id, block: to.block, offset: to.offset });
      return;
    }
    const other = segmentFile(p.files, p.entry, to.segno);
    const name = to.file ?? `segment ${to.segno}`;
    if (!other) {
      const past = fileBlocks > 0 ? `past the end of ${p.entry.name} (${fileBlocks} blocks, 0 to ${fileBlocks - 1}); as ` : 'as ';
      setWhy(`${to.relation_block} is ${past}the server numbers blocks (relation-wide), it is block ${to.block} of segment file ${name}, which is not loaded: drop it too to see it`);
      return;
    }
    if (to.block >= (other.blocks || Infinity)) {
      setWhy(`relation block ${to.relation_block} is block ${to.block} of segment file ${name}, past its end (${other.blocks} blocks)`);
      return;
    }
    p.onGo({ fileId: other.id, block: to.block, offset: 0 });
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
          (for segment <code>.N</code>, N × blocks per segment + block); or a byte offset in the file, <code>0x1f000</code> or <code>@126976</code>, going to the page that holds it.
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
