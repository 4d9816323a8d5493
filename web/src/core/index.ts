// The one door to the core's wasm bindings: every other file of the app reaches the core
// through here. Functions that return the core's JSON are wrapped so the JSON is parsed once,
// here, into the type generated from the Rust struct that serialized it (./generated, written
// by `cargo test -p pgpage-wasm --features ts ts_export`).
import type { CatalogReader, RowsChunk, RowsReader, WalScanner } from '../../pkg/pgpage_wasm.js';
import type { ChunkComparison, FlipsRanked, FullPageName, GoTo, HeapLines, PageAdvice, PageComparison, PageStory, RowsChunkCounts, RowsColumn, RowsTable, TupleShown, LeftOut, WalBlock, WalProblem, WalSummary, WebListing } from './generated';
import type { Wasm } from './load';

export { loadBuild, loadWasm, wasmBytes, type Wasm } from './load';
export type { CatalogReader, DecodedPageJs, FileVerdictJs, RowsChunk, RowsReader, StructuresJs, WalScanner } from '../../pkg/pgpage_wasm.js';
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

/** A finished WAL scan: the watched blocks, the problems met, how far the WAL was read. */
export function walScanned(scanner: WalScanner): { blocks: WalBlock[]; problems: WalProblem[]; summary: WalSummary } {
  return {
    blocks: JSON.parse(scanner.blocks_json()) as WalBlock[],
    problems: JSON.parse(scanner.problems_json()) as WalProblem[],
    summary: JSON.parse(scanner.summary_json()) as WalSummary,
  };
}

/** What a `pg_waldump --save-fullpage` file name says; undefined for another name. */
export function fullPageName(w: Wasm, name: string): FullPageName | undefined {
  const json = w.wal_fullpage_name(name);
  return json === undefined ? undefined : (JSON.parse(json) as FullPageName);
}

/** The table a catalog-form rows reader found; throws for a type list's reader, which has none. */
export function catalogTable(reader: RowsReader): RowsTable {
  const table = JSON.parse(reader.table) as RowsTable | null;
  if (!table) throw new Error('a rows reader made from a type list has no table');
  return table;
}

/** The columns the rows reader prints, in order. */
export function rowsColumns(reader: RowsReader): RowsColumn[] {
  return JSON.parse(reader.columns()) as RowsColumn[];
}

/** Notes a run of TOAST pages in the reader's chunk index; returns the pages left out. */
export function addToastPages(reader: RowsReader, ...args: Parameters<RowsReader['add_toast_pages']>): LeftOut[] {
  return JSON.parse(reader.add_toast_pages(...args)) as LeftOut[];
}

/** A run of pages' counts and what was left out. */
export function chunkCounts(chunk: RowsChunk): RowsChunkCounts {
  return JSON.parse(chunk.json) as RowsChunkCounts;
}

/** One tuple's columns, or why they could not be read. */
export function tupleShown(reader: RowsReader, ...args: Parameters<RowsReader['tuple']>): TupleShown {
  return JSON.parse(reader.tuple(...args)) as TupleShown;
}
