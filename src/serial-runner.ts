/**
 * Runs a task one pass at a time. A wake-up during a pass asks for exactly one more pass after it,
 * so any number of wake-ups (NOTIFYs, timers, freed slots) coalesce and nothing that arrived
 * mid-pass is missed. The outbox dispatcher, the in-process delivery runner and the live change
 * stream all drive their passes through one of these.
 */
export class SerialRunner {
  private running = false;
  private again = false;
  /** The pass in progress, or a settled promise: what a close waits for. */
  current: Promise<void> = Promise.resolve();

  /** `stopped` is the owner's closed flag: once it says true, wake-ups are ignored. */
  constructor(
    private readonly pass: () => Promise<void>,
    private readonly stopped: () => boolean,
  ) {}

  wake(): void {
    if (this.stopped()) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = true;
    this.current = this.pass().finally(() => {
      this.running = false;
      if (this.again && !this.stopped()) {
        this.again = false;
        this.wake();
      }
    });
  }
}
