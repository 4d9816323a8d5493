// web/src/core/ is the only door to the wasm package (web/pkg, web/pkg-scalar): every other
// file of the app, tests included, imports the core from here, so the bindings' raw shapes
// (JSON strings, typed arrays) are read in one place.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = join(__dirname, '..');

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) => {
    const p = join(dir, d.name);
    if (d.isDirectory()) return sources(p);
    return /\.(ts|tsx)$/.test(d.name) ? [p] : [];
  });
}

/** Module specifiers a file imports, statically or with `import()`, or re-exports. */
function specifiers(text: string): string[] {
  return [...text.matchAll(/\b(?:from|import)\s*\(?\s*['"`]([^'"`]+)['"`]/g)].map((m) => m[1] ?? '');
}

const wasmPackage = (spec: string): boolean => /(^|\/)pkg(-[a-z]+)?\/pgpage_wasm/.test(spec);

describe('the one door to the core', () => {
  const files = sources(SRC);

  it('finds the sources and the imports it checks', () => {
    expect(files.length).toBeGreaterThan(50);
    const load = files.find((f) => relative(SRC, f) === join('core', 'load.ts'));
    const seen = new Set(load ? specifiers(readFileSync(load, 'utf8')).filter(wasmPackage) : []);
    expect([...seen].sort()).toEqual(['../../pkg-scalar/pgpage_wasm.js', '../../pkg/pgpage_wasm.js']);
  });

  it('no file outside web/src/core imports the wasm package', () => {
    const outside = files
      .filter((f) => !relative(SRC, f).startsWith(`core/`))
      .flatMap((f) =>
        specifiers(readFileSync(f, 'utf8'))
          .filter(wasmPackage)
          .map((s) => `${relative(SRC, f)}: ${s}`),
      );
    expect(outside).toEqual([]);
  });

  it('web/src/components, which know nothing of PostgreSQL, do not reach the core', () => {
    // Their tests may: they feed the components spans the core decoded from real pages.
    const reaching = files
      .filter((f) => relative(SRC, f).startsWith('components/') && !/\.test\.tsx?$/.test(f))
      .flatMap((f) =>
        specifiers(readFileSync(f, 'utf8'))
          .filter((s) => /(^|\/)core(\/|$)/.test(s))
          .map((s) => `${relative(SRC, f)}: ${s}`),
      );
    expect(files.some((f) => relative(SRC, f).startsWith('components/'))).toBe(true);
    expect(reaching).toEqual([]);
  });
});
