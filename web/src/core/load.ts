// Loads the wasm bindings once per realm (page or worker): the simd128 build where the
// engine has SIMD, else the scalar build (wasm-feature-detect, as squoosh does).
import { simd } from 'wasm-feature-detect';

export type Wasm = typeof import('../../pkg/pgpage_wasm.js');

let loading: Promise<Wasm> | null = null;
let memory: WebAssembly.Memory | null = null;

export function loadWasm(): Promise<Wasm> {
  loading ??= (async () => {
    const mod: Wasm = (await simd()) ? await import('../../pkg/pgpage_wasm.js') : await import('../../pkg-scalar/pgpage_wasm.js');
    memory = (await mod.default()).memory;
    return mod;
  })();
  return loading;
}

/** One build by name, whatever the engine would pick: the checksum lab's benchmark compares
 * them. Its memory is its own; `wasmBytes` stays the picked build's. */
export async function loadBuild(build: 'simd128' | 'scalar'): Promise<Wasm> {
  const mod: Wasm = build === 'simd128' ? await import('../../pkg/pgpage_wasm.js') : await import('../../pkg-scalar/pgpage_wasm.js');
  await mod.default();
  return mod;
}

/** The loaded module's memory as bytes: a new view each call, since memory may have grown. */
export function wasmBytes(): Uint8Array {
  if (!memory) throw new Error('the wasm module is not loaded');
  return new Uint8Array(memory.buffer);
}
