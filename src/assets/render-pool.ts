import type { Services } from '../context.ts';
import { AppError } from '../errors.ts';
import { limitRenderThreads } from './images.ts';

/**
 * Who is waiting: a `public` render (a first request for a variant on the unauthenticated file URL)
 * is refused once the queue is full; an `upload` (an authenticated client's thumbnail) always waits,
 * ahead of public renders, since refusing it would fail a whole (bulk) upload.
 */
export type RenderClass = 'public' | 'upload';

export interface RenderPoolLimits {
  /** Renders running at once. */
  concurrency: number;
  /** Public renders waiting for a slot; one more is refused with 503. */
  maxQueue: number;
}

/**
 * The process's image renders, a few at a time. sharp decodes and encodes on libuv's threadpool,
 * which the rest of the process shares (file reads, response compression, DNS): unbounded renders
 * on a public URL would leave a published read waiting behind them. Each render also holds its
 * original in memory, so the waiting line is bounded too, and a client told to go away is told when
 * to come back (Retry-After from the recent render time).
 */
export class RenderPool {
  private running = 0;
  private readonly waiting: Record<RenderClass, Array<() => void>> = { upload: [], public: [] };
  /** Recent render time, a moving average (ms), for Retry-After. */
  private averageMs = 250;

  constructor(private readonly limits: RenderPoolLimits) {}

  /** False when a public render would be refused now. */
  hasRoom(): boolean {
    return this.running < this.limits.concurrency || this.waiting.public.length < this.limits.maxQueue;
  }

  /** Seconds until the work ahead of a new public render is likely done (1 to 60). */
  retryAfterSeconds(): number {
    const ahead = this.running + this.waiting.upload.length + this.waiting.public.length;
    return Math.min(60, Math.max(1, Math.ceil((ahead * this.averageMs) / this.limits.concurrency / 1000)));
  }

  busyError(): AppError {
    const seconds = this.retryAfterSeconds();
    return new AppError('SERVICE_UNAVAILABLE', `The server is busy rendering other images; retry in ${seconds} second${seconds === 1 ? '' : 's'}.`, {
      retryAfter: seconds,
    });
  }

  /** Runs `work` in a slot; a public render is refused (503) when the queue is full. */
  async run<T>(work: () => Promise<T>, kind: RenderClass): Promise<T> {
    if (this.running < this.limits.concurrency) this.running++;
    else {
      if (kind === 'public' && this.waiting.public.length >= this.limits.maxQueue) throw this.busyError();
      // The slot is handed over by the finishing render (running is not decremented in between).
      await new Promise<void>((resolve) => this.waiting[kind].push(resolve));
    }
    const started = performance.now();
    try {
      return await work();
    } finally {
      this.averageMs = 0.8 * this.averageMs + 0.2 * (performance.now() - started);
      const next = this.waiting.upload.shift() ?? this.waiting.public.shift();
      if (next) next();
      else this.running--;
    }
  }
}

const pools = new WeakMap<Services, RenderPool>();

/** The render pool of the process that owns `services`; the first call also limits sharp's threads. */
export function renderPool(services: Services): RenderPool {
  let pool = pools.get(services);
  if (!pool) {
    const { config } = services;
    limitRenderThreads(config.IMAGE_RENDER_THREADS);
    pool = new RenderPool({ concurrency: config.IMAGE_RENDER_CONCURRENCY, maxQueue: config.IMAGE_RENDER_QUEUE });
    pools.set(services, pool);
  }
  return pool;
}
