#!/usr/bin/env node
// `npx cms ...` from a checkout: the CLI is TypeScript run through tsx's loader (no build step, and
// nothing relies on npm install scripts, which this environment does not run).
import { register } from 'tsx/esm/api';

register();
await import('../src/cli/main.ts');
