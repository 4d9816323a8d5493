// The one door to the core's wasm bindings: every other file of the app reaches the core
// through here. Functions that return the core's JSON are wrapped so the JSON is parsed once,
// here, into the type generated from the Rust struct that serialized it (./generated).
export { loadBuild, loadWasm, wasmBytes, type Wasm } from './load';
export type { CatalogReader, DecodedPageJs, FileVerdictJs, StructuresJs } from '../../pkg/pgpage_wasm.js';
