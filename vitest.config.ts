// Test projects: TypeScript units (web/), wasm bindings under Node (tests/node/), and the
// PostgreSQL differential tests (tests/pg/), which start their own throwaway clusters of
// every version 13-19 (projects pg13 ... pg19; `pg` is 15).
import { defineConfig } from 'vitest/config';

const PG_VERSIONS = [15, 13, 14, 16, 17, 18, 19] as const;
/** The suites every version runs: pg_control, corrupted copies, every access method against
 * pageinspect, random pages against page_checksum, the clean corpus against pg_checksums,
 * the page view's column order and VM/FSM maps against pageinspect and pg_visibility, a
 * zeroed page between rows against the server's count, the browser's rows against COPY. */
const EVERY_VERSION = ['control', 'corrupt', 'inspect', 'pageview', 'random', 'rows', 'verify', 'zeroed'];

export default defineConfig({
  test: {
    projects: [
      {
        // The app's build stamps its version in (vite.config.ts); units read a fixed one.
        define: { __PGPAGE_VERSION__: JSON.stringify('0.0.0 (unit tests)') },
        test: {
          name: 'web',
          include: ['web/**/*.test.{ts,tsx}'],
          environment: 'jsdom',
          sequence: { groupOrder: 0 },
        },
      },
      {
        test: {
          name: 'node',
          include: ['tests/node/**/*.test.ts'],
          environment: 'node',
          testTimeout: 60_000,
          sequence: { groupOrder: 1 },
        },
      },
      // The PostgreSQL differential suites, once per version 13-19, one version after another
      // (each file starts its own cluster; two at once is what two cores carry). `pg` is 15
      // and also holds the committed fixtures and samples, which PostgreSQL 15 made.
      ...PG_VERSIONS.map((version, i) => ({
        test: {
          name: version === 15 ? 'pg' : `pg${version}`,
          include: version === 15 ? ['tests/pg/**/*.test.ts'] : EVERY_VERSION.map((f) => `tests/pg/${f}.test.ts`),
          environment: 'node',
          env: { PGPAGE_PG_VERSION: String(version) },
          testTimeout: 600_000,
          hookTimeout: 600_000,
          maxWorkers: 2,
          // Projects with their own maxWorkers run as groups of their own, one after another.
          sequence: { groupOrder: 2 + i },
        },
      })),
    ],
  },
});
