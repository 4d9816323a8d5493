// Browser figures (not tests): `npx playwright test -c tests/browser-bench`. Prints verify
// speed against the bare File read speed, time to block 0, and the longest main-thread task.
import { defineConfig } from '@playwright/test';
import base from '../../playwright.config';

export default defineConfig({ ...base, testDir: '.', timeout: 600_000 });
