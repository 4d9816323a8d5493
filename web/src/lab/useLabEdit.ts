// Lab mode of the page view: an in-memory copy of pages of one file that the hex view edits,
// with the verdict and the decoded panels recomputed from the copy on every edit. The file
// is never written; edited pages leave memory only through "Download edited copy".
import { useCallback, useEffect, useMemo, useState } from 'react';
import type { FileEntry } from '../files';
import { decodeWithCore, structureHintsOf, type Span } from '../lib/spans';
import { fileContext, pageVerdict, type LoadedPage } from '../lib/pageVerdict';
import { loadWasm, type Wasm } from '../core';
import { publishEdits } from './edited';
import { download, spliceEdits } from './splice';

export interface LabEdit {
  editing: boolean;
  /** The page as shown: the edited copy in lab mode, else the file's. */
  page: LoadedPage | null;
  editedOffsets: ReadonlySet<number> | undefined;
  onEditByte: ((offset: number, value: number) => void) | undefined;
  /** Edited pages of this file (pages typed back to the original do not count). */
  editedPages: number;
  toggle(): void;
  revert(): void;
  fixChecksum(): void;
  downloadEdited(): void;
}

const sameBytes = (a: Uint8Array, b: Uint8Array): boolean => a.length === b.length && a.every((x, i) => x === b[i]);

/** Most edits leave the page's layout as it was: keeping the spans array tells the hex view
 * to re-render only the edited row. */
const sameSpans = (a: readonly Span[], b: readonly Span[]): boolean =>
  a.length === b.length &&
  a.every((x, i) => {
    const y = b[i];
    return (
      x.start === y.start && x.len === y.len && x.field === y.field && x.role === y.role && x.item === y.item && x.problem === y.problem && x.doc === y.doc
    );
  });

export function useLabEdit(loaded: LoadedPage | null, entry: FileEntry): LabEdit {
  const [editing, setEditing] = useState(false);
  // Block within the file → its edited bytes. A page of another block size is not an edit.
  const [edits, setEdits] = useState<ReadonlyMap<number, Uint8Array>>(new Map());
  const [wasm, setWasm] = useState<Wasm | null>(null);
  useEffect(() => {
    void loadWasm().then(setWasm);
  }, []);
  // A new copy of the file (the playground's next snapshot, the page view kept mounted): the
  // edits were of the old copy's bytes, and lab mode ends as it did when the view remounted.
  const [copyId, setCopyId] = useState(entry.id);
  if (copyId !== entry.id) {
    setCopyId(entry.id);
    setEditing(false);
    setEdits(new Map());
  }

  // Whole edited pages, for the playground to write into its server's file.
  useEffect(() => {
    if (loaded) publishEdits(entry.id, new Map([...edits].filter(([, b]) => b.length === loaded.blockSize)));
  }, [entry.id, edits, loaded]);

  const copy = loaded && editing ? edits.get(loaded.block) : undefined;
  const edited = copy && copy.length === loaded?.bytes.length ? copy : undefined;

  const page = useMemo((): LoadedPage | null => {
    if (!loaded || !edited || !wasm) return loaded;
    const g = {
      block: loaded.block,
      blockSize: loaded.blockSize,
      segment: entry.segment,
      blocks: Math.floor(entry.size / loaded.blockSize),
      bigEndian: loaded.bigEndian,
      // The edited bytes are not the file's: only what the file says of checksums holds.
      checksums: fileContext(entry, loaded.block).checksums,
    };
    const verdict = pageVerdict(wasm, edited, g);
    // Decoded as the file's page was (its file's kind, its cluster's names), so an edit that
    // breaks the page keeps its structure in view.
    const decoded = decodeWithCore(wasm, edited, verdict.absoluteBlock, loaded.bigEndian, entry.fork, loaded.decoded.kind, entry.pgVersion ?? undefined, {
      structure: structureHintsOf(wasm, entry),
    });
    if (sameSpans(decoded.spans, loaded.decoded.spans)) decoded.spans = loaded.decoded.spans;
    return { ...loaded, ...verdict, bytes: edited, decoded };
  }, [loaded, edited, wasm, entry]);

  const editedOffsets = useMemo(() => {
    if (!loaded || !editing) return undefined;
    const set = new Set<number>();
    if (edited) edited.forEach((b, i) => b !== loaded.bytes[i] && set.add(i));
    return set;
  }, [loaded, edited, editing]);

  const put = useCallback(
    (change: (bytes: Uint8Array) => void) => {
      if (!loaded) return;
      const next = (edited ?? loaded.bytes).slice();
      change(next);
      const m = new Map(edits);
      if (sameBytes(next, loaded.bytes)) m.delete(loaded.block);
      else m.set(loaded.block, next);
      setEdits(m);
    },
    [loaded, edited, edits],
  );

  const onEditByte = useCallback((offset: number, value: number) => put((b) => (b[offset] = value)), [put]);

  return {
    editing,
    page,
    editedOffsets,
    onEditByte: editing ? onEditByte : undefined,
    editedPages: [...edits.values()].filter((b) => b.length === loaded?.blockSize).length,
    toggle: () => setEditing(!editing),
    revert: () => put((b) => loaded && b.set(loaded.bytes)),
    fixChecksum: () => {
      if (page?.computed == null) return;
      const computed = page.computed;
      put((b) => new DataView(b.buffer, b.byteOffset, b.byteLength).setUint16(8, computed, !page.bigEndian));
    },
    downloadEdited: () => {
      if (!loaded) return;
      const whole = new Map([...edits].filter(([, b]) => b.length === loaded.blockSize));
      download(spliceEdits(entry.file, whole, loaded.blockSize), entry.name);
    },
  };
}
