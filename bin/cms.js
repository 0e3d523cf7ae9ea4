#!/usr/bin/env node
// `npx cms ...`: the compiled CLI (dist/, `npm run build`; the image always has it) when it is
// current, else the TypeScript through tsx's loader, so a checkout being edited never runs stale code.
import { isCurrent } from '../scripts/build.mjs';

if (isCurrent()) {
  await import('../dist/cli/main.js');
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import('../src/cli/main.ts');
}
