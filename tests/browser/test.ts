// Every browser test runs under this fixture: it records each request the page makes and
// fails the test if one goes to another origin or carries a body. README promises that
// nothing leaves the machine; this makes the promise hold on every path the tests walk.
import { expect, test as base } from '@playwright/test';

export { expect };
export type { Locator, Page } from '@playwright/test';

export const test = base.extend<{ requests: string[] }>({
  requests: [
    async ({ page, baseURL }, use) => {
      const origin = new URL(baseURL!).origin;
      const seen: string[] = [];
      const leaked: string[] = [];
      page.on('request', (r) => {
        const u = new URL(r.url());
        seen.push(`${r.method()} ${r.url()}`);
        if (u.protocol === 'data:' || u.protocol === 'blob:') return;
        if (u.origin !== origin || r.postData() !== null) leaked.push(`${r.method()} ${r.url()}`);
      });
      await use(seen);
      expect(leaked, 'requests to another origin or with a body').toEqual([]);
    },
    { auto: true },
  ],
});
