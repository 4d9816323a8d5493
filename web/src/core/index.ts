// The one door to the core's wasm bindings: every other file of the app reaches the core
// through here. Functions that return the core's JSON are wrapped so the JSON is parsed once,
// here, into the type generated from the Rust struct that serialized it (./generated, written
// by `cargo test -p pgpage-wasm --features ts ts_export`).
import type { CatalogReader } from '../../pkg/pgpage_wasm.js';
import type { ChunkComparison, FlipsRanked, GoTo, HeapLines, PageAdvice, PageComparison, PageStory, WebListing } from './generated';
import type { Wasm } from './load';

export { loadBuild, loadWasm, wasmBytes, type Wasm } from './load';
export type { CatalogReader, DecodedPageJs, FileVerdictJs, StructuresJs } from '../../pkg/pgpage_wasm.js';
export type * from './generated';

/** The data directory's listing, once every file the reader wanted has been given. */
export function catalogListing(reader: CatalogReader): WebListing {
  return JSON.parse(reader.finish()) as WebListing;
}

/** Two copies of one page: the bytes that differ and the decoded fields that differ. */
export function diffPage(w: Wasm, ...args: Parameters<Wasm['diff_page']>): PageComparison {
  return JSON.parse(w.diff_page(...args)) as PageComparison;
}

/** The single-bit flips that make the page's stored checksum valid, ranked. */
export function bitFlips(w: Wasm, ...args: Parameters<Wasm['bit_flips']>): FlipsRanked {
  return JSON.parse(w.bit_flips(...args)) as FlipsRanked;
}

/** The pages of two chunks of copies of one file that differ. */
export function compareChunk(w: Wasm, ...args: Parameters<Wasm['compare_chunk']>): ChunkComparison {
  return JSON.parse(w.compare_chunk(...args)) as ChunkComparison;
}

/** What the server's own tools would do with the page as it is. */
export function pageAdvice(w: Wasm, ...args: Parameters<Wasm['page_advice']>): PageAdvice {
  return JSON.parse(w.page_advice(...args)) as PageAdvice;
}

/** What happened to a page between two copies. */
export function pageStory(w: Wasm, ...args: Parameters<Wasm['page_story']>): PageStory {
  return JSON.parse(w.page_story(...args)) as PageStory;
}

/** A heap page's line pointers; null for a page that is not a heap page. */
export function heapLines(w: Wasm, ...args: Parameters<Wasm['heap_lines']>): HeapLines | null {
  return JSON.parse(w.heap_lines(...args)) as HeapLines | null;
}

/** Where "go to" lands for what the user typed; throws the core's sentence on a refusal. */
export function goTo(w: Wasm, ...args: Parameters<Wasm['go_to']>): GoTo {
  return JSON.parse(w.go_to(...args)) as GoTo;
}
