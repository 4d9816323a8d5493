// The one door to the core's wasm bindings: every other file of the app reaches the core
// through here. Functions that return the core's JSON are wrapped so the JSON is parsed once,
// here, into the type generated from the Rust struct that serialized it (./generated, written
// by `cargo test -p pgpage-wasm --features ts ts_export`).
import type { CatalogReader } from '../../pkg/pgpage_wasm.js';
import type { WebListing } from './generated/WebListing';

export { loadBuild, loadWasm, wasmBytes, type Wasm } from './load';
export type { CatalogReader, DecodedPageJs, FileVerdictJs, StructuresJs } from '../../pkg/pgpage_wasm.js';
export type { DatabaseRow } from './generated/DatabaseRow';
export type { WebFile } from './generated/WebFile';
export type { WebListing } from './generated/WebListing';
export type { WebRelation } from './generated/WebRelation';

/** The data directory's listing, once every file the reader wanted has been given. */
export function catalogListing(reader: CatalogReader): WebListing {
  return JSON.parse(reader.finish()) as WebListing;
}
