// What `npm start` and `npm run build` print from the bundler: PGlite's own build choices
// (Emscripten's direct eval, an import of node:module for Node) are not printed on every run,
// while a warning about this project's code still is.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from 'vitest';

test('the app builds without printing PGlite warnings, and still prints the others', { timeout: 120_000 }, () => {
  const out = mkdtempSync(join(tmpdir(), 'pgpage-build-'));
  try {
    const printed = execFileSync('bash', ['-c', `npx vite build --logLevel warn --outDir ${out} --emptyOutDir 2>&1`], { encoding: 'utf8' });
    expect(printed).not.toMatch(/\[EVAL\]|direct `eval`/);
    expect(printed).not.toContain('node:module');
    // A warning of another kind, from a config that breaks a rule on purpose, is printed.
    const config = join(out, 'warn.config.mts');
    writeFileSync(
      config,
      `import base from '${join(process.cwd(), 'vite.config.ts')}';\nexport default { ...base, root: '${join(process.cwd(), 'web')}', build: { ...base.build, chunkSizeWarningLimit: 1 } };\n`,
    );
    const warned = execFileSync('bash', ['-c', `npx vite build --config ${config} --logLevel warn --outDir ${join(out, 'w')} --emptyOutDir 2>&1`], {
      encoding: 'utf8',
    });
    expect(warned).toContain('larger than 1 kB');
    expect(warned).not.toMatch(/\[EVAL\]/);
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
});
