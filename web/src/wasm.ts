// Loads the wasm bindings once per realm (page or worker): the simd128 build where the
// engine has SIMD, else the scalar build (wasm-feature-detect, as squoosh does).
import { simd } from 'wasm-feature-detect';

export type Wasm = typeof import('../pkg/pgpage_wasm.js');

let loading: Promise<Wasm> | null = null;

export function loadWasm(): Promise<Wasm> {
  loading ??= (async () => {
    const mod: Wasm = (await simd()) ? await import('../pkg/pgpage_wasm.js') : await import('../pkg-scalar/pgpage_wasm.js');
    await mod.default();
    return mod;
  })();
  return loading;
}
