// The version the app was built from: package.json's and its commit, put in by vite.config.ts's `define`.
declare const __PGPAGE_VERSION__: string;

export const VERSION: string = __PGPAGE_VERSION__;
