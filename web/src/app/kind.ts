// A file's kind (heap, btree, gin, ..., fsm, vm) as the core decides it from the file's fork
// and head (`file_kind`: the fork suffix, an index's metapage, its pages' majority). Read once
// per file and geometry, when its row is first shown.
import { useEffect, useState } from 'react';
import type { FileEntry } from '../files';
import { headOf } from '../lib/head';
import { fileKindOf } from '../lib/spans';
import { loadWasm } from '../wasm';

const kinds = new WeakMap<File, Map<string, Promise<string>>>();

/** The core's kind of the file's pages, once the verifier has settled its geometry. */
export function kindOf(f: FileEntry): Promise<string> | null {
  if (f.blockSize === null || f.bigEndian === null) return null;
  const key = `${f.fork}/${f.blockSize}/${f.bigEndian}`;
  let m = kinds.get(f.file);
  if (!m) kinds.set(f.file, (m = new Map()));
  let k = m.get(key);
  if (!k) {
    const [bs, big, fork] = [f.blockSize, f.bigEndian, f.fork];
    k = Promise.all([loadWasm(), headOf(f)]).then(([w, head]) => fileKindOf(w, head, bs, big, fork));
    m.set(key, k);
  }
  return k;
}

export function useFileKind(f: FileEntry): string | null {
  const [kind, setKind] = useState<{ key: string; kind: string } | null>(null);
  const key = `${f.fork}/${f.blockSize}/${f.bigEndian}`;
  useEffect(() => {
    const p = kindOf(f);
    if (!p) return;
    let live = true;
    p.then(
      (k) => live && setKind({ key, kind: k }),
      () => live && setKind({ key, kind: 'unknown' }),
    );
    return () => {
      live = false;
    };
  }, [key, f]);
  return kind && kind.key === key ? kind.kind : null;
}
