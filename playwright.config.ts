// Browser tests: the built app (dist/, `npm run build`) served by `vite preview` on loopback,
// driven in Debian's chromium. Never downloads a browser.
import { defineConfig } from '@playwright/test';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('.', import.meta.url));

const port = Number(process.env.PGPAGE_PORT ?? 4317);

export default defineConfig({
  testDir: 'tests/browser',
  timeout: 120_000,
  // A shared 2-core CI machine can take seconds to read a file: waiting is not a weaker check.
  expect: { timeout: 15_000 },
  workers: 1,
  reporter: [['list']],
  use: {
    baseURL: `http://127.0.0.1:${port}/`,
    headless: true,
    launchOptions: {
      executablePath: '/usr/bin/chromium',
      args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'],
    },
  },
  webServer: {
    command: `npx vite preview --host 127.0.0.1 --port ${port} --strictPort`,
    url: `http://127.0.0.1:${port}/`,
    cwd: root,
    reuseExistingServer: false,
    timeout: 60_000,
  },
});
