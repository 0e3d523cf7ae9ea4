import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * Files known to run for minutes, started first. Without a results cache (every CI run is a clean
 * clone) vitest starts the largest files first, and the quick bench, a small file that runs for two
 * to three minutes, came last: one worker ran it alone while the other had nothing left, which was
 * most of the suite's tail.
 */
const LONG_FIRST = ['test/bench/quick.test.ts', 'test/browser/pages.test.ts'];

export default class LongFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (f: TestSpecification) => {
      const i = LONG_FIRST.indexOf(relative(f.project.config.root, f.moduleId));
      return i === -1 ? LONG_FIRST.length : i;
    };
    // Array.prototype.sort is stable: everything else keeps vitest's own order.
    return sorted.sort((a, b) => rank(a) - rank(b));
  }
}
