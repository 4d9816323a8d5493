// Test projects: TypeScript units (web/), wasm bindings under Node (tests/node/), and the
// PostgreSQL differential tests (tests/pg/), which start their own throwaway clusters.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    projects: [
      {
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
      {
        test: {
          name: 'pg',
          include: ['tests/pg/**/*.test.ts'],
          environment: 'node',
          testTimeout: 600_000,
          hookTimeout: 600_000,
          // Each file starts its own cluster; two at once is what two cores carry.
          maxWorkers: 2,
          // Projects with their own maxWorkers run as groups of their own, one after another.
          sequence: { groupOrder: 2 },
        },
      },
    ],
  },
});
