// The simd128 build as `scripts/build-wasm.sh` left it in web/pkg, loaded from disk: for tests
// under Node, where the page's loader (fetch of the .wasm) has nothing to fetch from.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Wasm } from './load';

let wasm: Wasm | null = null;

export async function wasmFromDisk(): Promise<Wasm> {
  if (!wasm) {
    const w: Wasm = await import('../../pkg/pgpage_wasm.js');
    w.initSync({ module: readFileSync(join(__dirname, '../../pkg/pgpage_wasm_bg.wasm')) });
    wasm = w;
  }
  return wasm;
}
