// The one door to the core's wasm bindings: every other file of the app reaches the core
// through here. Functions that return the core's JSON are wrapped so the JSON is parsed once,
// here, into the type generated from the Rust struct that serialized it (./generated, written
// by `cargo test -p pgpage-wasm --features ts ts_export`).
import type {
  CatalogReader,
  DecodedPageJs,
  FileVerdictJs,
  MapPageJs,
  ReportOutput,
  ReportReader,
  RowsChunk,
  RowsReader,
  WalScanner,
} from '../../pkg/pgpage_wasm.js';
import type {
  ChunkComparison,
  FieldFix,
  FindingRow,
  FlipsRanked,
  FsmPage,
  RelationFileName,
  VmBits,
  FullPageName,
  GoTo,
  HeapLines,
  PageAdvice,
  PageComparison,
  PageStory,
  RowsChunkCounts,
  RowsColumn,
  RowsTable,
  TupleShown,
  LeftOut,
  WalBlock,
  WalProblem,
  WalRecovered,
  WalSummary,
  WebListing,
} from './generated';
import type { ControlJson, DecodedColumns, FileVerdictDetails, ReportBlock, ReportJson, ReportWanted } from './shapes';
import type { Wasm } from './load';

export { loadBuild, loadWasm, wasmBytes, type Wasm } from './load';
export type {
  CatalogReader,
  DecodedPageJs,
  FileVerdictJs,
  MapPageJs,
  ReportOutput,
  ReportReader,
  RowsChunk,
  RowsReader,
  StructuresJs,
  WalScanner,
} from '../../pkg/pgpage_wasm.js';
export type * from './generated';
export type * from './shapes';

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

/** `pageAdvice` knowing what the structural checks know of the page's relation. */
export function pageAdviceWith(w: Wasm, ...args: Parameters<Wasm['page_advice_with']>): PageAdvice {
  return JSON.parse(w.page_advice_with(...args)) as PageAdvice;
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

/** The blocks a finished scan rebuilt as `pgpage recover --block` does (those its `recover` chose). */
export function walRecovered(scanner: WalScanner): WalRecovered[] {
  return JSON.parse(scanner.recovered_json()) as WalRecovered[];
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

/** What a relation file's name says; undefined when it is no relation file's. */
export function relationFileName(w: Wasm, name: string): RelationFileName | undefined {
  const json = w.relation_file_name(name);
  return json === undefined ? undefined : (JSON.parse(json) as RelationFileName);
}

/** Every finding the core reports, in code order. */
export function findingsTable(w: Wasm): FindingRow[] {
  return JSON.parse(w.findings_table()) as FindingRow[];
}

/** A file's verdict beside its typed arrays. */
export function verdictDetails(v: FileVerdictJs): FileVerdictDetails {
  return JSON.parse(v.json) as FileVerdictDetails;
}

/** A `vm` fork page's map. */
export function vmPageOf(m: MapPageJs): VmBits {
  return JSON.parse(m.json) as VmBits;
}

/** An `fsm` fork page's tree. */
export function fsmPageOf(m: MapPageJs): FsmPage {
  return JSON.parse(m.json) as FsmPage;
}

/** A page's pageinspect columns as the core decoded it. */
export function decodedColumns(d: DecodedPageJs): DecodedColumns {
  return JSON.parse(d.json) as DecodedColumns;
}

/** `global/pg_control` decoded; throws the core's reason when it cannot be. */
export function decodeControl(w: Wasm, bytes: Uint8Array): ControlJson {
  return JSON.parse(w.decode_control(bytes)) as ControlJson;
}

/** The byte ranges the report reads next; empty when it can finish. */
export function reportWanted(reader: ReportReader): ReportWanted[] {
  return JSON.parse(reader.wanted()) as ReportWanted[];
}

/** The report (CONTRACTS.md `report --json`). */
export function reportOf(out: ReportOutput): ReportJson {
  return JSON.parse(out.json) as ReportJson;
}

/** `report --json --redact`: the same blocks and evidence lines, without row data. */
export function redactedReportOf(out: ReportOutput): ReportJson {
  return JSON.parse(out.json_redacted) as ReportJson;
}

/** What each WAL record effect (wal::RowEffect, by its JSON name) does to a page's rows, in words. */
export function rowEffectWords(w: Wasm): Record<string, string> {
  return JSON.parse(w.row_effect_words()) as Record<string, string>;
}

/** A torn page rebuilt as `pgpage repair --torn` rebuilds it, from the incident report's finding
 * on its block (its older sectors, the older versions, the moved rows, the HOT chains' newest
 * versions, and where the header is the older write the newer write's line pointers), its checksum set for `absoluteBlock`; throws the core's reason when it cannot be. */
export function tornRebuilt(w: Wasm, page: Uint8Array, absoluteBlock: number, bigEndian: boolean, told: ReportBlock): Uint8Array {
  return w.torn_rebuilt(
    page,
    absoluteBlock,
    bigEndian,
    Uint32Array.from(told.torn_sectors ?? []),
    Uint16Array.from(told.torn_items ?? []),
    Uint16Array.from((told.torn_moved ?? []).flatMap((m) => [m.lp, m.lp_off])),
    Uint16Array.from((told.torn_newest ?? []).flat()),
    Uint16Array.from((told.torn_rebuilt ?? []).flatMap((i) => [i.lp, i.lp_off, i.lp_flags, i.lp_len])),
    told.torn_refused,
  );
}

/** The page with its one wrong header field set to the value the core names (`pgpage repair
 * --set`), its checksum recomputed for `absoluteBlock`; throws the core's reason when the server
 * would still refuse the page, or, unless `force`, when the stored checksum does not verify
 * with the value. */
export function setHeaderField(w: Wasm, page: Uint8Array, absoluteBlock: number, bigEndian: boolean, fix: FieldFix, force: boolean): Uint8Array {
  return w.set_header_field(page, fix.field, fix.value, force, absoluteBlock, bigEndian);
}

/** Numbers (line pointers, blocks) as the core lists them: consecutive ones as runs, `6-36, 43, 46`. */
export function runTexts(w: Wasm, items: readonly number[]): string {
  return w.run_texts(Uint32Array.from(items));
}
