/**
 * A progress bar on stderr, drawn only when stderr is a terminal (never in logs, pipes or CI), and
 * at most ten times a second.
 */
export interface Progress {
  update(done: number, total: number): void;
  finish(): void;
}

const WIDTH = 30;

export function progressBar(out: { write(s: string): void; isTTY: boolean }, label: string): Progress {
  if (!out.isTTY) return { update() {}, finish() {} };
  let last = 0;
  let drawn = false;
  const draw = (done: number, total: number) => {
    const ratio = total > 0 ? Math.min(1, done / total) : 1;
    const filled = Math.round(ratio * WIDTH);
    out.write(`\r${label} [${'#'.repeat(filled)}${'.'.repeat(WIDTH - filled)}] ${String(Math.floor(ratio * 100)).padStart(3)}% ${done}/${total}`);
    drawn = true;
  };
  let latest: [number, number] = [0, 0];
  return {
    update(done, total) {
      latest = [done, total];
      const now = Date.now();
      if (now - last < 100) return;
      last = now;
      draw(done, total);
    },
    finish() {
      if (drawn || latest[1] > 0) {
        draw(...latest);
        out.write('\n');
      }
    },
  };
}
