// The only way a lab edit leaves memory: the user's file as a new Blob with the edited pages
// in place of the file's own, for an explicit download. The file itself is only read.

/** `file` with each edited block (block within the file → its bytes) spliced in. */
export function spliceEdits(file: Blob, edits: ReadonlyMap<number, Uint8Array>, blockSize: number): Blob {
  const parts: BlobPart[] = [];
  let at = 0;
  for (const block of [...edits.keys()].sort((a, b) => a - b)) {
    const page = edits.get(block)!;
    const start = block * blockSize;
    if (page.length !== blockSize || start + blockSize > file.size) {
      throw new Error(`block ${block} is not a whole ${blockSize}-byte page of the file`);
    }
    parts.push(file.slice(at, start), page as Uint8Array<ArrayBuffer>);
    at = start + blockSize;
  }
  parts.push(file.slice(at));
  return new Blob(parts, { type: 'application/octet-stream' });
}

/** Saves `blob` as `name` through the browser's download (Blob, object URL, a[download]). */
export function download(blob: Blob, name: string): void {
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  // The download has its own reference by now; revoking later frees the memory.
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}
