import { defineConfig } from 'vitest/config';
import LongFirstSequencer from './test/helpers/sequencer.ts';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/helpers/global-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 180_000,
    pool: 'forks',
    maxWorkers: 2,
    // Test files of one worker share its module graph: importing the app once per worker instead of
    // once per file took the suite's import time from ~570 s to ~100 s. Safe because every test builds
    // its own app and database, and process-wide caches are kept per services instance (per database).
    isolate: false,
    sequence: { sequencer: LongFirstSequencer },
  },
});
